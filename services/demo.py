"""A realistic demo store, clearly marked as demo data (agent names start with ``demo-``)."""
from __future__ import annotations

from services.ingest import NewFact

DEMO_FACTS = {
    "demo-claude-code": [
        ("pref", "Prefers pnpm over npm for JavaScript projects", 0.7),
        ("rule", "Never push to main without a pull request", 0.9),
        ("env", "Development machine runs Debian 12 with Python 3.11", 0.5),
        ("proj:engram", "Engram stores facts in SQLite with FTS5 and vectors in Chroma", 0.6),
        ("fact", "Works in the Europe/Berlin time zone", 0.5),
        ("task", "Finish the importer for Lynn facts.db before Friday", 0.6),
    ],
    "demo-cursor": [
        ("pref", "Uses tabs, not spaces, in Go code", 0.5),
        ("proj:web", "The web app is built with Vite and React 19", 0.6),
        ("tmp", "Debugging a flaky login test on CI this week", 0.3),
    ],
}


def seed_demo(engram) -> None:
    for slug, facts in DEMO_FACTS.items():
        mem = engram.agent(slug, create=True, kind=slug.split("-", 1)[1])
        mem.remember_many([NewFact(content=c, category=cat, importance=imp, source="demo")
                           for cat, c, imp in facts])

"""A realistic demo store, clearly marked as demo data (agent names start with ``demo-``).

``seed_demo(engram, n_facts=300)`` creates four demo agents with facts of every category,
spread over about two months with varied importance, some pinned, some archived, plus daily
episodes (session summaries in markdown). Deterministic for a given ``seed``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any

from models.tables import utcnow
from services.ingest.pipeline import NewFact
from services.records import RememberStatus
from services.store.handle import EngramHandle

DEMO_PREFIX = "demo-"
AGENTS = {  # slug: (display name, kind)
    "demo-claude-code": ("Demo · Claude Code", "claude-code"),
    "demo-cursor": ("Demo · Cursor", "cursor"),
    "demo-hermes": ("Demo · Hermes", "hermes"),
    "demo-lynn": ("Demo · Lynn", "lynn"),
}

BASE = {
    "demo-claude-code": [
        ("rule", "Never push to main without a pull request and a green CI run", 0.95, True),
        ("rule", "Run the test suite before every commit", 0.9, True),
        ("pref", "Prefers pnpm over npm for JavaScript projects", 0.7, False),
        ("pref", "Likes small commits with imperative commit messages", 0.6, False),
        ("env", "Development machine runs Debian 12 with Python 3.11", 0.5, False),
        ("env", "Uses Neovim with the LazyVim distribution", 0.4, False),
        (
            "proj:engram",
            "Engram stores facts in SQLite with FTS5 and vectors in Chroma",
            0.7,
            False,
        ),
        ("proj:engram", "The Engram GUI is written with PySide6 widgets, no QML", 0.6, False),
        ("fact", "Works in the Europe/Berlin time zone", 0.5, False),
        ("rel:maria", "Maria reviews all database migrations", 0.6, False),
        ("task", "Finish the importer for Lynn facts.db before Friday", 0.6, False),
        ("meta", "Memory files live in ~/.claude/memory and are compiled nightly", 0.5, True),
    ],
    "demo-cursor": [
        ("pref", "Uses tabs, not spaces, in Go code", 0.5, False),
        ("proj:web", "The web app is built with Vite and React 19", 0.6, False),
        ("proj:web", "API routes live under src/server/api and use zod validation", 0.55, False),
        ("tmp", "Debugging a flaky login test on CI this week", 0.3, False),
        ("env", "Node 22 LTS is installed through fnm", 0.4, False),
        ("rule", "Do not add new dependencies without asking first", 0.85, True),
    ],
    "demo-hermes": [
        ("pref", "Answers should be short and start with the conclusion", 0.7, True),
        ("fact", "Has a standing meeting with the platform team on Tuesdays at 10:00", 0.5, False),
        ("rel:sam", "Sam is the on-call lead for the payments service", 0.6, False),
        ("task", "Draft the quarterly infrastructure cost report", 0.55, False),
    ],
    "demo-lynn": [
        ("pref", "Prefers dark roast coffee, no sugar", 0.4, False),
        ("fact", "Plays cello in a community orchestra", 0.5, False),
        ("rel:anna", "Anna is the user's sister and lives in Vienna", 0.65, False),
        ("task", "Book train tickets to Vienna for the December visit", 0.5, False),
    ],
}

# templated facts: (category, template, importance range)
TEMPLATES = [
    ("proj:{proj}", "The {proj} service uses {tech} for {purpose}", (0.4, 0.8)),
    ("proj:{proj}", "In {proj}, {component} must stay backwards compatible with v{n}", (0.5, 0.8)),
    ("env", "{tool} version {n}.{m} is installed on the {machine} machine", (0.2, 0.5)),
    ("pref", "Prefers {choice} over {other} when {situation}", (0.4, 0.8)),
    ("task", "Follow up on {ticket} about {topic}", (0.3, 0.6)),
    ("tmp", "Currently investigating {topic} in {proj}", (0.1, 0.4)),
    ("fact", "The team decided on {date_word} to {decision}", (0.4, 0.7)),
    ("rel:{person}", "{Person} owns {component} of {proj}", (0.4, 0.7)),
    ("rule", "Always {rule_action} before {rule_when}", (0.7, 0.95)),
]
WORDS = {
    "proj": ["engram", "web", "billing", "search", "mobile", "infra", "docs"],
    "tech": ["PostgreSQL", "Redis", "SQLite", "Kafka", "gRPC", "FastAPI", "Tokio", "Celery"],
    "purpose": [
        "caching sessions",
        "the job queue",
        "full-text search",
        "rate limiting",
        "audit logs",
        "feature flags",
    ],
    "component": [
        "the public API",
        "the sync protocol",
        "the CLI",
        "the export format",
        "the config file",
        "the plugin interface",
    ],
    "tool": ["Docker", "Rust", "Go", "PostgreSQL", "Terraform", "kubectl", "uv"],
    "machine": ["laptop", "build", "staging", "home server"],
    "choice": [
        "pytest",
        "ripgrep",
        "squash merges",
        "type hints",
        "short functions",
        "dataclasses",
        "SQL migrations in code",
    ],
    "other": [
        "unittest",
        "grep",
        "merge commits",
        "docstrings only",
        "long functions",
        "dicts",
        "hand-written SQL files",
    ],
    "situation": [
        "writing tests",
        "searching code",
        "merging pull requests",
        "reviewing Python",
        "refactoring",
        "designing APIs",
    ],
    "ticket": ["ENG-%d" % n for n in range(100, 999, 37)],
    "topic": [
        "slow startup",
        "memory growth",
        "a flaky test",
        "timezone handling",
        "the token budget",
        "duplicate notifications",
        "a migration failure",
    ],
    "date_word": ["Monday", "the retro", "the planning call", "Thursday's review"],
    "decision": [
        "drop Python 3.9 support",
        "ship weekly",
        "use feature flags for risky changes",
        "move CI to self-hosted runners",
        "keep the API frozen until v2",
    ],
    "person": ["maria", "sam", "li", "omar", "jonas"],
    "rule_action": [
        "run the linters",
        "write a migration test",
        "update the changelog",
        "ask for a second review",
        "back up the database",
    ],
    "rule_when": [
        "merging",
        "a release",
        "deleting data",
        "changing the schema",
        "touching production",
    ],
}
EPISODES = [
    "Worked on **{proj}**: {did}. Decided to {decision}.",
    "Pairing session on {proj}.\n\n- {did}\n- Open question: {topic}\n- Next: follow up on {ticket}",
    "Short session: investigated {topic} in {proj}; {did}.",
    "Reviewed pull requests for {proj}. See the design notes at https://example.com/{proj}/design.",
]
DID = [
    "fixed the failing migration",
    "added tests for the importer",
    "profiled the search path",
    "cleaned up the settings dialog",
    "wrote the release notes",
    "reduced memory use by 30%",
    "refactored the sync loop",
    "documented the CLI",
]


def _fill(rng: random.Random, template: str) -> tuple[str, dict]:
    picks: dict[str, Any] = {k: rng.choice(v) for k, v in WORDS.items()}
    pair = rng.randrange(len(WORDS["choice"]))  # "pytest over unittest", not "over grep"
    picks["choice"], picks["other"] = WORDS["choice"][pair], WORDS["other"][pair]
    picks["n"], picks["m"] = rng.randint(1, 9), rng.randint(0, 20)
    picks["Person"] = picks["person"].capitalize()
    picks["did"] = rng.choice(DID)
    return template.format(**picks), picks


FIRST_RUN_MARKER = ".first-run-done"  # in the data dir: the demo was offered once


def first_run(data_dir: str | Path) -> bool:
    """True once per store: the first time anyone asks. ``--demo-if-empty`` seeds the demo
    only then, so a user who removed the demo and emptied the trash does not get it back."""
    marker = Path(data_dir) / FIRST_RUN_MARKER
    if marker.exists():
        return False
    from services.store.atomic import atomic_write

    atomic_write(marker, utcnow().isoformat(timespec="seconds") + "\n")
    return True


def seed_demo(
    engram: EngramHandle,
    n_facts: int = 300,
    days: int = 60,
    seed: int = 7,
    now: datetime | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[str, int]:
    """Create the demo agents and about ``n_facts`` facts; returns facts added per agent.
    A demo agent that already has memories gets nothing more, so running it twice adds
    nothing and running it after an interruption adds only the agents still missing.
    ``cancelled`` is asked between agents: each agent is written whole."""
    slugs = list(AGENTS)
    have = {a.slug for a in engram.agents() if a.fact_count}
    now = now or utcnow()
    weights = [0.4, 0.25, 0.2, 0.15]
    added: dict[str, int] = {slug: 0 for slug in slugs}
    for slug in slugs:
        name, kind = AGENTS[slug]
        engram.add_agent(slug, name=name, kind=kind, exist_ok=True)
    for done, (slug, w) in enumerate(zip(slugs, weights)):
        if progress:
            progress(done, len(slugs))
        if slug in have:
            continue
        if cancelled and cancelled():
            break
        rng = random.Random(f"{seed}:{slug}")  # one agent's demo is the same made alone
        mem = engram.agent(slug)
        items: list[NewFact] = []
        for cat, text, imp, pinned in BASE[slug]:
            created = (
                now - timedelta(days=rng.uniform(days * 0.6, days), hours=rng.random())
            ).replace(microsecond=0)
            items.append(
                NewFact(
                    text,
                    category=cat,
                    importance=imp,
                    pinned=pinned,
                    source="demo",
                    created_at=created,
                    tags=["demo"],
                )
            )
        target = max(len(items), int(n_facts * w))
        seen = {i.content for i in items}
        tries = 0
        while len(items) < target and tries < target * 20:
            tries += 1
            cat_t, template, (lo, hi) = rng.choice(TEMPLATES)
            text, picks = _fill(rng, template)
            if text in seen:
                continue
            seen.add(text)
            cat = cat_t.format(**picks)
            # recent days are busier, like a real agent's memory
            age = days * (rng.random() ** 1.6)
            items.append(
                NewFact(
                    text,
                    category=cat,
                    importance=round(rng.uniform(lo, hi), 2),
                    pinned=rng.random() < 0.04,
                    source="demo",
                    created_at=(now - timedelta(days=age, minutes=rng.randint(0, 600))).replace(
                        microsecond=0
                    ),
                    tags=rng.sample(
                        ["backend", "frontend", "ops", "people", "decision", "demo"],
                        k=rng.randint(0, 2),
                    ),
                )
            )
        items.sort(key=lambda i: i.created_at or datetime.min)  # every demo item has a time
        res = mem.remember_many(items, near_duplicate=None, actor="demo")
        added[slug] = sum(1 for r in res if r.status == RememberStatus.ADDED)
        # a few archived facts so the status filter has something to show
        for fid in [
            r.fact_id for r in res if r.status == RememberStatus.ADDED and r.fact_id is not None
        ][:3]:
            mem.edit(fid, status="archived", actor="demo")
        for d in range(days, -1, -1):
            if rng.random() < 0.45:
                continue
            day = (now - timedelta(days=d)).date()
            for _ in range(rng.randint(1, 3)):
                text, _p = _fill(rng, rng.choice(EPISODES))
                t = time(rng.randint(8, 20), rng.choice([0, 15, 30, 45]))
                mem.add_episode(day, text, time=t.strftime("%I:%M %p").lstrip("0"), tags=["demo"])
    if progress:
        progress(len(slugs), len(slugs))
    return added

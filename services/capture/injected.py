"""Instructions injected into a session → rules.

Claude Code puts the CLAUDE.md files it loaded into the session (``Contents of PATH (project
instructions…)``) and prompt-submit hooks add their own context. Those are the user's rules
even when no file Engram imports holds them (a CLAUDE.md outside the imported projects, a
hook script). They are read like any instruction file, one statement per rule with its
lead-in and polarity, and stored with the session line they came from. Engram's own context
block (what its hooks inject) is never taken back in: it is Engram's memory already.
"""

from __future__ import annotations

import re

from services.capture.extract import MAX_LEN, ExtractedFact
from services.interop.importers.instructions import _only_imports
from services.interop.importers.mdreader import split_statements
from services.interop.importers.native import rule_category
from services.store.untrusted import DATA_NOTICE

_SOURCE = re.compile(r"^<!--\s*(\S+)\s*-->\n")
_ENGRAM = ("<engram-memory", DATA_NOTICE[:60], "# Memory — ")


def injected_facts(transcript) -> list[ExtractedFact]:
    out: list[ExtractedFact] = []
    seen: set[str] = set()
    for m in transcript.injected:
        text = m.text
        if any(mark in text for mark in _ENGRAM):
            continue
        src = _SOURCE.match(text)
        path = src.group(1) if src else None
        body = text[src.end() :] if src else text
        # a CLAUDE.md / AGENTS.md the harness loaded is the user's standing rules; hook output
        # may be a one-off context line, so it waits in the review inbox
        conf = 0.75 if path or transcript.source == "codex" else 0.55
        for st in split_statements(body):
            fact = " ".join(st.fact.split()) if "\n```" not in st.fact else st.fact.strip()
            if len(fact) < 12 or len(fact) > MAX_LEN * 3 or fact in seen or _only_imports(fact):
                continue  # "@~/.claude/engram/memory.md" loads a file; it says nothing
            seen.add(fact)
            out.append(
                ExtractedFact(
                    fact,
                    rule_category(fact, st.sections),
                    0.7,
                    "instruction",
                    timestamp=m.timestamp,
                    tags=["session", "injected"],
                    confidence=conf,
                    provenance={
                        "line": m.uuid,
                        "section": f"injected:{path}" if path else "injected:hook",
                    }
                    | ({} if conf >= 0.7 else {"unsure": "a hook's output: maybe one-off context"}),
                )
            )
    return out

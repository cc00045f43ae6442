"""A note's "Pros:"/"Cons:" bullets carry the option they weigh (issue 32): imported through
`engram import` from a basic-memory notes folder and a Claude Code memory file."""

from __future__ import annotations

import json

NOTE = """---
title: Database choice
type: note
permalink: decisions/database-choice
---

We compared two databases for the orders service.

## Option A: Postgres

**Pros:**
- easy to upgrade
- mature tooling

**Cons:**
- heavier to run

## SQLite

- Pros: no server to run
- Cons: one writer at a time
"""


def test_pros_and_cons_keep_the_option_they_are_about(cli, tmp_path):
    notes = tmp_path / "basic-memory" / "decisions"
    notes.mkdir(parents=True)
    (notes / "Database choice.md").write_text(NOTE, encoding="utf-8")
    rc, _, err = cli(
        "import", "--agent", "notes", "--format", "basic-memory", str(tmp_path / "basic-memory")
    )
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "notes", "--json")
    facts = {f["content"] for f in json.loads(out)}
    assert {
        "Option A: Postgres — Pros: easy to upgrade",
        "Option A: Postgres — Pros: mature tooling",
        "Option A: Postgres — Cons: heavier to run",
        "SQLite — Pros: no server to run",
        "SQLite — Cons: one writer at a time",
    } <= facts
    assert not [f for f in facts if f.startswith(("Pros:", "Cons:"))]

"""The structure-aware reader as a user meets it through `engram import`: a prose note stays
whole paragraphs, labels and lead-ins travel with what they head and are never facts alone,
a table row carries its header, a code fence the sentence that introduces it."""

from __future__ import annotations

import json

NOTE = """---
title: Tracing setup
type: note
permalink: tracing-setup
---

# Tracing setup

## Context

The API uses OpenTelemetry for tracing. Spans are exported to the collector on the staging
box, which forwards them to Honeycomb.

Add manual spans where:
- a request calls an external API
- a background job starts

**Pros:**
- one exporter for every service

**Cons:**
- the collector is a single point of failure

Manual updates

The sampling rate is changed by hand in `otel.yaml` after each release.
"""

TOPIC = """---
name: Deploy checklist
description: How deploys are run
type: project
---

Deploys run from the `deploy` workflow; never from a laptop.

| Environment | Approver |
|---|---|
| staging | any engineer |
| production | the on-call lead |

Roll back with:

```sh
make rollback ENV=production
```
"""


def _facts(cli, agent) -> list[str]:
    rc, out, _ = cli("list", "--agent", agent, "--status", "active", "--json")
    assert rc == 0
    return [f["content"] for f in json.loads(out)]


def test_a_prose_note_keeps_paragraphs_and_lead_ins(cli, tmp_path):
    note = tmp_path / "notes" / "tracing-setup.md"
    note.parent.mkdir()
    note.write_text(NOTE, encoding="utf-8")
    rc, _, err = cli("import", "--agent", "bm", str(note.parent))
    assert rc == 0, err
    facts = _facts(cli, "bm")
    assert any(
        f.startswith("The API uses OpenTelemetry for tracing.") and "Honeycomb" in f for f in facts
    )  # one paragraph, not two subject-less pieces
    assert "Add manual spans where: a request calls an external API" in facts
    assert "Add manual spans where: a background job starts" in facts
    # the labels carry what they weigh (issue 32); "Context" names a part of the note, not that
    assert "Tracing setup — Pros: one exporter for every service" in facts
    assert "Tracing setup — Cons: the collector is a single point of failure" in facts
    for alone in (
        "Tracing setup",
        "Context",
        "Pros:",
        "**Pros:**",
        "Manual updates",
        "Add manual spans where:",
    ):
        assert alone not in facts
    assert len(facts) == 6, facts


def test_table_rows_carry_headers_and_code_its_intro(cli, tmp_path):
    mem = tmp_path / ".claude" / "memory"
    mem.mkdir(parents=True)
    (mem / "project_deploys.md").write_text(TOPIC, encoding="utf-8")
    rc, _, err = cli("import", "--agent", "cc", str(mem))
    assert rc == 0, err
    facts = _facts(cli, "cc")
    assert "Environment: production; Approver: the on-call lead" in facts
    assert "Environment: staging; Approver: any engineer" in facts
    fence = [f for f in facts if "make rollback" in f]
    assert fence and fence[0].startswith("Roll back with:")
    assert "Deploys run from the `deploy` workflow; never from a laptop." in facts
    assert len(facts) == 4, facts

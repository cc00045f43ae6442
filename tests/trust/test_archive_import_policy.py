"""An archive is memory text from outside: ``engram archive import`` puts every field through
the write policy, and what the policy changes is handled the way it is everywhere else.

* a tag the policy would change is dropped, never kept in redacted form (in the fact and in
  the before/after copies the audit trail carries);
* a compiled layer is a document: redacting personal data in it keeps its layout byte for byte;
* the ``markdown`` an audit snapshot carries is memory text too: redacted, not left raw.

Through the CLI a user runs (export, edit the file, import, export again); the restored agent
is read back from its own export, and the data dir as raw bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.trust.on_disk import files_holding

SECRET = "sk_live_51HqLyjWDarjtT1zdp7dcXYZabc"
EMAIL = "zorblax.quentin@example.org"
TAGS = ["bread", "work", "extra"]
BAD_TAGS = [f"key-{SECRET}", EMAIL]
# a document with a layout: blank lines, an indented line, trailing blank lines
LAYER_TAIL = f"\n## Contacts\n\n- Reach the landlord at {EMAIL}\n    (evenings only)\n\n\n"
AUDIT_MARKDOWN = f"# Memory\n\n- Deploy key {SECRET}\n- Landlord {EMAIL}\n\n"


def _redacted(text: str) -> str:
    return text.replace(SECRET, "[REDACTED:stripe-key]").replace(EMAIL, "[REDACTED:email]")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _snapshots(rows: list[dict]) -> list[dict]:
    return [
        snap
        for r in rows
        if r["type"] == "audit"
        for snap in (r.get("before"), r.get("after"))
        if isinstance(snap, dict)
    ]


@pytest.fixture
def restored(cli, tmp_path):
    """Agent ``a`` exported; the file given a secret and an address (under the archived
    agent's ``pii: deny``) in tags, a layer and audit snapshots; imported as ``b``; ``b``
    exported again. Returns (the edited source lines, the restored agent's lines)."""
    rc, _, err = cli("remember", "--agent", "a", "--create-agent", "Likes rye bread",
                     "--tags", "bread,work")  # fmt: skip
    assert rc == 0, err
    assert cli("edit", "1", "--tags", ",".join(TAGS))[0] == 0
    assert cli("compile", "--agent", "a")[0] == 0
    src = tmp_path / "a.jsonl"
    assert cli("archive", "export", "--agent", "a", str(src))[0] == 0

    rows = _lines(src)
    for r in rows:
        if r["type"] == "agent":
            r["settings"] = {"pii": {"email": "deny"}}
        elif r["type"] == "fact":
            r["tags"] = r["tags"] + BAD_TAGS
        elif r["type"] == "layer":
            r["markdown"] += LAYER_TAIL
    snaps = _snapshots(rows)
    assert snaps, "the export carries audit snapshots"
    for snap in snaps:
        snap["tags"] = list(snap.get("tags") or []) + BAD_TAGS
        snap["markdown"] = AUDIT_MARKDOWN
    _write(src, rows)

    rc, _, err = cli("archive", "import", "--agent", "b", str(src))
    assert rc == 0, err
    out = tmp_path / "b.jsonl"
    assert cli("archive", "export", "--agent", "b", str(out))[0] == 0
    return rows, _lines(out)


def test_a_tag_the_policy_would_change_is_dropped_not_kept_redacted(restored, tmp_path):
    _, rows = restored
    facts = [r for r in rows if r["type"] == "fact"]
    assert [f["tags"] for f in facts] == [TAGS]
    snaps = _snapshots(rows)
    assert snaps and all(set(s["tags"]) <= set(TAGS) for s in snaps), [s["tags"] for s in snaps]
    data = tmp_path / "cli-store"
    assert files_holding(data, SECRET) == [] and files_holding(data, "zorblax") == []


def test_a_layer_keeps_its_layout_when_personal_data_in_it_is_redacted(restored):
    source, rows = restored
    want = {r["layer"]: _redacted(r["markdown"]) for r in source if r["type"] == "layer"}
    got = {r["layer"]: r["markdown"] for r in rows if r["type"] == "layer"}
    assert got == want
    assert all(md.endswith("    (evenings only)\n\n\n") for md in got.values())


def test_the_markdown_of_an_audit_snapshot_is_redacted_not_left_raw(restored, tmp_path):
    _, rows = restored
    snaps = _snapshots(rows)
    assert snaps and [s.get("markdown") for s in snaps] == [_redacted(AUDIT_MARKDOWN)] * len(snaps)
    data = tmp_path / "cli-store"
    assert files_holding(data, SECRET) == [] and files_holding(data, "zorblax") == []

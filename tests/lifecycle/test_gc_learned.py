"""Lifetime counts from when Engram learned a memory: last month's transcript ingested today
is new, so `engram gc` keeps every fact and episode captured from it for their full TTL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from cc_builder import SUMMARY, Session

from app.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _state(capsys, d: str) -> tuple[set[str], int]:
    rc, out, _ = run(capsys, "--data-dir", d, "list", "--agent", "claude", "--json")
    assert rc == 0
    facts = {f["content"] for f in json.loads(out) if f["status"] in ("active", "pending")}
    rc, out, _ = run(capsys, "--data-dir", d, "episodes", "--agent", "claude", "--json")
    return facts, len(json.loads(out))


def test_an_old_transcript_ingested_today_survives_gc(tmp_path, capsys):
    d = str(tmp_path / "store")
    s = Session("22222222-2222-4333-8444-000000000040")
    s.clock = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=40)
    s.user("We decided to keep the ledger in integer cents; never use floats for money.")
    s.compact(SUMMARY)
    s.say("Done. Totals are summed in cents.")
    proj = tmp_path / "projects" / "-home-dev-projects-shop"
    s.write(proj)
    rc, out, err = run(capsys, "--data-dir", d, "ingest-session", "--agent", "claude", str(proj))
    assert rc == 0, err
    facts, episodes = _state(capsys, d)
    assert facts and episodes, (facts, episodes)

    rc, out, err = run(capsys, "--data-dir", d, "gc", "--agent", "claude", "--json", "--yes")
    assert rc == 0, err
    rep = json.loads(out)
    assert rep["expired"] == rep["archived"] == rep["episodes_pruned"] == 0, rep
    assert _state(capsys, d) == (facts, episodes)

    # the TTL still ends: run the clock past the longest one and the session facts go
    later = (datetime.now(UTC) + timedelta(days=400)).date().isoformat()
    rc, out, _ = run(
        capsys, "--data-dir", d, "gc", "--agent", "claude", "--now", later, "--json", "--yes"
    )
    assert json.loads(out)["expired"] + json.loads(out)["archived"] > 0

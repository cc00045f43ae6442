"""`engram gc --now DAY` (a preview) names exactly what `engram gc --now DAY --yes` then does,
and a day's simulated noon does not make what was learned that afternoon old (issue 32: the
preview said every session fact of an old transcript ingested today expires; gc expired none)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cc_builder import SUMMARY, Session

from services.capture.sessions import ingest_session
from services.lifecycle.gc import run_gc


def _old_session(folder: Path) -> Path:
    s = Session("22222222-2222-4333-8444-000000000041")
    s.clock = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=40)
    s.user("We decided to keep the ledger in integer cents; never use floats for money.")
    s.compact(SUMMARY)
    s.say("Done. Totals are summed in cents.")
    return s.write(folder / "-home-dev-projects-shop")


def _acts(out: str) -> set[tuple]:
    rep = json.loads(out)
    return {(a["kind"], a["target"], a["fact_id"]) for a in rep["actions"]}


def test_preview_names_what_gc_then_does(cli, tmp_path):
    _old_session(tmp_path / "projects")
    assert cli("ingest-session", "--agent", "claude", str(tmp_path / "projects"))[0] == 0
    today = datetime.now(UTC).date()
    for day in (today, today + timedelta(days=45), today + timedelta(days=400)):
        rc, preview, err = cli("gc", "--agent", "claude", "--now", day.isoformat(), "--json")
        assert rc == 0, err
        rc, done, err = cli("gc", "--agent", "claude", "--now", day.isoformat(), "--json", "--yes")
        assert rc == 0, err
        assert _acts(preview) == _acts(done), day
        if day == today:  # learned today: nothing of it is old yet
            assert json.loads(done)["expired"] == json.loads(done)["archived"] == 0, done
    # 400 days on, the 30-day project facts have gone (the TTL still ends)
    rc, out, _ = cli("list", "--agent", "claude", "--status", "archived", "--json")
    assert any(f["category"] == "proj:shop" for f in json.loads(out))


def test_earlier_the_same_day_counts_from_the_ingest(keyword_engram, tmp_path):
    memory = keyword_engram.agent("claude", create=True, kind="claude-code")
    ingest_session(memory, _old_session(tmp_path))
    dawn = datetime.combine(datetime.now(UTC).date(), datetime.min.time()) + timedelta(seconds=1)
    preview = run_gc(memory, now=dawn, dry_run=True)
    assert preview.expired == preview.archived == preview.episodes_pruned == 0, preview.actions
    done = run_gc(memory, now=dawn)
    assert [a.to_json() for a in done.actions] == [a.to_json() for a in preview.actions]

"""Issue 37 moved the pipeline's writes of superseded and restated facts into services/store
(``fact_rows.mark_superseded``, ``fact_rows.refresh``); what ``engram show`` reports about such
a fact is unchanged. Real store through the CLI, in-process."""

from __future__ import annotations

import json


def _show(cli, fid: int) -> dict:
    rc, out, err = cli("show", str(fid), "--json")
    assert rc in (0, None), err
    return json.loads(out)


def test_a_superseded_fact_shows_its_successor_time_and_history(cli):
    cli("agent", "add", "claude")
    _, out, _ = cli("remember", "--agent", "claude", "Alice works at Google")
    old = int(out)
    _, out, err = cli("remember", "--agent", "claude", "Alice works at Meta")
    new = int(out)
    assert f"supersedes fact {old}" in err
    row = _show(cli, old)
    assert (row["status"], row["superseded_by"]) == ("superseded", new)
    assert row["content"] == "Alice works at Google"  # its history stays
    assert row["updated_at"] >= row["created_at"]
    last = row["history"][-1]
    assert last["action"] == "supersede"
    # the audit event's after-image is the row as stored
    assert last["after"]["status"] == "superseded"
    assert last["after"]["superseded_by"] == new
    assert _show(cli, new)["status"] == "active"


def test_a_fact_stated_again_is_refreshed_not_stored_twice(cli):
    cli("agent", "add", "claude")
    _, out, _ = cli("remember", "--agent", "claude", "Repo A uses Node 18")
    fid = int(out)
    before = _show(cli, fid)
    rc, out, _ = cli("remember", "--agent", "claude", "Repo A uses Node 18", "--json")
    assert json.loads(out)["status"] == "duplicate"
    after = _show(cli, fid)
    assert after["importance"] > before["importance"]
    assert after["status"] == "active" and after["updated_at"] >= before["updated_at"]
    assert after["content"] == before["content"]
    rc, out, _ = cli("list", "--agent", "claude", "--json")
    assert [f["id"] for f in json.loads(out)] == [fid]

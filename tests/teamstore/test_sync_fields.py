"""Issue 31, sync findings: a round carries every field a user can change, not only the text
(5), and a plain delete travels as a delete, never as a team-wide forget rule (4). Two
machines (two data dirs) sync with one real PostgreSQL through the CLI a user types."""

from __future__ import annotations

import json

from tests.cli_runs import engram_cli as _run
from tests.cli_runs import engram_ok as _ok

STANDUP = "The weekly standup is on Tuesdays at half past nine"
PARKING = "Visitors park in the north garage on level two"


def _fact(capsys, data, text: str) -> dict | None:
    out = _ok(capsys, data, "list", "--agent", "notes", "--json")
    got = [f for f in json.loads(out) if f["content"] == text]
    return got[0] if got else None


def _two_machines(own_server, tmp_path, monkeypatch, capsys, *texts):
    for var in ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ENGRAM_SYNC_URL", own_server.url("mine"))
    a, b = tmp_path / "laptop", tmp_path / "desktop"
    _ok(capsys, a, "agent", "add", "notes")
    for text in texts:
        _ok(capsys, a, "remember", "--agent", "notes", text)
    _ok(capsys, a, "sync")
    assert f"pulled {len(texts)}" in _ok(capsys, b, "sync")
    return a, b


def test_pin_tags_category_and_importance_reach_the_other_machine(
    own_server, tmp_path, monkeypatch, capsys
):
    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP, PARKING)
    fa = _fact(capsys, a, STANDUP)
    assert fa is not None and not fa["pinned"]
    _ok(capsys, a, "pin", str(fa["id"]))
    _ok(
        capsys, a, "edit", str(fa["id"]), "--importance", "0.9", "--tags", "team,meetings",
        "--category", "schedule",
    )  # fmt: skip
    out = _ok(capsys, a, "sync")
    assert "pushed 1" in out, out
    out = _ok(capsys, b, "sync")
    assert "pulled 1" in out, out
    fb = _fact(capsys, b, STANDUP)
    assert fb is not None
    assert fb["pinned"] is True
    assert fb["importance"] == 0.9
    assert sorted(fb["tags"]) == ["meetings", "team"]
    assert fb["category"] == "schedule"
    # and back the other way: an unpin on the desktop reaches the laptop
    _ok(capsys, b, "unpin", str(fb["id"]))
    assert "pushed 1" in _ok(capsys, b, "sync")
    assert "pulled 1" in _ok(capsys, a, "sync")
    assert _fact(capsys, a, STANDUP)["pinned"] is False
    # settled: nothing moves any more, nothing doubled
    for data in (a, b):
        assert "pushed 0, pulled 0" in _ok(capsys, data, "sync")
        out = _ok(capsys, data, "list", "--agent", "notes", "--json")
        assert sorted(f["content"] for f in json.loads(out)) == sorted([STANDUP, PARKING])


def test_a_plain_delete_syncs_as_a_delete_and_makes_no_forget_rule(
    own_server, tmp_path, monkeypatch, capsys
):
    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP, PARKING)
    fa = _fact(capsys, a, STANDUP)
    _ok(capsys, a, "delete", str(fa["id"]), "--yes")
    out_a = _ok(capsys, a, "sync")
    out_b = _ok(capsys, b, "sync")
    assert _fact(capsys, b, STANDUP) is None
    # not a forget: the desktop may write the sentence again (a forget rule would refuse it)
    rc, out, err = _run(capsys, b, "remember", "--agent", "notes", STANDUP)
    assert rc == 0, (out, err)
    assert _fact(capsys, b, STANDUP) is not None
    assert "deleted there 1" in out_a and "erased there 0" in out_a, out_a
    assert "deleted here 1" in out_b and "erased here 0" in out_b, out_b
    # and on the laptop the delete is undone (what the app's undo calls): the next sync
    # keeps it, no rule erases it again
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(StoreConfig(data_dir=a, semantic=False))
    try:
        mem = e.agent("notes")
        (ev,) = [x for x in mem.facts.history(fa["id"]) if x["action"] == "delete"]
        mem.restore(ev["before"])
    finally:
        e.close()
    for data in (a, b, a):
        rc, out, err = _run(capsys, data, "sync")
        assert rc == 0 and "blocked 0" in out, (out, err)
    assert _fact(capsys, a, STANDUP) is not None
    # the server holds no forget rule
    con = own_server.admin("mine")
    with con.cursor() as cur:
        cur.execute("SELECT count(*) FROM forget_rule")
        assert cur.fetchone()[0] == 0
    con.close()


DIARY = "My salary review with Priya is on the third of June"
BOBS_DIARY = "Bob's dentist appointment is on the fourth of March"
BOBS_TEAM = "The design review moves to the small meeting room"


def test_a_local_agent_named_like_another_members_private_agent_syncs_under_a_new_name(
    members, team_store, tmp_path, monkeypatch, capsys
):
    """Alice keeps a private agent "diary" in the team store; Bob's machine has an agent
    "diary" of its own. Bob's sync pushes it under "diary-bob", says so, and the rest of
    Bob's memory syncs too (before: one duplicate-key error and nothing of Bob synced)."""
    from services import NewFact
    from services.config import StoreConfig
    from services.engram import Engram

    alice = Engram.open(
        StoreConfig(data_dir=tmp_path / "alice", db_url=members("alice"), semantic=False)
    )
    try:
        alice.agent("diary", create=True)
        alice.set_visibility("diary", "private")
        alice.agent("diary").remember_many([NewFact(DIARY)])
    finally:
        alice.close()
    for var in ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ENGRAM_SYNC_URL", members("bob"))
    bob = tmp_path / "bob"
    for slug, text in (("diary", BOBS_DIARY), ("team", BOBS_TEAM)):
        _ok(capsys, bob, "agent", "add", slug)
        _ok(capsys, bob, "remember", "--agent", slug, text)
    rc, out, err = _run(capsys, bob, "sync")
    assert rc == 0, (out, err)
    assert "pushed 2" in out, out
    assert "diary-bob" in out, out  # the notice: where Bob's diary went on the server
    # on the server, as the admin: Bob's two facts, Alice's diary untouched
    import psycopg2

    con = psycopg2.connect(team_store.db_url)
    with con.cursor() as cur:
        cur.execute(
            "SELECT a.slug, f.content FROM fact f JOIN agent a ON a.id = f.agent_id "
            "ORDER BY a.slug, f.content"
        )
        assert cur.fetchall() == [("diary", DIARY), ("diary-bob", BOBS_DIARY), ("team", BOBS_TEAM)]
    con.close()
    # the local agent keeps its name; a second round moves nothing and doubles nothing
    out = _ok(capsys, bob, "list", "--agent", "diary", "--json")
    assert [f["content"] for f in json.loads(out)] == [BOBS_DIARY]
    out = _ok(capsys, bob, "sync")
    assert "pushed 0, pulled 0" in out, out
    # a new fact in the local diary follows to the renamed agent
    _ok(capsys, bob, "remember", "--agent", "diary", "Bob renews his passport in April")
    assert "pushed 1" in _ok(capsys, bob, "sync")
    con = psycopg2.connect(team_store.db_url)
    with con.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM fact f JOIN agent a ON a.id = f.agent_id "
            "WHERE a.slug = 'diary-bob'"
        )
        assert cur.fetchone()[0] == 2
    con.close()


def test_an_archive_by_gc_and_a_restore_reach_the_other_machine(
    own_server, tmp_path, monkeypatch, capsys
):
    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, PARKING)
    out = _ok(capsys, a, "gc", "--agent", "notes", "--now", "2031-01-01", "--yes")
    assert "1 expired" in out, out  # a fact's shelf life ran out: archived, not gone
    assert "pushed 1" in _ok(capsys, a, "sync")
    assert "pulled 1" in _ok(capsys, b, "sync")
    fb = _fact(capsys, b, PARKING)
    assert fb is not None and fb["status"] == "archived"
    _ok(capsys, b, "restore", str(fb["id"]))
    assert "pushed 1" in _ok(capsys, b, "sync")
    assert "pulled 1" in _ok(capsys, a, "sync")
    assert _fact(capsys, a, PARKING)["status"] == "active"


def test_a_store_that_synced_before_the_fields_travelled_pushes_nothing_again(
    own_server, tmp_path, monkeypatch, capsys
):
    """Its sync map holds content hashes (what an earlier Engram agreed on): the first round
    after the upgrade takes them as agreed, it does not push every fact once more."""
    import sqlite3

    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP, PARKING)
    con = sqlite3.connect(a / "engram.db")
    con.execute(
        "UPDATE sync_map SET synced_hash = "
        "(SELECT content_hash FROM fact WHERE fact.id = sync_map.local_id)"
    )
    con.commit()
    con.close()
    assert "pushed 0, pulled 0" in _ok(capsys, a, "sync")
    # and a pin after it still travels
    _ok(capsys, a, "pin", str(_fact(capsys, a, PARKING)["id"]))
    assert "pushed 1" in _ok(capsys, a, "sync")
    assert "pulled 1" in _ok(capsys, b, "sync")
    assert _fact(capsys, b, PARKING)["pinned"] is True

"""Offline first: two machines (two data dirs) keep their local stores and sync them with one
PostgreSQL. Written on both while the server is stopped, then synced: every write is on both,
nothing twice, a forget done offline on one is erased on the other (and on the server), and
`verify` agrees on both. Driven through the CLI a user types."""

from __future__ import annotations

import json

from tests.cli_runs import engram_cli as _run

SHARED = "The Halcyon project demo is on the twelfth of May"
LAPTOP = [
    "Grandma's birthday dinner is booked at the Lotus restaurant",
    "The car needs new winter tyres before November",
    "Bought a second-hand cello from the music shop on Elm Street",
]
DESKTOP = [
    "The office printer on floor three jams with recycled paper",
    "Quarterly tax forms are due at the end of January",
    "Kubernetes upgrades go through the staging cluster first",
]


def _facts(capsys, data, slug="notes"):
    rc, out, err = _run(capsys, data, "list", "--agent", slug, "--json", "--status", "active")
    assert rc == 0, err
    return sorted(f["content"] for f in json.loads(out))


def test_two_machines_write_offline_then_sync_every_write_once_and_a_forget_erases_on_both(
    own_server, tmp_path, monkeypatch, capsys
):
    for var in ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ENGRAM_SYNC_URL", own_server.url("mine"))
    a, b = tmp_path / "laptop", tmp_path / "desktop"
    assert _run(capsys, a, "agent", "add", "notes")[0] == 0
    rc, out, err = _run(capsys, a, "remember", "--agent", "notes", SHARED, "--json")
    shared_id = json.loads(out)["id"]
    assert _run(capsys, a, "sync")[0] == 0
    rc, out, err = _run(capsys, b, "sync")
    assert rc == 0 and "pulled 1" in out, (out, err)
    assert _facts(capsys, b) == [SHARED]

    own_server.pause()  # both machines offline
    for la, de in zip(LAPTOP, DESKTOP):
        assert _run(capsys, a, "remember", "--agent", "notes", la)[0] == 0
        assert _run(capsys, b, "remember", "--agent", "notes", de)[0] == 0
    rc, out, err = _run(capsys, a, "forget", "--agent", "notes", "--fact", str(shared_id), "--yes")
    assert rc == 0, err
    rc, out, err = _run(capsys, a, "sync", "--status", "--json")
    st = json.loads(out)
    assert st["pending"] == {"erase": 1, "upsert": 3}, st
    rc, out, err = _run(capsys, a, "sync")
    assert rc == 3 and out.startswith("offline: refused"), (out, err)
    assert _facts(capsys, a) == sorted(LAPTOP)  # works offline

    own_server.resume()
    for data in (a, b, a):
        rc, out, err = _run(capsys, data, "sync")
        assert rc == 0, (out, err)
    rc, out, _ = _run(capsys, a, "sync", "--status", "--json")
    assert json.loads(out)["pending"] == {}
    both = sorted(LAPTOP + DESKTOP)
    assert _facts(capsys, a) == both
    assert _facts(capsys, b) == both  # the forgotten fact went from the desktop too
    # once more: nothing moves, nothing doubles
    for data in (a, b):
        rc, out, _ = _run(capsys, data, "sync")
        assert "pushed 0, pulled 0" in out, out
    assert _facts(capsys, b) == both
    for data in (a, b):
        rc, out, err = _run(capsys, data, "verify")
        assert rc == 0, (out, err)
        rc, out, err = _run(capsys, data, "forget", "--verify", SHARED)
        assert rc == 0, (out, err)
    # and the server holds it no more
    con = own_server.admin("mine")
    with con.cursor() as cur:
        cur.execute("SELECT count(*) FROM fact WHERE content LIKE %s", ("%Halcyon%",))
        assert cur.fetchone()[0] == 0
        cur.execute("SELECT count(*) FROM fact")
        assert cur.fetchone()[0] == 6
    con.close()


def test_an_edit_made_on_both_machines_keeps_the_first_and_puts_the_other_in_review(
    own_server, tmp_path, monkeypatch, capsys
):
    """Issue 31 finding 11: the later push no longer wins silently (was: last push wins,
    `conflicts 0`); it waits in review on both machines and those rounds exit 4."""
    for var in ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ENGRAM_SYNC_URL", own_server.url("mine"))
    a, b = tmp_path / "laptop", tmp_path / "desktop"
    assert _run(capsys, a, "agent", "add", "notes")[0] == 0
    rc, out, _ = _run(capsys, a, "remember", "--agent", "notes", "Standup is at 9:30", "--json")
    fa = json.loads(out)["id"]
    _run(capsys, a, "sync")
    _run(capsys, b, "sync")
    rc, out, _ = _run(capsys, b, "list", "--agent", "notes", "--json")
    fb = json.loads(out)[0]["id"]
    own_server.pause()
    assert _run(capsys, a, "edit", str(fa), "--content", "Standup moved to 10:00")[0] == 0
    assert _run(capsys, b, "edit", str(fb), "--content", "Standup moved to 9:45")[0] == 0
    own_server.resume()
    for data, code in ((a, 0), (b, 4), (a, 4)):
        rc, out, err = _run(capsys, data, "sync")
        assert rc == code, (out, err)
    # the first push is the shared memory on every machine; nothing doubled
    assert _facts(capsys, a) == _facts(capsys, b) == ["Standup moved to 10:00"]
    # the desktop's wording is not lost: it waits in review on both machines
    for data in (a, b):
        rc, out, _ = _run(capsys, data, "review", "--agent", "notes", "--json")
        assert [it["fact"]["content"] for it in json.loads(out)] == ["Standup moved to 9:45"]


def test_a_push_whose_answer_was_lost_is_applied_once(own_server, tmp_path, monkeypatch, capsys):
    """The round dies after the server applied the pushes and before this machine heard back
    (a crash, a dropped connection): the next round sends the same (client, sequence) again
    and the server applies each once."""
    from services.teamsync import engine

    for var in ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ENGRAM_SYNC_URL", own_server.url("mine"))
    a = tmp_path / "laptop"
    assert _run(capsys, a, "agent", "add", "notes")[0] == 0
    for text in LAPTOP:
        assert _run(capsys, a, "remember", "--agent", "notes", text)[0] == 0

    def lost(*args, **kwargs):
        raise ConnectionResetError("the answer never arrived")

    monkeypatch.setattr(engine, "_settle", lost)
    rc, out, err = _run(capsys, a, "sync")
    assert rc == 1 and "the answer never arrived" in err
    monkeypatch.undo()
    monkeypatch.setenv("ENGRAM_SYNC_URL", own_server.url("mine"))
    rc, out, _ = _run(capsys, a, "sync", "--status", "--json")
    assert json.loads(out)["pending"] == {"upsert": 3}  # still queued here
    rc, out, err = _run(capsys, a, "sync")
    assert rc == 0, (out, err)
    con = own_server.admin("mine")
    with con.cursor() as cur:
        cur.execute("SELECT content, count(*) FROM fact GROUP BY content ORDER BY content")
        assert cur.fetchall() == [(t, 1) for t in sorted(LAPTOP)]
        cur.execute("SELECT count(*) FROM sync_push")
        assert cur.fetchone()[0] == 3
    con.close()
    rc, out, _ = _run(capsys, a, "sync", "--status", "--json")
    assert json.loads(out)["pending"] == {}

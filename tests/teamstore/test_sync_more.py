"""Issue 31, remaining sync findings. Two machines (two data dirs) sync with one real
PostgreSQL through the CLI a user types: a field edited on the server itself reaches the
machines (the change log watches every carried field), a text edited on both machines waits
in review on both (11), and ``engram serve`` syncs like the app (12)."""

from __future__ import annotations

import json

from tests.teamstore.test_sync_fields import _fact, _ok, _run, _two_machines

STANDUP = "The weekly standup is on Tuesdays at half past nine"
PARKING = "Visitors park in the north garage on level two"


def test_a_field_edited_on_the_server_by_sql_reaches_the_machines(
    own_server, tmp_path, monkeypatch, capsys
):
    """A DBA pins a fact and retags it with plain SQL on the server: the change log (a
    trigger, schema v13) logs it, so the next round carries it to both machines."""
    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP, PARKING)
    con = own_server.admin("mine")
    con.autocommit = True
    with con.cursor() as cur:
        cur.execute(
            "UPDATE fact SET pinned = true, importance = 0.95, category = 'schedule', "
            "tags = '[\"ops\"]' WHERE content = %s",
            (STANDUP,),
        )
        assert cur.rowcount == 1
    con.close()
    for data in (a, b):
        out = _ok(capsys, data, "sync")
        assert "pulled 1" in out, out
        f = _fact(capsys, data, STANDUP)
        assert f["pinned"] is True and f["importance"] == 0.95, f
        assert f["category"] == "schedule" and f["tags"] == ["ops"], f
    # the other fact did not move, and a second round moves nothing
    assert _fact(capsys, a, PARKING)["pinned"] is False
    for data in (a, b):
        assert "pushed 0, pulled 0" in _ok(capsys, data, "sync")


LAPTOP_WORDS = "The weekly standup is on Wednesdays at half past nine"
DESKTOP_WORDS = "The weekly standup is on Tuesdays at ten"


def _waiting(capsys, data) -> list[tuple[str, str]]:
    out = _ok(capsys, data, "review", "--agent", "notes", "--json")
    return [(it["reason"], it["fact"]["content"]) for it in json.loads(out)]


def test_a_text_edited_on_two_machines_waits_in_review_on_both(
    own_server, tmp_path, monkeypatch, capsys
):
    """Both machines change the same sentence since they last agreed: the first push is the
    shared text; the second is not silently overwritten (before: `conflicts 0`, last push
    wins) but waits in the review inbox on both machines, and `sync` exits 4."""
    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP, PARKING)
    _ok(capsys, a, "edit", str(_fact(capsys, a, STANDUP)["id"]), "--content", LAPTOP_WORDS)
    _ok(capsys, b, "edit", str(_fact(capsys, b, STANDUP)["id"]), "--content", DESKTOP_WORDS)
    out = _ok(capsys, a, "sync")
    assert "pushed 1" in out and "conflicts 0" in out, out
    rc, out, err = _run(capsys, b, "sync")
    assert rc == 4, (out, err)
    assert "conflicts 1" in out, out
    rc, out, err = _run(capsys, a, "sync")
    assert rc == 4 and "conflicts 1" in out, (out, err)
    # both machines: the laptop's words are the shared memory, the desktop's wait in review
    for data in (a, b):
        assert _fact(capsys, data, LAPTOP_WORDS)["status"] == "active"
        assert _waiting(capsys, data) == [("conflict", DESKTOP_WORDS)]
    # the server holds both wordings too: nothing lost, nothing shared twice
    con = own_server.admin("mine")
    with con.cursor() as cur:
        cur.execute("SELECT content, status FROM fact ORDER BY content")
        assert cur.fetchall() == [
            (DESKTOP_WORDS, "pending"), (LAPTOP_WORDS, "active"), (PARKING, "active"),
        ]  # fmt: skip
    con.close()
    # settled: the next rounds move nothing and report no conflict again
    for data in (a, b):
        rc, out, err = _run(capsys, data, "sync")
        assert rc == 0 and "pushed 0, pulled 0" in out and "conflicts 0" in out, (out, err)

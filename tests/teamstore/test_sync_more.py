"""Issue 31, remaining sync findings. Two machines (two data dirs) sync with one real
PostgreSQL through the CLI a user types: a field edited on the server itself reaches the
machines (the change log watches every carried field), a text edited on both machines waits
in review on both (11), and ``engram serve`` syncs like the app (12)."""

from __future__ import annotations

from tests.teamstore.test_sync_fields import _fact, _ok, _two_machines

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

"""Issue 31, false conflicts: the state two machines agreed on is one hash over every carried
field, so a change of fields on one machine while the other did nothing is taken, never
reported as a conflict, and a text edit on one machine with a pin on the other keeps both.
Two machines (two data dirs), one real PostgreSQL, the CLI a user types."""

from __future__ import annotations

from tests.teamstore.test_sync_fields import _fact, _ok, _run, _two_machines

STANDUP = "The weekly standup is on Tuesdays at half past nine"
PARKING = "Visitors park in the north garage on level two"
NEW_WORDS = "The weekly standup is on Wednesdays at half past nine"


def _round(capsys, data) -> str:
    rc, out, err = _run(capsys, data, "sync")
    assert rc == 0 and "conflicts 0" in out, (rc, out, err)
    return out


def test_a_pin_on_one_machine_and_nothing_on_the_other_is_no_conflict(
    own_server, tmp_path, monkeypatch, capsys
):
    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP, PARKING)
    _ok(capsys, a, "pin", str(_fact(capsys, a, STANDUP)["id"]))
    assert "pushed 1" in _round(capsys, a)
    # the desktop did nothing: it takes the pin, pushes nothing back, waits for nothing
    out = _round(capsys, b)
    assert "pushed 0, pulled 1" in out, out
    assert _fact(capsys, b, STANDUP)["pinned"] is True
    assert _ok(capsys, b, "review", "--agent", "notes", "--json").strip() == "[]"
    for data in (a, b):
        assert "pushed 0, pulled 0" in _round(capsys, data)
        assert _fact(capsys, data, STANDUP)["pinned"] is True


def test_a_pin_on_one_machine_and_an_edit_on_the_other_keeps_both(
    own_server, tmp_path, monkeypatch, capsys
):
    """Before: the desktop's new wording waited in review as a conflict, and had it gone
    through, its unpinned copy would have unpinned the laptop's pin."""
    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP, PARKING)
    _ok(capsys, a, "pin", str(_fact(capsys, a, STANDUP)["id"]))
    _ok(capsys, b, "edit", str(_fact(capsys, b, STANDUP)["id"]), "--content", NEW_WORDS)
    _ok(capsys, b, "edit", str(_fact(capsys, b, PARKING)["id"]), "--tags", "visitors")
    _ok(capsys, a, "edit", str(_fact(capsys, a, PARKING)["id"]), "--importance", "0.9")
    assert "pushed 2" in _round(capsys, a)
    assert "pushed 2" in _round(capsys, b)
    _round(capsys, a)
    for data in (a, b):
        f = _fact(capsys, data, NEW_WORDS)
        assert f is not None and f["pinned"] is True, (data, f)
        assert _fact(capsys, data, STANDUP) is None, data
        p = _fact(capsys, data, PARKING)
        assert p["tags"] == ["visitors"] and p["importance"] == 0.9, (data, p)
        assert _ok(capsys, data, "review", "--agent", "notes", "--json").strip() == "[]"
    for data in (a, b):
        assert "pushed 0, pulled 0" in _round(capsys, data)

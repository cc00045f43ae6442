"""Issue 31, remaining sync findings. Two machines (two data dirs) sync with one real
PostgreSQL through the CLI a user types: a field edited on the server itself reaches the
machines (the change log watches every carried field), a text edited on both machines waits
in review on both (11), and ``engram serve`` syncs like the app (12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

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


def _poll_facts(data, env, want: str) -> list[str]:
    """The agent's texts as the CLI lists them, once ``want`` is among them (at most 90 s:
    the served store syncs in a child process, on a busy machine)."""
    deadline = time.monotonic() + 90
    while True:
        r = subprocess.run(
            [sys.executable, "-m", "app.cli", "--data-dir", str(data), "list", "--agent",
             "notes", "--json"],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        texts = [f["content"] for f in json.loads(r.stdout)] if r.returncode == 0 else []
        if want in texts or time.monotonic() > deadline:
            return texts
        time.sleep(0.5)


def test_engram_serve_syncs_at_start_and_every_few_minutes(
    own_server, tmp_path, monkeypatch, capsys
):
    """Finding 12: a served store (`engram serve`, no app) keeps in step with the team
    store: what the laptop wrote while the desktop was off arrives with the first round;
    what it writes later, with the next one, and the desktop's own writes go out too."""
    import app

    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP)
    _ok(capsys, a, "remember", "--agent", "notes", PARKING)
    _ok(capsys, a, "sync")
    root = Path(app.__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k not in ("ENGRAM_NO_DAEMON", "ENGRAM_SYNC_URL")}
    env.update(PYTHONPATH=str(root), ANONYMIZED_TELEMETRY="False")
    # rounds every 3 s so the test need not wait minutes
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "--data-dir", str(b), "serve", "--keyword",
         "--sync-every", "0.05"],
        env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert PARKING in _poll_facts(b, env, PARKING)  # the round at start
        later = "The coffee machine on floor three is fixed"
        _ok(capsys, a, "remember", "--agent", "notes", later)
        _ok(capsys, a, "sync")
        assert later in _poll_facts(b, env, later)  # a round after it
        # the desktop's own write (through the served store) goes out with a round too
        mine = "The desk booking opens on Fridays at noon"
        r = subprocess.run(
            [sys.executable, "-m", "app.cli", "--data-dir", str(b), "remember", "--agent",
             "notes", mine],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        monkeypatch.setenv("ENGRAM_SYNC_URL", own_server.url("mine"))
        for _ in range(60):
            _ok(capsys, a, "sync")
            if _fact(capsys, a, mine) is not None:
                break
            time.sleep(1)
        assert _fact(capsys, a, mine) is not None
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert "engram: sync: pushed" in err, err

"""A copied data dir is a new sync client (issue #30, finding 5): ``cp -a`` of a store that
syncs, then writes on both copies, then sync from both: every write reaches the server once,
a third machine gets them all, and both copies keep syncing. Before, the copy pushed under the
original's client id and sequence numbers: the server took its pushes for the original's,
already applied ("pushed 1", nothing there), and both gave their new facts the same uid.
Driven through the CLI a user types, on a real PostgreSQL (the session's server)."""

from __future__ import annotations

import itertools
import json
import shutil

import pytest

from tests.cli_runs import engram_ok as _ok

_serial = itertools.count()
BEFORE = "The Halcyon project demo is on the twelfth of May"
ON_A = "The car needs new winter tyres before November"
ON_B = "Quarterly tax forms are due at the end of January"
LATER_A = "The office printer on floor three jams with recycled paper"


@pytest.fixture
def sync_url(pg_server, monkeypatch):
    name = f"ident_sync{next(_serial)}"
    con = pg_server.admin()
    with con.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name}")
    for var in ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ENGRAM_SYNC_URL", pg_server.url(name))
    yield pg_server.url(name)
    with con.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    con.close()


def _facts(capsys, data) -> list[str]:
    out = _ok(capsys, data, "list", "--agent", "notes", "--json", "--status", "active")
    return sorted(f["content"] for f in json.loads(out))


@pytest.mark.parametrize("copied", ["data dir", "engram.db alone"])
def test_a_copied_data_dir_syncs_as_its_own_client(sync_url, tmp_path, capsys, copied):
    a, b, c = tmp_path / "laptop", tmp_path / "laptop-copy", tmp_path / "desktop"
    _ok(capsys, a, "agent", "add", "notes")
    _ok(capsys, a, "remember", "--agent", "notes", BEFORE)
    assert "pushed 1" in _ok(capsys, a, "sync")

    if copied == "data dir":
        shutil.copytree(a, b, symlinks=True)  # cp -a: contents, times, modes
    else:  # the database file to another folder, without the marker beside it
        b.mkdir()
        shutil.copy2(a / "engram.db", b / "engram.db")
    _ok(capsys, a, "remember", "--agent", "notes", ON_A)
    assert "pushed 1" in _ok(capsys, a, "sync")
    _ok(capsys, b, "remember", "--agent", "notes", ON_B)
    out = _ok(capsys, b, "sync")
    assert "pushed 1" in out and "pulled 1" in out, out  # B's fact up, A's new fact down
    st = json.loads(_ok(capsys, b, "sync", "--status", "--json"))
    assert st["pending"] == {}
    a_id = json.loads(_ok(capsys, a, "sync", "--status", "--json"))["client_id"]
    assert st["client_id"] != a_id  # the copy is a client of its own

    every = sorted([BEFORE, ON_A, ON_B])
    _ok(capsys, c, "sync")  # a second machine gets everything, once
    assert _facts(capsys, c) == every
    assert _facts(capsys, b) == every

    # the original still syncs, both ways
    _ok(capsys, a, "remember", "--agent", "notes", LATER_A)
    out = _ok(capsys, a, "sync")
    assert "pushed 1" in out and "pulled 1" in out, out
    assert _facts(capsys, a) == sorted(every + [LATER_A])
    for data in (b, c):
        _ok(capsys, data, "sync")
        assert _facts(capsys, data) == sorted(every + [LATER_A])
    for data in (a, b, c):  # nothing left to move, nothing doubled
        assert "pushed 0, pulled 0" in _ok(capsys, data, "sync")


def test_a_restored_older_database_syncs_as_a_new_client(sync_url, tmp_path, capsys):
    """``cp engram.db.bak engram.db`` (the "store is damaged" advice): the file is older than
    what the server has from this store; its queue restarts at sequence numbers the server
    already holds from the newer file. It must push as a client of its own."""
    a, c = tmp_path / "laptop", tmp_path / "desktop"
    _ok(capsys, a, "agent", "add", "notes")
    _ok(capsys, a, "remember", "--agent", "notes", BEFORE)
    assert "pushed 1" in _ok(capsys, a, "sync")
    backup = tmp_path / "engram.db.bak"
    shutil.copy2(a / "engram.db", backup)

    _ok(capsys, a, "remember", "--agent", "notes", ON_A)
    assert "pushed 1" in _ok(capsys, a, "sync")
    for p in (a / "engram.db-wal", a / "engram.db-shm"):
        p.unlink(missing_ok=True)
    shutil.copy(backup, a / "engram.db")  # in place: same path, same inode

    _ok(capsys, a, "remember", "--agent", "notes", ON_B)
    out = _ok(capsys, a, "sync")
    assert "pushed 1" in out and "pulled 1" in out, out  # its new fact up, the lost one back
    every = sorted([BEFORE, ON_A, ON_B])
    assert _facts(capsys, a) == every
    _ok(capsys, c, "sync")
    assert _facts(capsys, c) == every
    for data in (a, c):
        assert "pushed 0, pulled 0" in _ok(capsys, data, "sync")


def test_an_archive_imported_beside_its_agent_syncs_both_once(sync_url, tmp_path, capsys):
    """``archive import --agent copy`` puts an agent's facts in the store a second time, uids
    and all: each copy is still a shared fact of its own, pushed once, and the rounds after
    move nothing (no two local facts under one shared uid, swapping back and forth)."""
    a, c = tmp_path / "laptop", tmp_path / "desktop"
    _ok(capsys, a, "agent", "add", "notes")
    _ok(capsys, a, "remember", "--agent", "notes", BEFORE)
    _ok(capsys, a, "archive", "export", "--agent", "notes", str(tmp_path / "notes.jsonl"))
    _ok(capsys, a, "archive", "import", "--agent", "notes-copy", str(tmp_path / "notes.jsonl"))
    assert "pushed 2" in _ok(capsys, a, "sync")
    for _ in range(2):
        assert "pushed 0, pulled 0" in _ok(capsys, a, "sync")
    _ok(capsys, c, "sync")
    for slug in ("notes", "notes-copy"):
        out = _ok(capsys, c, "list", "--agent", slug, "--json")
        assert [f["content"] for f in json.loads(out)] == [BEFORE], slug

"""Write-back never removes a user's text on doubt: only a fact Engram confirms is gone takes
its block out of the agent's file. A locked database, a store that raises, a read-only file:
each leaves every byte of the file as it was and says so."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import peewee
import pytest

from services.interop.writeback import write_back
from services.store.facts import FactFilters
from tests.file_tree import folder_files as _snapshot

NATIVE = Path(__file__).resolve().parents[1] / "importers" / "fixtures" / "native"


@pytest.fixture
def imported(keyword_engram, tmp_path):
    mem = keyword_engram.agent("cc", create=True, kind="claude-code")
    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    mem.import_path(folder)
    return mem, folder


def _delete_all_but_one(mem) -> int:
    facts = mem.list(FactFilters(status="active"))
    mem.delete([f.id for f in facts[1:]])
    return len(facts) - 1


def test_a_raising_store_removes_nothing(imported, monkeypatch):
    mem, folder = imported
    before = _snapshot(folder)
    assert _delete_all_but_one(mem) >= 5

    def broken(fid):  # the store failing for a reason other than "no such fact"
        raise peewee.OperationalError("disk I/O error")

    monkeypatch.setattr(mem, "get", broken)
    rep = write_back(mem)
    assert rep.pushed == 0 and rep.files == []
    assert rep.conflicts and all("left untouched" in c.reason for c in rep.conflicts)
    assert _snapshot(folder) == before

    # once the store answers again, the confirmed deletions do reach the files
    monkeypatch.undo()
    rep = write_back(mem)
    assert rep.conflicts == [] and rep.pushed >= 5
    assert _snapshot(folder) != before


def test_a_locked_database_removes_nothing(imported, keyword_engram, tmp_path):
    mem, folder = imported
    before = _snapshot(folder)
    _delete_all_but_one(mem)
    db = getattr(keyword_engram.db, "obj", keyword_engram.db)
    db.close()
    db._pragmas = [("busy_timeout", 200), *[p for p in db._pragmas if p[0] != "busy_timeout"]]
    lock = sqlite3.connect(str(keyword_engram.config.data_dir / "engram.db"), isolation_level=None)
    try:
        lock.execute("PRAGMA locking_mode=EXCLUSIVE")
        lock.execute("BEGIN EXCLUSIVE")
        rep = write_back(mem)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert rep.pushed == 0
    assert rep.conflicts and "locked" in rep.conflicts[0].reason
    assert _snapshot(folder) == before


def test_a_read_only_file_is_reported_not_rewritten(imported, cli):
    mem, folder = imported
    topic = folder / "project_release.md"
    fact = next(
        f for f in mem.list(FactFilters(status="active")) if f.content.startswith("The release")
    )
    mem.delete([fact.id])
    topic.chmod(0o444)
    before = topic.read_bytes()
    try:
        rep = write_back(mem)
    finally:
        topic.chmod(0o644)
    assert topic.read_bytes() == before
    assert any(c.file == str(topic) and "read-only" in c.reason for c in rep.conflicts)


def test_a_reimport_archives_only_statements_the_file_no_longer_holds(imported, monkeypatch):
    """A re-import whose store answers without fact ids (it failed to say what it kept)
    must not read every statement as "removed from the file"."""
    from services.records import RememberResult

    mem, folder = imported
    active = {f.id for f in mem.list(FactFilters(status="active"))}
    real = type(mem).remember_many

    def no_ids(self, items, **kw):
        real(self, items, **kw)
        return [RememberResult("error", None, reason="store did not answer") for _ in items]

    monkeypatch.setattr(type(mem), "remember_many", no_ids)
    rep = mem.import_path(folder)
    assert rep.archived == 0
    assert {f.id for f in mem.list(FactFilters(status="active"))} == active

    # a statement really taken out of the file is archived, and only that one
    monkeypatch.undo()
    topic = folder / "project_release.md"
    topic.write_text(
        topic.read_text().replace(
            "- The release manager rotates weekly; the schedule is in the team calendar.\n", ""
        )
    )
    rep = mem.import_path(folder)
    assert rep.archived == 1
    assert len(active) - len({f.id for f in mem.list(FactFilters(status="active"))}) == 1

"""A forget that lands while another process or thread is recompiling the same agent.

CI once caught it through an agent's hook: the hook's `engram remember` recompiles the agent
when the command ends, and its compile read the facts just before the user's forget deleted
them, then wrote its layers (rows and ``memory.md``) just after. The receipt said four places
still held the forgotten name. These tests stop the compile between reading and writing, run
the whole forget there, and check the layer rows and the files on disk afterwards."""

from __future__ import annotations

import threading

import pytest

from services.config import StoreConfig
from services.engram import Engram
from services.forget.service import ForgetScope, ForgetService
from services.ingest.pipeline import NewFact
from services.lifecycle import compile as compile_mod

NAME = "Wolfgang Quibble"
pytestmark = pytest.mark.slow  # threads held at a point, full forgets: the whole suite runs them


def _store(tmp_path):
    e = Engram.open(StoreConfig(data_dir=tmp_path / "store"))
    m = e.agent("w", create=True)
    m.remember_many(
        [
            NewFact(content=f"Pager rota {i}: {NAME} covers week {i}", subject=f"r{i}")
            for i in range(6)
        ]
        + [NewFact(content=f"Kitchen note {i}: buy {i} lemons", subject=f"k{i}") for i in range(6)],
        near_duplicate=None,
    )
    return e, m


def _paused_compile(monkeypatch, e):
    """A follow-changes recompile (what the CLI runs when a hook's command ends) that stops
    after it has built the layers and before it writes them."""
    built, go = threading.Event(), threading.Event()
    real = compile_mod.CompileService._warn_unfit_pinned
    first = [True]

    def pause(self, prov, result):
        if first[0] and threading.current_thread().name == "hook-compile":
            first[0] = False
            built.set()
            assert go.wait(120), "the test never let the compile go on"
        return real(self, prov, result)

    monkeypatch.setattr(compile_mod.CompileService, "_warn_unfit_pinned", pause)
    rec = e.follow_changes("sync")
    rec._dirty[e.agent("w").agent_id] = 0.0  # as if the hook's own write had just landed
    errors: list[BaseException] = []

    def run():
        try:
            rec.flush()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            e.db.close()

    t = threading.Thread(target=run, name="hook-compile")
    t.start()
    assert built.wait(60), "the compile never built its layers"
    return t, go, errors


def test_a_compile_that_read_before_a_forget_does_not_write_the_forgotten_text_back(
    tmp_path, monkeypatch
):
    e, m = _store(tmp_path)
    try:
        t, go, errors = _paused_compile(monkeypatch, e)
        receipt = ForgetService(e).execute(ForgetScope(agent="w", matching=NAME))
        go.set()
        t.join(60)
        assert not t.is_alive() and not errors, errors
        assert receipt["counts"]["facts"] == 6
        assert ForgetService(e).verify([NAME]).ok, ForgetService(e).verify([NAME])
        memory_md = (tmp_path / "store" / "agents" / "w" / "memory.md").read_bytes()
        assert NAME.encode() not in memory_md
        assert b"buy 3 lemons" in memory_md  # the compile still wrote the layers it owed
    finally:
        e.close()


def test_a_fact_the_user_deletes_while_a_hook_recompiles_is_not_written_back(tmp_path, monkeypatch):
    e, m = _store(tmp_path)
    try:
        gone = next(f for f in m.list() if "buy 4 lemons" in f.content)
        t, go, errors = _paused_compile(monkeypatch, e)
        m.delete([gone.id])  # the app's Delete key, while the hook's compile has read
        go.set()
        t.join(60)
        assert not t.is_alive() and not errors, errors
        memory_md = (tmp_path / "store" / "agents" / "w" / "memory.md").read_text("utf-8")
        assert "buy 4 lemons" not in memory_md
        assert "buy 3 lemons" in memory_md
    finally:
        e.close()


def test_layers_a_compile_wrote_after_the_preview_are_forgotten_too(tmp_path, monkeypatch):
    """The other order: the hook's compile reads *and* writes between the forget's preview
    (which listed the layers to delete) and its purge of the rows."""
    from services.forget import execute
    from services.lifecycle.compile import CompileService

    e, m = _store(tmp_path)
    try:
        real = execute.delete_rows

        def compile_then_purge(*args, **kw):
            def hook():
                try:
                    CompileService(e.agent("w")).compile(rewrite=False, export=False)
                finally:
                    e.db.close()

            t = threading.Thread(target=hook)
            t.start()
            t.join(60)
            return real(*args, **kw)

        monkeypatch.setattr(execute, "delete_rows", compile_then_purge)
        receipt = ForgetService(e).execute(ForgetScope(agent="w", matching=NAME))
        assert receipt["counts"]["remaining_after_verify"] == 0, receipt["notes"]
        assert ForgetService(e).verify([NAME]).ok
        agent_dir = tmp_path / "store" / "agents" / "w"
        for name in ("today", "week", "longterm", "memory"):
            assert NAME.encode() not in (agent_dir / f"{name}.md").read_bytes()
        assert b"buy 3 lemons" in (agent_dir / "memory.md").read_bytes()
    finally:
        e.close()


def test_a_workspace_sync_during_a_forget_does_not_bring_the_entry_back(store, monkeypatch):
    """The app's workspace watcher (or `engram sync --agent`) runs while a forget is between
    editing the workspace's MEMORY.md and deleting the rows: the entry must not come back,
    and the agent's other entries and facts must stay as they were."""
    from forget_data import MEMORY_MD, ONE_FACT

    from services.forget import execute
    from services.interop.sync import sync_workspace

    a = store.agent("alice")
    memory_md = store.root / "ws_alice" / "memories" / "MEMORY.md"
    assert ONE_FACT in memory_md.read_text("utf-8")
    others_before = {f.content for f in a.list() if f.content != ONE_FACT}
    real = execute.delete_rows
    synced: list = []
    threads: list[threading.Thread] = []

    def sync_then_purge(*args, **kw):
        def watcher():
            try:
                synced.append(sync_workspace(store.agent("alice")))
            finally:
                store.db.close()

        t = threading.Thread(target=watcher)
        t.start()
        t.join(3)  # a sync that waits for the forget is fine too: it finishes after it
        threads.append(t)
        return real(*args, **kw)

    monkeypatch.setattr(execute, "delete_rows", sync_then_purge)
    fid = next(f.id for f in a.list() if f.content == ONE_FACT)
    receipt = ForgetService(store).execute(ForgetScope(agent="alice", fact_ids=(fid,)))
    threads[0].join(60)
    assert synced, "the watcher's sync did not run"
    assert receipt["counts"]["remaining_after_verify"] == 0, receipt["notes"]
    assert ONE_FACT.encode() not in memory_md.read_bytes()
    assert ForgetService(store).verify([ONE_FACT], agent="alice").ok
    assert {f.content for f in a.list()} >= others_before  # nothing else lost
    text = memory_md.read_text("utf-8")
    assert all(c in text for c in others_before if c in MEMORY_MD)  # other entries stay


def test_a_write_back_during_a_forget_does_not_undo_the_agents_file_edit(
    keyword_engram, tmp_path, monkeypatch
):
    """Claude Code's own memory folder, imported; a write-back (the app after an edit, `engram
    writeback`) runs while the forget is between editing that folder and deleting the rows."""
    import shutil
    from pathlib import Path

    from services.forget import execute
    from services.interop.writeback import write_back

    native = Path(__file__).resolve().parents[1] / "importers" / "fixtures" / "native"
    mem = keyword_engram.agent("cc", create=True, kind="claude-code")
    folder = tmp_path / "memory"
    shutil.copytree(native / "claude_memory", folder)
    mem.import_path(folder)
    phrase = "release manager rotates"
    assert any(phrase in p.read_text("utf-8") for p in folder.iterdir())
    real = execute.delete_rows
    threads: list[threading.Thread] = []

    def write_back_then_purge(*args, **kw):
        def app():
            try:
                write_back(keyword_engram.agent("cc"))
            finally:
                keyword_engram.db.close()

        t = threading.Thread(target=app)
        t.start()
        t.join(3)  # waiting for the forget is the right answer: it then finds nothing to do
        threads.append(t)
        return real(*args, **kw)

    monkeypatch.setattr(execute, "delete_rows", write_back_then_purge)
    receipt = ForgetService(keyword_engram).execute(ForgetScope(agent="cc", matching=phrase))
    threads[0].join(60)
    assert receipt["counts"]["facts"] >= 1
    assert receipt["counts"]["remaining_after_verify"] == 0, receipt["notes"]
    assert [p.name for p in folder.iterdir() if phrase in p.read_text("utf-8").lower()] == []
    assert "integration tests hit a real database" in (folder / "MEMORY.md").read_text("utf-8")
    testing = (folder / "feedback_testing.md").read_text("utf-8")
    assert "must run against a real PostgreSQL" in testing  # the agent's other memories stay

"""Issue 36, finding 7 at a moderate size: the Archived view lists a page and reads more as
it is scrolled, Restore all runs as a job with progress while the window keeps ticking, and a
Restore asked for while the embedder fills its backlog goes first, the Jobs bar saying what it
waits for. Real store, real Chroma, real model (the 100k figures are in bench/gui_scale.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtCore import Qt, QTimer
from tests_gui_helpers import answer_modal, open_tab

from models import AuditEvent
from models.tables import utcnow
from services import FactFilters, NewFact, run_gc
from services.config import StoreConfig
from services.engram import Engram
from services.ingest.bulk import bulk_remember


def _archived_store(path, n: int) -> list[int]:
    """``n`` scratch notes a month old, archived by ``engram gc --all`` (no vectors yet: the
    bulk path, as an import leaves them)."""
    e = Engram.open(StoreConfig(data_dir=path, semantic=False))
    m = e.agent("claude", create=True)
    old = utcnow() - timedelta(days=30)
    items = (
        NewFact(f"Scratch note {i} about build {i * 3}", category="tmp", created_at=old)
        for i in range(n)
    )
    bulk_remember(m, items)
    # GC counts a fact's life from when Engram learned it: the import, a month ago
    AuditEvent.update(created_at=old).where(
        (AuditEvent.agent == m.agent_id) & (AuditEvent.action == "bulk-import")
    ).execute()
    report = run_gc(m, max_archive=None)
    assert report.expired == n
    ids = [f.id for f in m.list(FactFilters(status="archived"), limit=n + 1)]
    e.close()
    return ids


class Ticks:
    """A 10 ms timer on the GUI thread: it only fires while the window is responsive."""

    def __init__(self):
        self.n = 0
        self.timer = QTimer()
        self.timer.timeout.connect(self._tick)
        self.timer.start(10)

    def _tick(self):
        self.n += 1

    def stop(self) -> int:
        self.timer.stop()
        return self.n


def _window(qtbot, e, **kw):
    from ui.main_window import MainWindow

    w = MainWindow(e, use_tray=False, **kw)
    qtbot.addWidget(w, before_close_func=lambda w: w.shutdown())
    w.show()
    qtbot.waitExposed(w)
    return w


def test_archived_lists_a_page_reads_more_on_scroll_and_restore_all_keeps_ticking(
    tmp_path, qtbot, monkeypatch
):
    from ui.archived_view import ArchivedView

    ids = _archived_store(tmp_path / "s", 1200)
    e = Engram.open(StoreConfig(data_dir=tmp_path / "s"))
    m = e.agent("claude")
    monkeypatch.setattr(ArchivedView, "page", 200)
    w = _window(qtbot, e)
    tab = open_tab(w, "claude")
    ticks = Ticks()
    tab.show_view("Archived")
    view = tab.archived
    qtbot.waitUntil(lambda: not view.is_loading(), timeout=30000)
    assert view.model.rowCount() == 200
    assert view.count.text() == "1,200 archived fact(s) (200 listed; scroll for more)"
    newest = view.model.index(0, 1).data()
    assert newest.startswith("Scratch note ")
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key_End, Qt.ControlModifier)  # the list's end: more
    qtbot.waitUntil(lambda: view.model.rowCount() == 400, timeout=30000)
    listed = {view.model.id_at(r) for r in range(view.model.rowCount())}
    assert len(listed) == 400 and listed <= set(ids)
    assert ticks.n > 0, "the window ticked while the list was read"
    before = ticks.n
    with qtbot.waitSignal(view.restored, timeout=120000) as sig:
        (_t, text, _i), _ = answer_modal(
            qtbot, lambda: qtbot.mouseClick(view.all_btn, Qt.LeftButton), button_text="Yes"
        )
        assert "1,200" in text
        # a visible job with progress, on show while it runs
        qtbot.waitUntil(lambda: w.jobs.isVisible(), timeout=10000)
    assert ticks.stop() > before, "the window ticked during Restore all"
    assert sorted(sig.args[0]) == sorted(ids)
    assert {f.status for f in m.list(limit=2000)} == {"active"}
    assert len(m.list(limit=2000)) == 1200
    # keyword-visible at once: a search finds a restored note
    hits = m.search("Scratch note 717", k=3, mode="keyword")
    assert any("Scratch note 717 " in h.fact.content for h in hits)
    assert "Restoring 1,200 fact(s): done" in w.jobs.label.text()
    qtbot.waitUntil(lambda: not view.is_loading(), timeout=30000)
    assert view.count.text() == "Nothing archived." and view.model.rowCount() == 0
    qtbot.waitUntil(lambda: not w.runner.is_busy(), timeout=30000)
    w.shutdown()
    e.close()


@pytest.mark.slow
def test_restore_all_goes_before_the_embedding_backlog_and_says_what_it_waits_for(tmp_path, qtbot):
    n = 4000  # a backlog that takes the model a while even on an idle machine
    ids = _archived_store(tmp_path / "s", n)
    # opened as the app opens it: the model loads in a worker, then the backlog is embedded
    e = Engram.open(StoreConfig(data_dir=tmp_path / "s", semantic=False))
    m = e.agent("claude")
    w = _window(qtbot, e, load_semantic=True)
    embedding = lambda: any(j.title == "Embedding new memories" for j in w.runner.running())  # noqa: E731
    qtbot.waitUntil(embedding, timeout=120000)
    tab = open_tab(w, "claude")
    tab.show_view("Archived")
    view = tab.archived
    qtbot.waitUntil(lambda: not view.is_loading() and view.total == n, timeout=60000)
    assert embedding(), "the backlog is still being embedded when Restore all is asked for"
    ticks = Ticks()
    said: list[str] = []

    def click_and_read():
        qtbot.mouseClick(view.all_btn, Qt.LeftButton)

    with qtbot.waitSignal(view.restored, timeout=120000) as sig:
        answer_modal(qtbot, click_and_read, button_text="Yes")
        said.append(w.jobs.label.text())
    assert ticks.stop() > 0
    assert said[0] == f"Restoring {n:,} fact(s) — waits for: Embedding new memories"
    assert sorted(sig.args[0]) == sorted(ids)
    assert e.index.count(m.agent_id) < n, "the restore went first: vectors come behind"
    assert len(m.list(limit=n + 1)) == n
    # the backlog goes on after it, to the end
    qtbot.waitUntil(lambda: e.index.count(m.agent_id) == n, timeout=600000)
    w.shutdown()
    e.close()

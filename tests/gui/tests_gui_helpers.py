"""Helpers shared by the GUI tests (imported as a sibling module under importlib mode)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QSignalSpy


def open_tab(window, slug):
    """Show an agent's tab with its facts freshly loaded (the reload runs in a worker)."""
    window.agents_ctl.sync_agents()
    tab = window.agent_tabs[slug]
    window.tabs.setCurrentWidget(tab)
    spy, failed = QSignalSpy(tab.model.reloaded), QSignalSpy(tab.model.load_failed)
    tab.refresh()
    if not spy.wait(30000):
        jobs = [(j.title, j.worker is not None) for j in window.runner._jobs.values()]
        messages = [failed.at(i) for i in range(failed.count())]
        raise AssertionError(
            f"the fact list did not reload; jobs (title, started): {jobs}; "
            f"load failures: {messages}"
        )
    return tab


def wait_write(qtbot, tab, timeout=15000):
    return qtbot.waitSignal(tab.write_done, timeout=timeout)


def reloaded(qtbot, tab, timeout=15000):
    """``with reloaded(qtbot, tab): <change a filter or sort>``"""
    return qtbot.waitSignal(tab.model.reloaded, timeout=timeout)


def learned_at(agent, ids, when=None) -> None:
    """Make facts look learned when they were created (or at ``when``): GC counts a fact's
    lifetime from when Engram stored it (its ``create`` audit event), so a test that needs old
    memories moves that event back, as a store kept for weeks would have it."""
    from models import AuditEvent, Fact

    for fid in ids:
        at = when or Fact.get_by_id(fid).created_at
        AuditEvent.update(created_at=at).where(
            (AuditEvent.fact_id == fid) & (AuditEvent.action == "create")
        ).execute()


def answer_modal(qtbot, act, check=None, key=None, button_text=None, timeout=10000):
    """Run ``act`` (which opens a modal dialog through the real path) and answer the dialog
    as a user would: ``key`` pressed on it (e.g. Enter) or the button whose text starts with
    ``button_text`` clicked. ``check(box)`` inspects the dialog first. Returns the dialog's
    texts (title, text, informative text)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QAbstractButton, QApplication

    seen: dict = {}

    def handle():
        box = QApplication.activeModalWidget()
        if box is None:
            QTimer.singleShot(20, handle)
            return
        seen["texts"] = (
            box.windowTitle(),
            box.text() if hasattr(box, "text") else "",
            box.informativeText() if hasattr(box, "informativeText") else "",
        )
        try:
            if check is not None:
                check(box)
        except AssertionError as exc:
            seen["error"] = exc
        if key is not None:
            qtbot.keyClick(box, key)
        elif button_text is not None:
            for b in box.findChildren(QAbstractButton):
                if b.text().replace("&", "").startswith(button_text):
                    b.click()
                    return
            seen["error"] = AssertionError(f"no button {button_text!r}")
            box.reject()

    QTimer.singleShot(0, handle)
    result = act()
    if "error" in seen:
        raise seen["error"]
    assert "texts" in seen, "no dialog opened"
    return seen["texts"], result


def click_row(qtbot, tab, fid):
    """A mouse click on the fact's row in the browser, as the user picks it."""
    r = tab.model.row_of(fid)
    rect = tab.table.visualRect(tab.model.index(r, 0))
    qtbot.mouseClick(tab.table.viewport(), Qt.LeftButton, pos=rect.center())


def type_over(qtbot, tab, text):
    """Typing TEXT over everything in the editor's content box."""
    ed = tab.editor.content
    ed.setFocus()
    ed.selectAll()
    qtbot.keyClicks(ed, text)


def old_scratch_facts(agent, n, word="Scratch"):
    """N `tmp` facts written and learned 30 days ago: what GC archives. Their ids."""
    from datetime import timedelta

    from models.tables import utcnow
    from services import NewFact

    old = utcnow() - timedelta(days=30)
    res = agent.remember_many(
        [
            NewFact(f"{word} note {i} about build {i * 3}", category="tmp", created_at=old)
            for i in range(n)
        ],
        near_duplicate=None,
    )
    ids = [r.fact_id for r in res]
    learned_at(agent, ids, old)  # GC counts from when Engram learned them
    return ids

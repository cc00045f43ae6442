"""Issue 24, items 2 and 7: the status bar's Undo acts on exactly the step it names whatever
tab is current; a GC run is undone from any tab and, after a restart, from its archive; one
GC run never archives most of an agent's memory; the Archived view counts every archived
fact and restores them all."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, old_scratch_facts, open_tab, wait_write


def _run_gc(window, qtbot):
    """Engram → Run GC: the preview, then its run button. Returns what the preview said."""
    window.tray.act_gc.trigger()
    dlg = window.lifecycle_ctl.gc_dialog
    qtbot.waitUntil(lambda: dlg.plans is not None, timeout=60000)
    said = (dlg.run_btn.text(), dlg.intro.text())
    with qtbot.waitSignal(window.tray.gc_done, timeout=60000):
        dlg.run_btn.click()
    return said


def test_notice_undo_acts_on_its_own_step_after_switching_agents(window, engram, qtbot):
    a = engram.agent("alpha", create=True)
    b = engram.agent("beta", create=True)
    xid = a.remember("Alpha deploys on Fridays").fact_id
    yid = b.remember("Beta prefers tabs").fact_id
    tb = open_tab(window, "beta")
    tb.select_ids([yid], current=yid)
    with wait_write(qtbot, tb):
        window.act_pin.trigger()  # Edit → Pin in beta's tab
    assert b.get(yid).pinned
    ta = open_tab(window, "alpha")
    ta.select_ids([xid], current=xid)
    with wait_write(qtbot, ta):
        window.act_delete.trigger()  # Edit → Delete in alpha's tab
    assert a.list() == []
    assert window.notice.text() == f"Deleted fact #{xid} — Undo"
    window.tabs.setCurrentWidget(tb)  # another agent's tab is current now
    with wait_write(qtbot, ta):
        qtbot.mouseClick(window.notice.action_btn, Qt.LeftButton)
    assert [f.id for f in a.list()] == [xid], "the notice must undo the delete it names"
    assert b.get(yid).pinned, "beta's pin must stay"


def test_gc_undone_from_another_tab_with_ctrl_z(window, agent, qtbot):
    ids = old_scratch_facts(agent, 3)
    open_tab(window, "claude")
    _run_gc(window, qtbot)
    assert {agent.get(i).status for i in ids} == {"archived"}
    window.tabs.setCurrentIndex(0)  # All agents
    assert window.act_undo.isEnabled() and "GC" in window.act_undo.text()
    window.act_undo.trigger()
    qtbot.waitUntil(lambda: {agent.get(i).status for i in ids} == {"active"}, timeout=30000)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)


def test_gc_undone_after_a_restart_from_its_archive(engram, agent, qtbot):
    from ui.main_window import MainWindow

    ids = old_scratch_facts(agent, 3)
    other = agent.remember("Kept by hand in the archive", category="fact").fact_id
    agent.edit(other, status="archived")
    w1 = MainWindow(engram, use_tray=False)
    qtbot.addWidget(w1)
    w1.show()
    _run_gc(w1, qtbot)
    qtbot.waitUntil(lambda: not w1.runner.is_busy(), timeout=15000)
    w1.shutdown()
    w1.close()
    w2 = MainWindow(engram, use_tray=False)  # a new session: the undo stack is gone
    qtbot.addWidget(w2)
    w2.show()
    tab = open_tab(w2, "claude")
    tab.show_view("Archived")
    view = tab.archived
    qtbot.waitUntil(lambda: not view.is_loading(), timeout=15000)
    assert view.runs.currentText().endswith(": 3 fact(s)")
    with qtbot.waitSignal(view.restored, timeout=15000):
        qtbot.mouseClick(view.run_btn, Qt.LeftButton)
    assert {agent.get(i).status for i in ids} == {"active"}
    assert agent.get(other).status == "archived", "only what that GC archived comes back"
    qtbot.waitUntil(lambda: not w2.runner.is_busy(), timeout=15000)
    w2.shutdown()


def test_first_gc_never_archives_most_and_archived_view_counts_all(
    window, agent, qtbot, monkeypatch
):
    from ui.archived_view import ArchivedView

    ids = old_scratch_facts(agent, 300)
    tab = open_tab(window, "claude")
    button, intro = _run_gc(window, qtbot)
    assert button == "Archive 100 fact(s)"
    assert "200 more are past their limits but stay for now" in intro
    archived = [i for i in ids if agent.get(i).status == "archived"]
    assert len(archived) == 100
    monkeypatch.setattr(ArchivedView, "page", 40)
    tab.show_view("Archived")
    view = tab.archived
    view.reload()
    qtbot.waitUntil(lambda: not view.is_loading(), timeout=15000)
    assert view.model.rowCount() == 40
    assert view.count.text() == "100 archived fact(s) (40 listed; scroll for more)"
    with qtbot.waitSignal(view.restored, timeout=30000):
        (_t, text, _i), _ = answer_modal(
            qtbot, lambda: qtbot.mouseClick(view.all_btn, Qt.LeftButton), button_text="Yes"
        )
    assert "100" in text
    assert all(agent.get(i).status == "active" for i in ids)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)

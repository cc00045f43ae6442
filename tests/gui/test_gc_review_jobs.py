"""Issue 15: GC previews and confirms before it archives anything, is one undo step, and
archived facts come back from the Archived view; the review inbox is keyboard-driven with a
count badge; jobs show "N of M", Esc cancels, and the end state stays until dismissed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, old_scratch_facts, open_tab

from services import FactFilters, NewFact, review_metadata


def test_gc_previews_with_reasons_then_is_one_undo_step(window, agent, qtbot):
    ids = old_scratch_facts(agent, 4)
    keep = agent.remember("Prefers PostgreSQL over MySQL", category="pref").fact_id
    tab = open_tab(window, "claude")
    window.tray.act_gc.trigger()
    dlg = window.lifecycle_ctl.gc_dialog
    qtbot.waitUntil(lambda: dlg.plans is not None, timeout=60000)
    assert all(agent.get(i).status == "active" for i in ids), "the preview changed something"
    top = dlg.tree.topLevelItem(0)
    assert top.text(0) == "claude" and top.childCount() == 4
    assert "'tmp' facts live 7 days" in top.child(0).text(2)
    assert dlg.run_btn.text() == "Archive 4 fact(s)" and dlg.cancel_btn.isDefault()
    with qtbot.waitSignal(window.tray.gc_done, timeout=60000):
        dlg.run_btn.click()
    assert all(agent.get(i).status == "archived" for i in ids)
    assert agent.get(keep).status == "active"
    assert window.notice.text() == "GC ran (4 fact(s) archived) — Undo"
    window.act_undo.trigger()
    qtbot.waitUntil(lambda: all(agent.get(i).status == "active" for i in ids), timeout=30000)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)
    del tab


def test_cancelling_the_gc_preview_changes_nothing(window, agent, qtbot):
    ids = old_scratch_facts(agent, 2)
    window.tray.act_gc.trigger()
    dlg = window.lifecycle_ctl.gc_dialog
    qtbot.waitUntil(lambda: dlg.plans is not None, timeout=60000)
    qtbot.keyClick(dlg, Qt.Key_Escape)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)
    assert all(agent.get(i).status == "active" for i in ids)


def test_archived_view_restores(window, agent, qtbot):
    ids = old_scratch_facts(agent, 2)
    for i in ids:
        agent.edit(i, status="archived")
    tab = open_tab(window, "claude")
    tab.show_view("Archived")
    view = tab.archived
    qtbot.waitUntil(lambda: not view.is_loading() and view.model.rowCount() == 2, timeout=15000)
    view.table.selectRow(0)
    with qtbot.waitSignal(view.restored, timeout=15000) as sig:
        view.restore_btn.click()
    assert agent.get(sig.args[0][0]).status == "active"
    qtbot.waitUntil(lambda: not view.is_loading() and view.model.rowCount() == 1, timeout=15000)


def test_review_inbox_keyboard_and_badge(window, agent, qtbot):
    items = [
        NewFact(
            f"Maybe: prefers {w} for scripts",
            status="pending",
            metadata=review_metadata("low-confidence", 0.4, source="session"),
        )
        for w in ("bash", "fish", "zsh")
    ]
    ids = [r.fact_id for r in agent.remember_many(items, near_duplicate=None)]
    tab = open_tab(window, "claude")
    assert tab.views.tabText(4) == "Review (3)"
    assert "3 to review" in window.tabs.tabToolTip(window.tabs.indexOf(tab))
    tab.show_view("Review")
    rv = tab.review
    assert rv.table.rowCount() == 3 and rv.table.item(0, 2).text() == "40%"
    rv.table.setFocus()
    rv.table.selectRow(0)
    first = rv.selected_ids()[0]
    with qtbot.waitSignal(rv.decided, timeout=15000):
        qtbot.keyClick(rv.table, Qt.Key_A)
    assert agent.get(first).status == "active"
    assert rv.table.rowCount() == 2 and tab.views.tabText(4) == "Review (2)"
    rv.table.selectAll()
    with qtbot.waitSignal(rv.decided, timeout=15000):  # it asks first: nothing undoes it
        answer_modal(qtbot, lambda: qtbot.keyClick(rv.table, Qt.Key_R), button_text="Erase")
    # reject means gone: erased with the forget machinery, not archived
    left = {f.id for f in agent.list(FactFilters(status=["active", "pending", "archived"]))}
    assert left & set(ids) == {first}
    assert tab.views.tabText(4) == "Review"
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)


def test_jobs_show_n_of_m_and_esc_cancels(window, agent, qtbot):
    import threading

    step = threading.Event()

    def op(progress, cancelled):
        for i in range(50):
            progress(i + 1, 50, f"Step {i + 1}")
            step.set()
            if cancelled():
                return i
            threading.Event().wait(0.05)
        return 50

    job = window.runner.start("Slow job", op)
    qtbot.waitUntil(lambda: "of 50" in window.jobs.bar.format(), timeout=15000)
    window.activateWindow()
    with qtbot.waitSignal(window.runner.job_finished, timeout=15000) as sig:
        window.act_cancel.trigger()  # Esc
    assert sig.args[0] == job and sig.args[1] == "cancelled"
    assert window.jobs.end_state() == "Slow job: cancelled"
    assert window.act_cancel.shortcut().toString() == "Esc"
    dlg = window.jobs.log_dialog(window)
    from PySide6.QtWidgets import QTreeWidget

    tree = dlg.findChild(QTreeWidget)
    assert (
        tree.topLevelItem(0).text(1) == "Slow job" and tree.topLevelItem(0).text(2) == "cancelled"
    )
    dlg.deleteLater()


def test_review_edit_corrects_then_accepts(window, agent, qtbot):
    (r,) = agent.remember_many(
        [
            NewFact(
                "Maybe uses Fedora 39 on the laptop",
                status="pending",
                metadata=review_metadata("low-confidence", 0.5, source="session"),
            )
        ],
        near_duplicate=None,
    )
    tab = open_tab(window, "claude")
    tab.show_view("Review")
    tab.review.table.selectRow(0)
    with qtbot.waitSignal(tab.review.decided, timeout=15000) as sig:
        tab.review.edit_current("Uses Fedora 41 on the laptop")
    [new_id] = sig.args[1]
    assert sig.args[0] == "edit"
    f = agent.get(new_id)
    assert (f.content, f.status) == ("Uses Fedora 41 on the laptop", "active")
    # the original is erased, not kept in the history of an edited row
    assert [h["action"] for h in agent.facts.history(new_id)] == ["create"]
    assert "Fedora 39" not in str(agent.facts.history(new_id))
    assert [f.content for f in agent.list()] == ["Uses Fedora 41 on the laptop"]
    assert tab.review.table.rowCount() == 0 and tab.views.tabText(4) == "Review"
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)

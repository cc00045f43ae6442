"""Issue 24, items 4, 5 and 11 (receipts): the forget preview lists every fact with why it
matched and every episode it reaches, an unticked fact is kept; closing the dialog while the
forget runs does not crash, the receipt is still shown and two-way sync resumes."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, open_tab


def _open_forget_matching(window, qtbot, text):
    window.tabs.currentWidget().table.clearSelection()
    window.act_forget.trigger()  # Edit → Forget permanently… (Ctrl+Shift+Del)
    dlg = window.privacy_ctl.forget_dialog
    qtbot.keyClicks(dlg.matching, text)
    with qtbot.waitSignal(dlg.previewed, timeout=60000):
        qtbot.mouseClick(dlg.preview_btn, Qt.LeftButton)
    return dlg


def _children(dlg):
    top = dlg.items.topLevelItem(0)
    return [top.child(i) for i in range(top.childCount())]


def test_preview_lists_reasons_and_episodes_and_unticked_facts_stay(window, seeded, qtbot):
    pg16 = seeded.remember("PostgreSQL 16 runs the billing database", category="env").fact_id
    old = next(f.id for f in seeded.list() if f.content.startswith("Prefers PostgreSQL"))
    seeded.add_episode(date(2026, 11, 2), "Moved the billing tables to PostgreSQL 16.")
    open_tab(window, "claude")
    dlg = _open_forget_matching(window, qtbot, "PostgreSQL")
    kids = _children(dlg)
    facts = {k.data(0, Qt.UserRole): k for k in kids if k.data(0, Qt.UserRole) is not None}
    assert {pg16, old} <= set(facts)
    assert all(k.text(1) for k in facts.values()), "every fact says why it matched"
    assert all(k.checkState(0) == Qt.Checked for k in facts.values())
    assert any(k.text(0).startswith("Episode 2026-11-02: Moved the billing") for k in kids)
    assert "episodes (session summaries): 1" in dlg.preview_text.toPlainText()
    # untick the PostgreSQL 16 fact with the keyboard (Space on the current row)
    dlg.items.setFocus()
    dlg.items.setCurrentItem(facts[pg16])
    qtbot.keyClick(dlg.items, Qt.Key_Space)
    assert facts[pg16].checkState(0) == Qt.Unchecked
    assert dlg.unticked_ids() == [pg16]
    with qtbot.waitSignal(dlg.forgotten, timeout=60000):
        answer_modal(
            qtbot, lambda: qtbot.mouseClick(dlg.execute_btn, Qt.LeftButton), button_text="Yes"
        )
    assert seeded.get(pg16).content == "PostgreSQL 16 runs the billing database"
    assert seeded.facts.rows([old]) == {}
    receipt = dlg.preview_text.toPlainText()
    assert "Forgot everything matching the text you typed in claude" in receipt
    assert "fts" not in receipt.lower() and "vectors" not in receipt
    dlg.close()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)


def test_missing_reason_field_still_shows_a_reason():
    from ui.forget_words import why_matched

    assert why_matched({"id": 1}) == "matched"
    assert why_matched({"reason": "whole word “Python 3.9”"}) == "whole word “Python 3.9”"
    assert (
        why_matched({"why": "semantic", "score": 0.81})
        == "says something similar (similarity 0.81)"
    )


def test_closing_the_dialog_while_it_forgets(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    fid = next(f.id for f in seeded.list() if f.content.startswith("Prefers PostgreSQL"))
    tab.select_ids([fid], current=fid)
    window.act_forget.trigger()
    dlg = window.privacy_ctl.forget_dialog
    with qtbot.waitSignal(dlg.previewed, timeout=60000):
        qtbot.mouseClick(dlg.preview_btn, Qt.LeftButton)
    answer_modal(qtbot, lambda: qtbot.mouseClick(dlg.execute_btn, Qt.LeftButton), button_text="Yes")
    assert window.workspaces._held == 1, "two-way sync pauses while the forget runs"
    qtbot.mouseClick(dlg.close_btn, Qt.LeftButton)  # closed mid-run: the dialog is deleted
    qtbot.waitUntil(
        lambda: getattr(window.privacy_ctl, "receipt_box", None) is not None, timeout=60000
    )
    assert window.privacy_ctl.receipt_box.isVisible()
    assert window.privacy_ctl.receipt_box.text().startswith("Receipt #")
    assert "1 facts" in window.privacy_ctl.receipt_box.text()
    assert window.workspaces._held == 0, "two-way sync resumes"
    assert seeded.facts.rows([fid]) == {}
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)
    window.privacy_ctl.receipt_box.close()

"""Issue #30 finding 2 in the app: forgetting a known name ("Alice Martin") lists the facts
that name only part of it ("Alice …") apart and unticked; only the one the person ticks goes
with the phrase's facts."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, open_tab


def test_part_of_a_name_is_unticked_and_goes_only_when_ticked(window, seeded, qtbot):
    full = seeded.remember("My manager is Alice Martin.").fact_id
    booked = seeded.remember("Alice booked the meeting room").fact_id
    budget = seeded.remember("Alice reviews the travel budget").fact_id
    open_tab(window, "claude")
    window.tabs.currentWidget().table.clearSelection()
    window.act_forget.trigger()  # Edit → Forget permanently…
    dlg = window.privacy_ctl.forget_dialog
    qtbot.keyClicks(dlg.matching, "Alice Martin")
    with qtbot.waitSignal(dlg.previewed, timeout=60000):
        qtbot.mouseClick(dlg.preview_btn, Qt.LeftButton)

    groups = [dlg.items.topLevelItem(i) for i in range(dlg.items.topLevelItemCount())]
    [plan] = [g for g in groups if "part of the name" not in g.text(0)]
    [part] = [g for g in groups if "also mentions part of the name" in g.text(0)]
    assert [plan.child(i).data(0, Qt.UserRole) for i in range(plan.childCount())] == [full]
    kids = {part.child(i).data(0, Qt.UserRole): part.child(i) for i in range(part.childCount())}
    assert set(kids) == {booked, budget}
    assert all(k.checkState(0) == Qt.Unchecked for k in kids.values())
    assert "part of the name" in kids[booked].text(1)

    dlg.items.setFocus()  # tick one with the keyboard (Space on the current row)
    dlg.items.setCurrentItem(kids[booked])
    qtbot.keyClick(dlg.items, Qt.Key_Space)
    assert dlg.ticked_partial_ids() == [booked] and dlg.unticked_ids() == []
    with qtbot.waitSignal(dlg.forgotten, timeout=60000):
        answer_modal(
            qtbot, lambda: qtbot.mouseClick(dlg.execute_btn, Qt.LeftButton), button_text="Yes"
        )
    assert seeded.facts.rows([full, booked]) == {}
    assert seeded.get(budget).content == "Alice reviews the travel budget"
    dlg.close()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)

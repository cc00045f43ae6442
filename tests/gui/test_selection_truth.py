"""Issue 15, "selection is the truth": the editor and every action follow what is selected
in the view on show; writes are confirmed with an Undo; Ctrl+Z works from a text field."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, open_tab, reloaded, wait_write


def test_a_filter_that_hides_the_selected_fact_empties_the_editor_and_disables_delete(
    window, seeded, qtbot
):
    tab = open_tab(window, "claude")
    tmp = next(r for r in range(tab.model.rowCount()) if tab.model.fact_at(r).category == "tmp")
    fid = tab.model.id_at(tmp)
    tab.table.selectRow(tmp)
    assert tab.editor.fact.id == fid and window.act_delete.isEnabled()
    with reloaded(qtbot, tab):
        tab.filter_bar.category.setCurrentText("pref")
    assert tab.model.row_of(fid) is None
    assert tab.editor.fact is None, "the editor still shows a fact that is not on screen"
    assert not tab.delete_btn.isEnabled() and not tab.pin_btn.isEnabled()
    assert not window.act_delete.isEnabled() and not window.act_pin.isEnabled()
    window.act_delete.trigger()
    tab.delete_selected(confirm=False)
    assert seeded.get(fid).content  # still there


def test_typing_a_search_empties_the_editor_until_a_hit_is_picked(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    tab.table.selectRow(0)
    assert tab.editor.fact is not None
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        tab.search.query.setText("PostgreSQL")
        tab.search.run_now()
    assert tab.editor.fact is None and not tab.delete_btn.isEnabled()
    tab.search.table.selectRow(0)
    hit = tab.search.model.hits[0][1].fact
    assert tab.editor.fact.id == hit.id and tab.selected_ids() == [hit.id]
    # another view of the tab: nothing on screen is selected, the actions are off
    tab.show_view("Timeline")
    assert not window.act_delete.isEnabled() and tab.selected_ids() == []


def test_opening_a_hit_from_all_agents_selects_that_row(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    tab.table.selectRow(0)
    other = tab.model.id_at(5)
    window.agents_ctl.open_fact("claude", other)
    assert window.current_agent_tab() is tab
    assert tab.selected_ids() == [other], "the highlighted row is not the opened fact"
    assert tab.editor.fact.id == other


def test_opening_a_fact_hidden_by_a_filter_clears_the_filter_and_selects_it(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    hidden = next(f.id for f in seeded.list() if f.category == "tmp")
    with reloaded(qtbot, tab):
        tab.filter_bar.category.setCurrentText("pref")
    with reloaded(qtbot, tab):
        window.agents_ctl.open_fact("claude", hidden)
    assert tab.selected_ids() == [hidden] and tab.editor.fact.id == hidden


def test_a_delete_is_confirmed_with_an_undo_that_works(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    ids = [f.id for f in seeded.list() if f.category == "tmp"][:4]
    tab.select_ids(ids)
    with wait_write(qtbot, tab):
        tab.delete_btn.click()
    assert window.notice.isVisible()
    assert window.notice.text() == f"Deleted {len(ids)} facts — Undo"
    with wait_write(qtbot, tab):
        window.notice.action_btn.click()
    assert set(seeded.facts.rows(ids)) == set(ids)
    assert window.notice.text() == f"Undone: Deleted {len(ids)} facts — Redo"


def test_bulk_delete_over_the_threshold_asks_first(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    tab.table.selectAll()
    (_t, text, _i), _ = answer_modal(qtbot, tab.delete_btn.click, button_text="No")
    assert "Delete 42 facts" in text
    assert tab.undo_stack.count() == 0 and len(seeded.list()) == 42


def test_ctrl_z_in_a_text_field_undoes_the_last_write(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    row = next(r for r in range(tab.model.rowCount()) if not tab.model.fact_at(r).pinned)
    fid = tab.model.id_at(row)
    tab.table.selectRow(row)
    with wait_write(qtbot, tab):
        tab.pin_selected()
    assert seeded.get(fid).pinned
    tab.search.query.setFocus()
    with wait_write(qtbot, tab):
        qtbot.keyClick(tab.search.query, Qt.Key_Z, Qt.ControlModifier)
    assert not seeded.get(fid).pinned, "Ctrl+Z in the search box did not undo the pin"
    tab.editor.content.setFocus()  # not edited: Ctrl+Shift+Z redoes the pin
    with wait_write(qtbot, tab):
        qtbot.keyClick(tab.editor.content, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert seeded.get(fid).pinned
    # with unsaved typing the field undoes its own typing, not the pin
    qtbot.keyClicks(tab.editor.content, " extra")
    assert tab.editor.is_dirty()
    qtbot.keyClick(tab.editor.content, Qt.Key_Z, Qt.ControlModifier)
    assert seeded.get(fid).pinned and tab.undo_stack.index() == 1

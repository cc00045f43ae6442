"""Issue 24, item 3: typing in the editor is never thrown away silently: picking another row
asks Save / Discard / Cancel (Enter keeps the typing), a search, Clear or a sort keeps the
typing and the selection, and a save over a change made elsewhere (the CLI) asks first."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from tests_gui_helpers import answer_modal, click_row, open_tab, reloaded, type_over, wait_write


def _two(tab):
    return tab.model.id_at(0), tab.model.id_at(1)


def test_clicking_another_row_asks_and_enter_keeps_the_typing(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    a, b = _two(tab)
    click_row(qtbot, tab, a)
    type_over(qtbot, tab, "Edited but not saved")
    (_t, text, _i), _ = answer_modal(qtbot, lambda: click_row(qtbot, tab, b), key=Qt.Key_Return)
    assert f"#{a}" in text
    assert tab.editor.fact.id == a
    assert tab.editor.content.toPlainText() == "Edited but not saved"
    assert tab.selected_ids() == [a], "Cancel puts the selection back on the edited fact"
    assert seeded.get(a).content != "Edited but not saved"
    # asked again: Save writes the typing, then the picked fact opens
    with wait_write(qtbot, tab):
        answer_modal(qtbot, lambda: click_row(qtbot, tab, b), button_text="Save")
    assert seeded.get(a).content == "Edited but not saved"
    assert tab.editor.fact.id == b


def test_discard_drops_the_typing_only_when_asked(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    a, b = _two(tab)
    before = seeded.get(a).content
    click_row(qtbot, tab, a)
    type_over(qtbot, tab, "Throw this away")
    answer_modal(qtbot, lambda: click_row(qtbot, tab, b), button_text="Discard")
    assert tab.editor.fact.id == b and seeded.get(a).content == before


def test_search_clear_and_sort_keep_the_typing(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    a, _b = _two(tab)
    click_row(qtbot, tab, a)
    type_over(qtbot, tab, "Typed before searching")
    qtbot.keyClicks(tab.search.query, "PostgreSQL")
    qtbot.waitUntil(lambda: tab.stack.currentIndex() == 1, timeout=5000)
    assert tab.editor.fact.id == a
    assert tab.editor.content.toPlainText() == "Typed before searching"
    assert "unsaved changes kept" in tab.editor.title.text()
    tab.search.query.clear()
    # sort by another column: the selection and the typing survive the reload
    header = tab.table.horizontalHeader()
    with reloaded(qtbot, tab):
        qtbot.mouseClick(
            header.viewport(), Qt.LeftButton, pos=QPoint(header.sectionViewportPosition(3) + 5, 5)
        )
    assert tab.editor.fact.id == a
    assert tab.editor.content.toPlainText() == "Typed before searching"
    with reloaded(qtbot, tab):
        qtbot.mouseClick(tab.filter_bar.clear_btn, Qt.LeftButton)
    assert tab.editor.content.toPlainText() == "Typed before searching"
    assert tab.editor.save_btn.isEnabled()
    with wait_write(qtbot, tab):
        qtbot.mouseClick(tab.editor.save_btn, Qt.LeftButton)
    assert seeded.get(a).content == "Typed before searching"


def test_save_over_an_outside_edit_asks(window, seeded, qtbot, engram):
    tab = open_tab(window, "claude")
    a, _b = _two(tab)
    click_row(qtbot, tab, a)
    type_over(qtbot, tab, "Mine from the app")
    seeded.edit(a, content="Theirs from the CLI")  # another writer, meanwhile
    with reloaded(qtbot, tab):
        tab.refresh()
    assert tab.editor.content.toPlainText() == "Mine from the app"

    def save():
        window.activateWindow()  # back from the dialog, as the window manager does
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        tab.editor.content.setFocus()
        qtbot.keyClick(tab.editor.content, Qt.Key_S, Qt.ControlModifier)

    (_t, text, info), _ = answer_modal(qtbot, save, key=Qt.Key_Return)
    assert "changed outside" in text and "Theirs from the CLI" in info
    assert seeded.get(a).content == "Theirs from the CLI"
    with wait_write(qtbot, tab):
        answer_modal(qtbot, save, button_text="Save mine over it")
    assert seeded.get(a).content == "Mine from the app"
    # undo puts back what was stored (theirs), not the version the typing started from
    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    assert seeded.get(a).content == "Theirs from the CLI"

"""Issue 36, the app round three: quitting never drops unsaved typing, Cancel leaves the
highlighted row on the fact in the editor, search results keep their selection across a
write, and the first run's demo shows real progress."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, open_tab


def _row_click(qtbot, tab, fid):
    r = tab.model.row_of(fid)
    rect = tab.table.visualRect(tab.model.index(r, 0))
    qtbot.mouseClick(tab.table.viewport(), Qt.LeftButton, pos=rect.center())


def _type(qtbot, tab, text):
    ed = tab.editor.content
    ed.setFocus()
    ed.selectAll()
    qtbot.keyClicks(ed, text)


def _ctrl_q(qtbot, window):
    def press():
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        qtbot.keyClick(window.tabs, Qt.Key_Q, Qt.ControlModifier)

    return press


# 1. quitting with unsaved typing asks first ------------------------------------------------


def test_ctrl_q_with_unsaved_typing_asks_and_cancel_keeps_the_app_and_the_typing(
    window, seeded, qtbot
):
    tab = open_tab(window, "claude")
    a = tab.model.id_at(0)
    before = seeded.get(a).content
    _row_click(qtbot, tab, a)
    _type(qtbot, tab, "Typed just before quitting")
    (title, text, _i), _ = answer_modal(qtbot, _ctrl_q(qtbot, window), key=Qt.Key_Escape)
    assert title == "Unsaved changes" and f"#{a}" in text
    assert window.isVisible(), "Cancel keeps Engram open"
    assert tab.editor.content.toPlainText() == "Typed just before quitting"
    assert seeded.get(a).content == before
    # the close button (no tray: it quits) asks too, and Save writes the typing
    answer_modal(qtbot, window.close, button_text="Save")
    assert not window.isVisible()
    assert seeded.get(a).content == "Typed just before quitting"


def test_tray_quit_while_hidden_shows_the_window_and_asks(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    a = tab.model.id_at(0)
    before = seeded.get(a).content
    _row_click(qtbot, tab, a)
    _type(qtbot, tab, "Typed, then the window went to the tray")
    window.hide()
    answer_modal(qtbot, window.tray.act_quit.trigger, button_text="Cancel")
    assert window.isVisible() and window.tabs.currentWidget() is tab
    assert tab.editor.content.toPlainText() == "Typed, then the window went to the tray"
    window.hide()
    answer_modal(qtbot, window.tray.act_quit.trigger, button_text="Discard")
    assert seeded.get(a).content == before

"""Issue 36, the app round three: quitting never drops unsaved typing, Cancel leaves the
highlighted row on the fact in the editor, search results keep their selection across a
write, and the first run's demo shows real progress."""

from __future__ import annotations

from PySide6.QtCore import Qt
from shiboken6 import isValid
from tests_gui_helpers import answer_modal, click_row, open_tab, type_over, wait_write


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
    click_row(qtbot, tab, a)
    type_over(qtbot, tab, "Typed just before quitting")
    (title, text, _i), _ = answer_modal(qtbot, _ctrl_q(qtbot, window), button_text="Cancel")
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
    click_row(qtbot, tab, a)
    type_over(qtbot, tab, "Typed, then the window went to the tray")
    window.hide()
    answer_modal(qtbot, window.tray.act_quit.trigger, button_text="Cancel")
    assert window.isVisible() and window.tabs.currentWidget() is tab
    assert tab.editor.content.toPlainText() == "Typed, then the window went to the tray"
    window.hide()
    answer_modal(qtbot, window.tray.act_quit.trigger, button_text="Discard")
    assert seeded.get(a).content == before


# 3. Cancel in the unsaved-changes prompt leaves the highlighted row on the edited fact -----


def _cancel_each_prompt(qtbot, act) -> list[str]:
    """Run ``act`` answering every unsaved-changes prompt with Cancel; returns their texts
    (a user asked twice for one key press would see two)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    asked: list[str] = []
    state = {"on": True}

    def poll():
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.windowTitle() == "Unsaved changes":
            asked.append(box.text())
            box.button(QMessageBox.Cancel).click()
        if state["on"]:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)
    act()
    qtbot.wait(100)  # the view's own handling of the event ends after the prompt
    state["on"] = False
    qtbot.wait(50)
    return asked


def _highlighted(table):
    """The rows a user sees highlighted, and the row with the focus frame (where Down goes)."""
    rows = sorted({i.row() for i in table.selectionModel().selectedRows()})
    return rows, table.currentIndex().row()


def test_down_arrow_then_cancel_keeps_the_highlight_on_the_edited_fact(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    a = tab.model.id_at(0)
    click_row(qtbot, tab, a)
    type_over(qtbot, tab, "Typed, then Down")
    tab.table.setFocus()
    asked = _cancel_each_prompt(qtbot, lambda: qtbot.keyClick(tab.table, Qt.Key_Down))
    assert asked == [f"Fact #{a} has changes you have not saved."], "asked once"
    assert tab.editor.fact.id == a
    assert _highlighted(tab.table) == ([0], 0), "the highlight is the fact in the editor"
    assert tab.selected_ids() == [a]


def _search(qtbot, tab, text):
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        qtbot.keyClicks(tab.search.query, text)
    assert tab.stack.currentIndex() == 1 and tab.search.model.rowCount() >= 2


def _hit_click(qtbot, tab, row):
    rect = tab.search.table.visualRect(tab.search.model.index(row, 1))
    qtbot.mouseClick(tab.search.table.viewport(), Qt.LeftButton, pos=rect.center())


def test_cancel_in_search_results_keeps_the_highlight_on_the_edited_fact(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    _search(qtbot, tab, "Memory number")
    _hit_click(qtbot, tab, 0)
    a = tab.search.model.hits[0][1].fact.id
    assert tab.editor.fact.id == a
    type_over(qtbot, tab, "Typed on a search result")
    asked = _cancel_each_prompt(qtbot, lambda: _hit_click(qtbot, tab, 1))
    assert len(asked) == 1
    assert tab.editor.fact.id == a
    assert _highlighted(tab.search.table) == ([0], 0)
    assert tab.selected_ids() == [a]


# 4. search results keep their selection across Save and Pin, and show Pinned ---------------


def test_search_results_keep_the_selection_after_save_and_pin(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    _search(qtbot, tab, "Memory number")
    row = next(i for i, (_s, h) in enumerate(tab.search.model.hits) if not h.fact.pinned)
    a = tab.search.model.hits[row][1].fact.id
    _hit_click(qtbot, tab, row)
    type_over(qtbot, tab, "Memory number edited in the search results")
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        with wait_write(qtbot, tab):
            qtbot.mouseClick(tab.editor.save_btn, Qt.LeftButton)
    assert seeded.get(a).content == "Memory number edited in the search results"
    assert tab.selected_ids() == [a], "Save keeps the saved fact selected"
    assert tab.editor.fact is not None and tab.editor.fact.id == a
    assert "No fact selected" not in tab.editor.title.text()
    # Ctrl+P works on it, and then again the selection stays
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    assert window.act_pin.isEnabled()
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        with wait_write(qtbot, tab):
            qtbot.keyClick(tab.search.table, Qt.Key_P, Qt.ControlModifier)
    assert seeded.get(a).pinned
    assert tab.selected_ids() == [a] and tab.editor.fact.id == a
    assert tab.editor.pinned.isChecked()
    # the results show which facts are pinned
    cols = tab.search.model.cols
    assert "Pinned" in cols
    now = next(i for i, (_s, h) in enumerate(tab.search.model.hits) if h.fact.id == a)
    assert tab.search.model.index(now, cols.index("Pinned")).data() == "★"


# 2. removing an agent while its tab is still loading ----------------------------------------


def test_remove_agent_while_its_tab_loads_does_not_crash(window, seeded, qtbot, monkeypatch):
    import threading

    import ui.agent_tab_views as agent_tab_views

    # the tab's category/tag count (a read over the real store) is held open until the
    # agent is gone, as a slow read over a large store would be: only its timing is changed
    gate = threading.Event()
    real = agent_tab_views.tag_counts

    def slow_tag_counts(memory):
        gate.wait(20)
        return real(memory)

    monkeypatch.setattr(agent_tab_views, "tag_counts", slow_tag_counts)
    tab = open_tab(window, "claude")
    assert any(j.title == "Counting categories" for j in window.runner._jobs.values())
    with qtbot.waitSignal(window.agents_changed, timeout=15000):
        answer_modal(qtbot, window.act_remove_agent.trigger, button_text="Remove claude")
    assert "claude" not in window.agent_tabs
    qtbot.waitUntil(lambda: not isValid(tab), timeout=5000)  # the tab's widgets are gone
    gate.set()  # the read ends after its tab went
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)
    qtbot.wait(50)
    # no exception reached the event loop (pytest-qt fails the test on one: the crash dialog)
    assert "Removed agent claude" in window.notice.text()
    assert [t.slug for t in window.engram.trashed_agents()] == ["claude"]


# 8. the first run's demo progress counts up -------------------------------------------------


def test_demo_progress_counts_the_agents_as_they_are_written(engram, qtbot):
    from ui.main_window import MainWindow

    MainWindow.demo_facts = 20  # a small demo; the real one is 300 facts
    w = MainWindow(engram, use_tray=False, demo_if_empty=True)
    qtbot.addWidget(w, before_close_func=lambda w: w.shutdown())
    try:
        w.show()
        bar = w.startup_ctl.welcome.progress
        shown: list[str] = []
        # after the window's own slot: what the bar reads while the demo is written
        w.runner.job_progress.connect(lambda *_: shown.append(bar.text()))
        assert bar.text() != "0 of 1"
        with qtbot.waitSignal(w.agents_changed, timeout=60000):
            pass
        assert shown[:4] == ["0 of 4", "1 of 4", "2 of 4", "3 of 4"], shown
        assert "0 of 1" not in shown
    finally:
        MainWindow.demo_facts = 300


# 6. accessibility: every control has a name, labels have buddies, a sane Tab order -----------


def _focusable(root):
    from PySide6.QtWidgets import QWidget

    return [
        w
        for w in root.findChildren(QWidget)
        if w.isVisibleTo(root) and w.focusPolicy() & Qt.TabFocus and w.isEnabled()
    ]


def _unnamed(root):
    return [
        f"{type(w).__name__} {w.objectName() or ''} {getattr(w, 'text', lambda: '')()!r}".strip()
        for w in _focusable(root)
        if not w.accessibleName().strip()
    ]


def test_every_focusable_control_of_the_window_and_an_agent_tab_has_a_name(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    tab.select_ids([tab.model.id_at(0)], current=tab.model.id_at(0))
    tab._sync_editor()
    unnamed = _unnamed(window)
    assert unnamed == [], "\n".join(unnamed)
    fb = tab.filter_bar
    names = [fb.category, fb.tag, fb.type, fb.status, fb.pinned]
    assert all(c.accessibleName() != c.currentText() for c in names)
    assert [c.accessibleName() for c in names] == [
        "Category filter",
        "Tag filter",
        "Type filter",
        "Status filter",
        "Pinned filter",
    ]
    assert tab.editor.importance.accessibleName() == "Importance"
    assert (fb.since.accessibleName(), fb.until.accessibleName()) == (
        "Created from",
        "Created until",
    )


def test_tab_walks_the_section_tabs_before_the_list_and_skips_the_scroll_area(
    window, seeded, qtbot
):
    from PySide6.QtWidgets import QScrollArea

    tab = open_tab(window, "claude")
    tab.search.query.setFocus()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    seen = []
    tab.views.tabBar().setFocus()
    for _ in range(40):  # Tab from the section tabs, as a keyboard user goes round the page
        w = window.focusWidget()
        seen.append(w)
        qtbot.keyClick(w, Qt.Key_Tab)
    assert tab.views.tabBar() in seen and tab.table in seen
    assert seen.index(tab.table) > 0, "the section tabs come before the fact list"
    assert not [w for w in seen if isinstance(w, QScrollArea)], "no unnamed scroll area stop"
    # Shift+Tab from the search field reaches the section tabs before leaving the tab
    tab.search.query.setFocus()
    qtbot.keyClick(tab.search.query, Qt.Key_Backtab)
    assert window.focusWidget() is tab.views.tabBar()


# seen on the screenshot under Xvfb: the results' rows were taller than the list's ------------


def test_search_results_rows_match_the_fact_list_and_centre_the_pin(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    list_row = tab.table.rowHeight(0)
    _search(qtbot, tab, "Memory number")
    assert tab.search.table.rowHeight(0) == list_row
    col = tab.search.model.cols.index("Pinned")
    align = tab.search.model.index(0, col).data(Qt.ItemDataRole.TextAlignmentRole)
    assert align == int(Qt.AlignmentFlag.AlignCenter)


def test_the_editor_fits_a_900_by_600_window(window, seeded, qtbot):
    window.resize(900, 600)
    tab = open_tab(window, "claude")
    click_row(qtbot, tab, tab.model.id_at(0))
    qtbot.wait(50)
    for w in (tab.editor.pinned, tab.editor.save_btn, tab.editor.revert_btn):
        assert w.width() >= w.sizeHint().width(), f"{w.text()!r} is cut off"

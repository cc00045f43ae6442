"""The status bar at a small window size: a compile summary beside the Undo notice and the
job bar is cut with "…", not clipped mid-word, and is whole in the bar's tooltip."""

from __future__ import annotations

from tests_gui_helpers import open_tab, wait_write


def test_a_long_compile_summary_fits_beside_the_undo_notice_at_900px(window, seeded, qtbot):
    window.resize(900, 600)
    tab = open_tab(window, "claude")
    tab.table.selectRow(0)
    with wait_write(qtbot, tab):
        tab.delete_selected(confirm=False)
    qtbot.waitUntil(window.notice.isVisible, timeout=5000)

    summary = (
        "claude: today 126/2000, this week 840/4000, long-term 1208/6000, "
        "memory.md 1714/2500 tokens"
    )
    window.tray.compiled.emit(summary)  # what a finished compile says (ui/tray.py)
    bar = window.statusBar()
    shown = bar.currentMessage()
    assert shown.startswith("Compile: claude: today 126/2000")
    assert shown.endswith("…") and shown != f"Compile: {summary}"
    room = (
        bar.width()
        - window.notice.width()
        - (window.jobs.width() if window.jobs.isVisible() else 0)
    )
    assert bar.fontMetrics().horizontalAdvance(shown) < room
    assert bar.toolTip() == f"Compile: {summary}"

    window.resize(1600, 900)
    window.show_message("Compiled 3 agents")  # a short one: whole, no tooltip needed
    assert bar.currentMessage() == "Compiled 3 agents" and bar.toolTip() == ""

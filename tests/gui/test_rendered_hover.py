"""The Rendered view of the compiled memory.md says, on hover, which facts made the line
under the mouse (the layer's provenance), as the view's header promises."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QToolTip
from tests_gui_helpers import open_tab

from services import CompileService
from ui.compiled_view import line_key


def _hover(qtbot, view, pos: QPoint) -> None:
    """The mouse rests at ``pos``: Qt sends the viewport a tool-tip event there."""
    vp = view.viewport()
    qtbot.mouseMove(vp, pos)
    QApplication.sendEvent(vp, QHelpEvent(QEvent.Type.ToolTip, pos, vp.mapToGlobal(pos)))


def test_hovering_a_rendered_line_shows_the_facts_behind_it(window, seeded, qtbot):
    CompileService(seeded).compile()
    tab = open_tab(window, "claude")
    tab.show_view("Compiled")
    assert "Hover a line of the Rendered view" in tab.compiled.notice.text()
    pane = tab.compiled.panes["memory"]
    assert pane.views.currentWidget() is pane.rendered
    # a line that facts made, and the block it renders to
    sourced = {
        line_key(pane.lines.item(r).text()): pane.facts_of_line(r)
        for r in range(pane.lines.count())
        if pane.facts_of_line(r)
    }
    doc = pane.rendered.document()
    block = doc.begin()
    while block.isValid() and line_key(block.text()) not in sourced:
        block = block.next()
    assert block.isValid(), "no rendered line matches a sourced line"
    ids = sourced[line_key(block.text())]
    cursor = QTextCursor(block)
    pane.rendered.setTextCursor(cursor)
    pane.rendered.ensureCursorVisible()
    rect = pane.rendered.cursorRect(cursor)
    _hover(qtbot, pane.rendered, rect.center() + QPoint(4, 0))
    qtbot.waitUntil(QToolTip.isVisible, timeout=5000)
    tip = QToolTip.text()
    assert tip.startswith("From fact"), tip
    assert f"#{ids[0]}" in tip
    first = seeded.get(ids[0]).content
    assert f"#{ids[0]}: {first[:40]}" in tip
    # a heading no fact made has no sources
    heading = doc.begin()
    while heading.isValid() and line_key(heading.text()) in sourced:
        heading = heading.next()
    c2 = QTextCursor(heading)
    pane.rendered.setTextCursor(c2)
    pane.rendered.ensureCursorVisible()
    assert pane.rendered_sources_at(pane.rendered.cursorRect(c2).center()) == ""
    QToolTip.hideText()

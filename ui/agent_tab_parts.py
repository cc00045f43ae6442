"""What one agent's tab is made of: its signals and parts, declared once for the classes that
make up the tab (ui/agent_tab_*.py, one concern each, each building on the one before)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QWidget,
)

from ui.archived_view import ArchivedView
from ui.compiled_view import CompiledView
from ui.entities_view import EntitiesView
from ui.fact_editor import FactEditor
from ui.fact_model import FactTableModel
from ui.filter_bar import FilterBar
from ui.review_view import ReviewView
from ui.search_panel import SearchPanel
from ui.stats_view import StatsView
from ui.timeline import TimelineView

VIEWS = ["Facts", "Timeline", "Compiled", "Statistics", "Review", "Archived"]
REVIEW, ARCHIVED = 4, 5


class TabParts(QWidget):
    write_done = Signal(str, list)  # kind (edit|delete|restore), fact ids — after the refresh
    refreshed = Signal()
    message = Signal(str)
    compile_requested = Signal(str)  # slug
    first_paint = Signal()
    selection_changed = Signal()  # what the actions act on changed
    badge_changed = Signal()  # the review count changed
    # "Deleted 4 facts", True: it can be undone (False: redone), the command (the step)
    confirmed = Signal(str, bool, object)

    # made by AgentTab's builders (ui/agent_tab.py)
    engram: object
    memory: Any
    runner: Any
    undo_stack: QUndoStack
    filter_bar: FilterBar
    search: SearchPanel
    model: FactTableModel
    table: QTableView
    stack: QStackedWidget
    editor: FactEditor
    splitter: QSplitter
    count_label: QLabel
    pin_btn: QPushButton
    unpin_btn: QPushButton
    recat_btn: QPushButton
    delete_btn: QPushButton
    empty_hint: QLabel
    timeline: TimelineView
    compiled: CompiledView
    stats: StatsView
    review: ReviewView
    archived: ArchivedView
    views: QTabWidget
    entities: EntitiesView
    review_count: int
    _loaded: set[int]
    _restore: tuple | None
    _after_reload: list

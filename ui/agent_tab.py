"""One agent's tab: fact browser (filter, search, edit, bulk actions), timeline, compiled
memory and statistics. Writes go through undoable commands on the runner's serial lane.

This module builds the tab; what it does is in the classes it builds on, one concern a
module: TabParts (its signals and parts) → TabSelection → TabWrites → TabViews."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QStyle,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ui.a11y import set_name
from ui.agent_tab_parts import VIEWS
from ui.agent_tab_views import TabViews
from ui.archived_view import ArchivedView
from ui.compiled_view import CompiledView
from ui.entities_view import EntitiesView
from ui.fact_editor import FactEditor
from ui.fact_model import FactTableModel
from ui.filter_bar import FilterBar
from ui.review_view import ReviewView
from ui.search_panel import SearchPanel
from ui.stats_view import StatsView
from ui.theme import icon
from ui.timeline import TimelineView

__all__ = ["VIEWS", "AgentTab"]


class AgentTab(TabViews):
    """Built here; its behaviour comes from the classes it builds on (ui/agent_tab_*.py)."""

    def __init__(self, engram, memory, runner, parent=None):
        super().__init__(parent)
        self.engram, self.memory, self.runner = engram, memory, runner
        self.undo_stack = QUndoStack(self)
        self._painted = False
        self._build_table(engram, memory, runner)
        self._build_split()
        bulk = self._build_bulk()
        facts_page = self._build_facts_page(bulk)
        self._build_views(memory, runner, facts_page)
        self._wire()
        self._update_count()
        self._update_bulk()
        self._set_tab_order()

    # building the tab ----------------------------------------------------------------------
    def _build_table(self, engram, memory, runner) -> None:
        """The facts page's filter bar, search panel, model and table."""
        self.filter_bar = FilterBar()
        self.search = SearchPanel(
            engram, runner, memory, filters=self.filter_bar.filters, parent=self
        )
        self.search.hide()
        self.model = FactTableModel(memory, self, filters=self.filter_bar.filters(), runner=runner)
        self.model.reloaded.connect(self._on_reloaded)
        # a sort or a filter reloads too: the selection survives it like a refresh
        self.model.modelAboutToBeReset.connect(self._remember_selection)
        self.model.load_failed.connect(self.message)
        self._restore: tuple | None = None  # selection to put back after a reload
        self._after_reload: list = []
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(f"Facts of {memory.info.name}")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        # indicator first: enabling sorting re-sorts by the indicator (a 1M-row query if it
        # differed from the model's order)
        self.table.horizontalHeader().setSortIndicator(5, Qt.SortOrder.DescendingOrder)
        self.table.setSortingEnabled(True)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.setContextMenuPolicy(Qt.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        h.setMinimumSectionSize(40)
        fm = self.fontMetrics()
        widths = {
            1: "proj:engram",
            2: "procedural",
            3: "Importance",
            4: "Pinned",
            5: "2026-11-30",
            6: "Last accessed",
            7: "superseded",
        }
        for col, sample in widths.items():
            h.resizeSection(col, fm.horizontalAdvance(sample) + 16)
        self.table.viewport().installEventFilter(self)
        self.table.installEventFilter(self)
        bar = self.table.verticalScrollBar()
        bar.sliderMoved.connect(self._on_slider_moved)
        bar.sliderReleased.connect(lambda: self._on_slider_moved(bar.sliderPosition()))

    def _build_split(self) -> None:
        """The table (or the search results) beside the fact editor."""
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.search.results)
        self.editor = FactEditor()
        self.editor.setMinimumWidth(self.fontMetrics().horizontalAdvance("x") * 34)
        self.editor.edit_requested.connect(self._on_edit_requested)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.stack)
        # scrolls instead of forcing the window taller than 600 px
        editor_scroll = QScrollArea()
        editor_scroll.setWidget(self.editor)
        editor_scroll.setWidgetResizable(True)
        editor_scroll.setFrameShape(QScrollArea.NoFrame)
        editor_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        # only its content takes the focus: the frame was an unnamed Tab stop
        editor_scroll.setFocusPolicy(Qt.NoFocus)
        set_name(editor_scroll, "Fact editor")
        editor_scroll.setMinimumWidth(
            self.editor.minimumWidth() + self.style().pixelMetric(QStyle.PM_ScrollBarExtent)
        )
        split.addWidget(editor_scroll)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([980, 340])
        split.setChildrenCollapsible(False)
        self.splitter = split

    def _build_bulk(self) -> QHBoxLayout:
        """The count and the buttons that act on the selected facts."""
        self.count_label = QLabel("")
        self.pin_btn = QPushButton("Pin")
        self.pin_btn.setToolTip("Pin the selected facts (Ctrl+P)")
        self.unpin_btn = QPushButton("Unpin")
        self.unpin_btn.setToolTip("Unpin the selected facts (Ctrl+Shift+P)")
        self.recat_btn = QPushButton("Category…")
        self.recat_btn.setToolTip("Move the selected facts to another category (Ctrl+K)")
        self.delete_btn = QPushButton("Delete")
        self.delete_btn.setToolTip("Delete the selected facts (Del); Ctrl+Z brings them back")
        self.pin_btn.setIcon(icon("pin"))
        self.delete_btn.setIcon(icon("delete"))
        self.pin_btn.clicked.connect(self.pin_selected)
        self.unpin_btn.clicked.connect(self.unpin_selected)
        self.recat_btn.clicked.connect(self.recategorize_selected)
        self.delete_btn.clicked.connect(lambda: self.delete_selected())  # clicked(False) ≠ confirm
        bulk = QHBoxLayout()
        bulk.addWidget(self.count_label, 1)
        for b, text in (
            (self.pin_btn, "Pin selected facts"),
            (self.unpin_btn, "Unpin selected facts"),
            (self.recat_btn, "Change category of selected facts"),
            (self.delete_btn, "Delete selected facts"),
        ):
            set_name(b, text)
            b.setFocusPolicy(Qt.TabFocus)
            bulk.addWidget(b)
        return bulk

    def _build_facts_page(self, bulk: QHBoxLayout) -> QWidget:
        """Search, the empty-store hint, filters, table and editor, bulk buttons."""
        self.empty_hint = QLabel(
            "<b>No memories here yet.</b> Import this agent's memory files or folders "
            "(File → Import, Ctrl+I), add a fact yourself (Edit → Add fact, Ctrl+Shift+N), "
            "or install the agent's hooks so it remembers as it works (see the README)."
        )
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setTextFormat(Qt.RichText)
        self.empty_hint.hide()
        facts_page = QWidget()
        fl = QVBoxLayout(facts_page)
        fl.addWidget(self.search.bar)
        fl.addWidget(self.empty_hint)
        fl.addWidget(self.filter_bar)
        fl.addWidget(self.splitter, 1)
        fl.addLayout(bulk)
        return facts_page

    def _build_views(self, memory, runner, facts_page: QWidget) -> None:
        """The other views (loaded the first time they are shown) in tabs beside Facts."""
        self.timeline = TimelineView(memory)
        self.compiled = CompiledView(memory)
        self.compiled.compile_requested.connect(self._compile_me)
        self.compiled.open_facts.connect(self.show_facts)
        self.stats = StatsView(memory, runner)
        self.review = ReviewView(memory, runner)
        self.review.count_changed.connect(self._review_badge)
        self.review.decided.connect(self._on_review_decided)
        self.review.decided_step.connect(self._on_review_step)
        self.archived = ArchivedView(memory, runner)
        self.archived.restored.connect(self._on_restored)
        self.views = QTabWidget()
        self.views.setDocumentMode(True)
        pages = (facts_page, self.timeline, self.compiled, self.stats, self.review, self.archived)
        for w, name in zip(pages, VIEWS):
            self.views.addTab(w, name)
        self.entities = EntitiesView(memory, runner)  # loads itself when shown
        self.entities.undo_stack = self.undo_stack
        self.entities.step.connect(self._on_entity_step)
        self.entities.step_done.connect(
            lambda cmd, undone: self.confirmed.emit(cmd.text(), not undone, cmd)
        )
        self.views.addTab(self.entities, "Entities")
        set_name(self.views, f"Views of {memory.info.name}")
        set_name(self.views.tabBar(), f"Views of {memory.info.name}")
        self.review_count = 0
        self._loaded: set[int] = {0}
        self.views.currentChanged.connect(self._on_view_changed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.views)

    def _wire(self) -> None:
        self.filter_bar.changed.connect(self._on_filters)
        self.search.query_changed.connect(self._on_query)
        self.search.hit_activated.connect(self._on_hit)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        self.search.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.search.table.installEventFilter(self)
        self.search.table.viewport().installEventFilter(self)
        self.search.results_ready.connect(lambda _n: self._sync_editor())

    def _set_tab_order(self) -> None:
        # tab order: views (Facts, Timeline…) → search → modes → filters → table → editor →
        # bulk buttons (Tab leaves the tables instead of walking their cells); the views'
        # tabs came last, after everything on the page they switch
        self.table.setTabKeyNavigation(False)
        self.search.table.setTabKeyNavigation(False)
        fb = self.filter_bar
        chain = [
            self.views.tabBar(),
            self.search.query,
            *self.search.mode_buttons.values(),
            self.search.more_btn,
            fb.category,
            fb.type,
            fb.status,
            fb.pinned,
            fb.tag,
            fb.use_dates,
            fb.since,
            fb.until,
            fb.clear_btn,
            self.table,
            self.search.table,
            self.editor.content,
            self.editor.category,
            self.editor.importance,
            self.editor.tags,
            self.editor.pinned,
            self.editor.revert_btn,
            self.editor.save_btn,
            self.editor.history,
            self.pin_btn,
            self.unpin_btn,
            self.recat_btn,
            self.delete_btn,
        ]
        for a, b in zip(chain, chain[1:]):
            QWidget.setTabOrder(a, b)

    def resizeEvent(self, ev) -> None:
        """Narrow (900 px): Type and Last accessed make room for the content column, which
        was squeezed to a few letters."""
        narrow = ev.size().width() < 1150
        self._narrow = narrow
        self._fit_columns()
        became = ev.oldSize().width() >= 1150 or ev.oldSize().width() < 0
        if narrow and became and not getattr(self, "_split_restored", False):
            # the list gets two thirds: the editor scrolls, the content column must not
            w = ev.size().width()
            self.splitter.setSizes([int(w * 0.66), w - int(w * 0.66)])
        super().resizeEvent(ev)

    def restore_layout(self, splitter, columns) -> None:
        """The editor split and column widths the user left last time (QSettings)."""
        if splitter is not None:
            self._split_restored = self.splitter.restoreState(splitter)
        if columns is not None:
            h = self.table.horizontalHeader()
            h.restoreState(columns)
            # the model's order, not the saved one
            h.setSortIndicator(5, Qt.SortOrder.DescendingOrder)

    # first paint (the benchmark's "time to first page") -----------------------------------
    def eventFilter(self, obj, ev):
        if self._holding is not None and ev.type() in (
            QEvent.Type.MouseButtonPress,
            QEvent.Type.KeyPress,
        ):
            self._release_hold(self._holding)  # a new click or key: a new choice, ask again
        if not self._painted and ev.type() == QEvent.Paint and obj is self.table.viewport():
            self._painted = True
            self.first_paint.emit()
        return False

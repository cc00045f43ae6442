"""One agent's tab: fact browser (filter, search, edit, bulk actions), timeline, compiled
memory and statistics. Writes go through undoable commands on the runner's serial lane."""

from __future__ import annotations

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    QItemSelectionModel,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QMessageBox,
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

from services import EngramError, FactFilters, agent_stats, tag_counts
from ui.a11y import set_name
from ui.archived_view import ArchivedView
from ui.compiled_view import CompiledView
from ui.entities_view import EntitiesView
from ui.fact_editor import FactEditor
from ui.fact_model import COLUMNS, FactTableModel
from ui.filter_bar import CATEGORIES, FilterBar
from ui.review_view import ReviewView
from ui.search_panel import SearchPanel
from ui.stats_view import StatsView
from ui.theme import icon
from ui.timeline import TimelineView
from ui.undo import (
    AddFactCommand,
    DeleteFactsCommand,
    EditFactsCommand,
    ReviewDecisionCommand,
    pin_command,
    recategorize_command,
)

VIEWS = ["Facts", "Timeline", "Compiled", "Statistics", "Review", "Archived"]
REVIEW, ARCHIVED = 4, 5


class AgentTab(QWidget):
    write_done = Signal(str, list)  # kind (edit|delete|restore), fact ids — after the refresh
    refreshed = Signal()
    message = Signal(str)
    compile_requested = Signal(str)  # slug
    first_paint = Signal()
    selection_changed = Signal()  # what the actions act on changed
    badge_changed = Signal()  # the review count changed
    # "Deleted 4 facts", True: it can be undone (False: redone), the command (the step)
    confirmed = Signal(str, bool, object)

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

    def _fit_columns(self) -> None:
        """Narrow: Type, Last accessed and (while only active facts are listed) Status and
        Pinned give their room to Content; pinned facts stay bold in Content."""
        narrow = getattr(self, "_narrow", False)
        only_active = self.filter_bar.filters().status in (None, ["active"])
        for col in (2, 6):
            self.table.setColumnHidden(col, narrow)
        for col in (4, 7):
            self.table.setColumnHidden(col, narrow and only_active)

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

    # views ---------------------------------------------------------------------------------
    @Slot(int)
    def _on_view_changed(self, i: int) -> None:
        self._update_bulk()
        if i not in self._loaded:
            self._loaded.add(i)
            self._reload_view(i)

    def _reload_view(self, i: int) -> None:
        if i == 1:
            self.timeline.reload()
        elif i == 2:
            self.compiled.reload()
        elif i == 3:
            self.stats.reload()
        elif i == REVIEW:
            self.review.reload()
        elif i == ARCHIVED:
            self.archived.reload()
        elif self.views.widget(i) is self.entities:  # shown while a write changed the links
            self.entities.reload()

    def update_review_count(self) -> None:
        self._review_badge(self.memory.review.count())

    @Slot(int)
    def _review_badge(self, n: int) -> None:
        """The count on the Review view's tab (and, through ``review_count``, the agent's)."""
        self.review_count = n
        self.views.setTabText(REVIEW, f"Review ({n})" if n else "Review")
        self.views.setTabToolTip(REVIEW, f"{n} memories wait for your review" if n else "")
        self.badge_changed.emit()

    @Slot(str, list)
    def _on_review_decided(self, what: str, ids: list) -> None:
        verb = {
            "accept": "Accepted",
            "reject": "Rejected and erased",
            "edit": "Edited and accepted",
            "not_now": "Hid",
        }[what]
        where = {
            "accept": "agents can use them now",
            "edit": "agents can use it now",
            "reject": "their text is gone everywhere (see the receipt in Privacy)",
            "not_now": "kept, agents will not see them",
        }[what]
        self.message.emit(f"{verb} {len(ids)} memory(ies): {where}")
        self.refresh()

    @Slot(str, object, object)
    def _on_review_step(self, what: str, before: dict, after: dict) -> None:
        """The decision is one undo step; the notice says what it did."""
        cmd = ReviewDecisionCommand(
            self.memory, self.runner, what, before, after, self._review_undone, self._write_failed
        )
        self.undo_stack.push(cmd)
        self._after_write("edit", list(after), cmd.done_text(), False, cmd)

    def _on_entity_step(self, cmd) -> None:
        self.undo_stack.push(cmd)
        self.confirmed.emit(cmd.text(), True, cmd)

    def _review_undone(self, kind, ids, title, undone, step) -> None:
        self.review.reload()
        self._after_write(kind, ids, title, undone, step)

    @Slot(list)
    def _on_restored(self, ids: list) -> None:
        self.message.emit(f"Restored {len(ids)} fact(s); they are active again")
        self.refresh()

    def show_view(self, name: str) -> None:
        self.views.setCurrentIndex(VIEWS.index(name))

    @Slot()
    def _compile_me(self) -> None:
        self.compile_requested.emit(self.memory.slug)

    # selection: the editor and every action follow the shown view's selection ----------
    def _view_ids(self) -> list[int]:
        """The facts selected in the list on show (the table, or the search results)."""
        if self.stack.currentIndex() == 1:
            rows = self.search.table.selectionModel().selectedRows()
            hits = self.search.model.hits
            return [hits[r.row()][1].fact.id for r in rows if r.row() < len(hits)]
        rows = sorted(r.row() for r in self.table.selectionModel().selectedRows())
        return [i for i in (self.model.id_at(r) for r in rows) if i is not None]

    def _current_id(self) -> int | None:
        if self.stack.currentIndex() == 1:
            cur = self.search.table.currentIndex()
            hits = self.search.model.hits
            return hits[cur.row()][1].fact.id if cur.isValid() and cur.row() < len(hits) else None
        cur = self.table.currentIndex()
        return self.model.id_at(cur.row()) if cur.isValid() else None

    def selected_ids(self) -> list[int]:
        """What an action acts on: nothing unless the facts list is the view on show."""
        return self._view_ids() if self.views.currentIndex() == 0 else []

    def selected_facts(self):
        ids = self.selected_ids()
        rows = self.memory.facts.rows(ids)
        return [rows[i] for i in ids if i in rows]

    def select_ids(self, ids, current: int | None = None) -> None:
        sm = self.table.selectionModel()
        sel = QItemSelection()
        for fid in ids:
            r = self.model.row_of(fid)
            if r is not None:
                sel.select(self.model.index(r, 0), self.model.index(r, len(COLUMNS) - 1))
        sm.select(sel, QItemSelectionModel.ClearAndSelect)
        if current is not None and self.model.row_of(current) is not None:
            sm.setCurrentIndex(
                self.model.index(self.model.row_of(current), 0), QItemSelectionModel.NoUpdate
            )

    def show_fact(self, fact_id: int) -> None:
        """Select a fact (from the All agents tab, a compiled line, a review item) in the list:
        the row is highlighted *and* in the editor. A search or a filter hiding it is
        cleared first."""
        self.views.setCurrentIndex(0)
        if self.search.query.text():
            self.search.query.clear()
        if self.model.row_of(fact_id) is None and not self._is_default_filter():
            self._after_reload.append(lambda: self._select_fact(fact_id))
            self.filter_bar.clear()
            return
        self._select_fact(fact_id)

    @Slot(list)
    def show_facts(self, ids: list) -> None:
        """Open the facts behind a compiled line: one is opened, several are selected."""
        ids = [int(i) for i in ids]
        if len(ids) == 1:
            self.show_fact(ids[0])
            return
        self.views.setCurrentIndex(0)
        if self.search.query.text():
            self.search.query.clear()

        def select():
            self.select_ids(ids, current=ids[0])
            self._sync_editor()

        if any(self.model.row_of(i) is None for i in ids) and not self._is_default_filter():
            self._after_reload.append(select)
            self.filter_bar.clear()
            return
        select()

    def _is_default_filter(self) -> bool:
        f = self.filter_bar.filters()
        plain = not (f.category or f.tags or f.memory_type or f.since or f.until)
        plain = plain and f.pinned is None
        return plain and f.status in (None, ["active"])

    def _select_fact(self, fact_id: int) -> None:
        r = self.model.row_of(fact_id)
        if r is None:
            self.table.clearSelection()
            self.message.emit(
                f"Fact #{fact_id} is not in the loaded part of the list: search for it."
            )
            return
        self.table.selectRow(r)
        self.table.scrollTo(self.model.index(r, 0))
        self._sync_editor()

    @Slot(QItemSelection, QItemSelection)
    def _on_selection(self, *_):
        self._sync_editor()

    @Slot("QModelIndex", "QModelIndex")
    def _on_current(self, _cur, _prev) -> None:
        self._sync_editor()

    def _sync_editor(self, reload: bool = False) -> None:
        """Show the current selected fact (or the first selected one); nothing selected,
        nothing in the editor, and the actions are off."""
        ids = self._view_ids()
        shown = self.editor.fact.id if self.editor.fact is not None else None
        cur = self._current_id()
        want = cur if cur in ids else shown if shown in ids else ids[0] if ids else None
        if want != shown and self.editor.is_dirty():
            if self._holding is not None:  # just answered Cancel: the view is catching up
                self._update_bulk()
                return
            if want is None:  # a search, filter, Clear or sort hid it: keep the typing
                self.editor.note_kept()
                self._update_bulk()
                return
            if not self._resolve_unsaved(shown):
                self._update_bulk()
                return
        if want != shown or (reload and want is not None):
            self._load_editor(want)
        self._update_bulk()

    def _ask_unsaved(self, shown: int | None, stay: str) -> bool | None:
        """Save / Discard / Cancel for the editor's unsaved typing (the default: Enter or Esc
        lose nothing). True: saved or discarded; None: Cancel (or a save that did not go,
        e.g. "Changed elsewhere" answered Cancel)."""
        if getattr(self, "_asking", False):
            return None
        box = QMessageBox(
            QMessageBox.Question,
            "Unsaved changes",
            f"Fact #{shown} has changes you have not saved.",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel,
            self,
        )
        box.setInformativeText(f"Save them, discard them, or {stay} (Cancel).")
        box.setDefaultButton(QMessageBox.Cancel)
        box.setEscapeButton(QMessageBox.Cancel)
        self.unsaved_box = box
        self._asking = True
        try:
            answer = box.exec()
        finally:
            self._asking = False
            self.unsaved_box = None
        if answer == QMessageBox.Save:
            steps = self.undo_stack.count()
            self.editor.save()
            return True if self.undo_stack.count() > steps else None
        if answer == QMessageBox.Discard:
            self.editor.revert()
            return True
        return None

    def settle_unsaved(self) -> bool:
        """Before quitting: unsaved typing is saved or discarded only when the user says so.
        False: Cancel, the app stays open with the typing."""
        if self.editor.fact is None or not self.editor.is_dirty():
            return True
        return bool(self._ask_unsaved(self.editor.fact.id, "keep Engram open"))

    def _resolve_unsaved(self, shown: int | None) -> bool:
        """Another fact was picked while the editor holds unsaved typing. False: stay on
        ``shown``."""
        if self._ask_unsaved(shown, "stay on the fact"):
            return True
        if shown is not None:
            # the view is still inside the key or click that moved the row: it selects and
            # moves its focus frame again once the prompt returns, so the highlight is put
            # back now and once more when that event is over (no second prompt meanwhile)
            self._holding = shown
            self._put_back(shown)
            QTimer.singleShot(0, self, lambda: self._release_hold(shown))
        return False

    _holding: int | None = None

    def _release_hold(self, shown: int) -> None:
        if self._holding == shown:
            self._put_back(shown)
            self._holding = None

    def _put_back(self, fact_id: int) -> None:
        """Highlight ``fact_id`` (selection and focus frame) in the list on show, quietly."""
        if self.stack.currentIndex() == 1:
            table = self.search.table
            row = self.search.model.row_of(fact_id)
            sm = table.selectionModel()
            sm.blockSignals(True)
            if row is None:
                sm.clearSelection()
            else:
                sm.setCurrentIndex(
                    self.search.model.index(row, 0),
                    QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
            sm.blockSignals(False)
            table.viewport().update()
            return
        sm = self.table.selectionModel()
        sm.blockSignals(True)
        self.select_ids([fact_id], current=fact_id)
        sm.blockSignals(False)
        self.table.viewport().update()

    def _load_editor(self, fact_id: int | None) -> None:
        if fact_id is None:
            self.editor.set_fact(None)
            return
        try:
            fact = self.memory.get(fact_id)
        except EngramError:
            self.editor.set_fact(None)
            return
        self.editor.set_fact(fact, self.memory.facts.history(fact_id))

    @Slot(str, int)
    def _on_hit(self, _slug: str, _fact_id: int) -> None:
        self._sync_editor()

    def pin_states(self) -> tuple[bool, bool]:
        """(something selected is unpinned, something selected is pinned): Pin and Unpin are
        on only when they would change something."""
        ids = self.selected_ids()
        if self.stack.currentIndex() == 1:
            by_id = {h[1].fact.id: h[1].fact for h in self.search.model.hits}
            facts = [by_id.get(i) for i in ids]
        else:
            facts = [self.model.fact_at(r) for r in map(self.model.row_of, ids) if r is not None]
        known = [f for f in facts if f is not None]
        if len(known) < len(ids):  # not all at hand: leave both on, the action checks
            return bool(ids), bool(ids)
        return any(not f.pinned for f in known), any(f.pinned for f in known)

    def _update_bulk(self) -> None:
        n = len(self.selected_ids())
        for b in (self.recat_btn, self.delete_btn):
            b.setEnabled(n > 0)
        can_pin, can_unpin = self.pin_states()
        self.pin_btn.setEnabled(can_pin)
        self.unpin_btn.setEnabled(can_unpin)
        self.delete_btn.setText(f"Delete {n}" if n > 1 else "Delete")
        self.selection_changed.emit()

    @Slot(int)
    def _on_slider_moved(self, pos: int) -> None:
        """Dragging the scrollbar to its end shows the oldest facts: the lazy model's bar
        spans only the rows paged in, so the rest of the ids are read in one query."""
        if pos >= self.table.verticalScrollBar().maximum():
            # the ids are read in a worker; the drag sets the old maximum right after this
            # signal: scroll once the rows are listed and it has
            self.model.fetch_to_end(then=lambda: QTimer.singleShot(0, self.table.scrollToBottom))

    def _update_count(self) -> None:
        total = self.model.total_count()
        f = self.model.filters
        only_active = (
            f.status == ["active"]
            and not f.category
            and not f.tags
            and not f.memory_type
            and f.pinned is None
            and not f.since
            and not f.until
        )
        what = (
            "facts"
            if f.is_empty()
            else "active facts"
            if only_active
            else "facts match the filters"
        )
        self.count_label.setText(f"{total:,} {what}")
        self.empty_hint.setVisible(total == 0 and self._is_default_filter())

    # filters and search ----------------------------------------------------------------------
    @Slot()
    def _on_filters(self) -> None:
        self._fit_columns()
        self.count_label.setText("Loading…")
        self.model.set_filters(self.filter_bar.filters())
        if self.search.query.text().strip():
            self.search.run_now()

    @Slot(str)
    def _on_query(self, text: str) -> None:
        self.stack.setCurrentIndex(1 if text.strip() else 0)
        self._sync_editor()

    def focus_search(self) -> None:
        self.views.setCurrentIndex(0)
        self.search.focus_query()

    # writes ----------------------------------------------------------------------------------
    def _push(self, cmd) -> None:
        self.undo_stack.push(cmd)

    @Slot(int, dict, dict)
    def _on_edit_requested(self, fact_id: int, before: dict, after: dict) -> None:
        if not self._no_conflict(fact_id, before, after):
            return
        self._push(
            EditFactsCommand(
                self.memory,
                self.runner,
                {fact_id: before},
                {fact_id: after},
                self._after_write,
                self._write_failed,
            )
        )

    def _no_conflict(self, fact_id: int, before: dict, after: dict) -> bool:
        """A save over a change made elsewhere meanwhile (the CLI, a hook, another window)
        asks first instead of silently writing over it."""
        try:
            now = self.memory.get(fact_id)
        except EngramError as exc:
            self._write_failed(f"Fact #{fact_id} cannot be saved: {exc}")
            return False
        stored = {k: (list(getattr(now, k)) if k == "tags" else getattr(now, k)) for k in before}
        if "importance" in stored:
            stored["importance"] = round(stored["importance"], 2)
        if stored == before:
            return True
        theirs = (
            now.content if "content" in before else ", ".join(f"{k}: {stored[k]}" for k in stored)
        )
        box = QMessageBox(
            QMessageBox.Warning,
            "Changed elsewhere",
            f"Fact #{fact_id} was changed outside this window since you started editing it.",
            QMessageBox.Cancel,
            self,
        )
        box.setInformativeText(f"It now reads: “{theirs[:300]}”")
        mine = box.addButton("Save mine over it", QMessageBox.AcceptRole)
        box.addButton("Keep theirs", QMessageBox.DestructiveRole)
        box.setDefaultButton(QMessageBox.Cancel)
        box.setEscapeButton(QMessageBox.Cancel)
        self.conflict_box = box
        box.exec()
        self.conflict_box = None
        clicked = box.clickedButton()
        if clicked is mine:
            before.update(stored)  # undo puts back what was stored, not the stale version
            return True
        if clicked is not None and box.buttonRole(clicked) == QMessageBox.DestructiveRole:
            self.editor.revert()
            self._load_editor(fact_id)
        return False

    @Slot()
    def add_fact(self, text: str | None = None, category: str = "fact") -> None:
        """Edit → Add fact: the text passes the write policy like any other write."""
        if text is None:
            text, ok = QInputDialog.getMultiLineText(
                self,
                f"Add a fact to {self.memory.info.name}",
                "What should the agent remember? (one fact; Ctrl+Z takes it back)",
            )
            if not ok:
                return
        text = text.strip()
        if not text:
            return
        if self.search.query.text():
            self.search.query.clear()
        self.views.setCurrentIndex(0)
        self._push(
            AddFactCommand(
                self.memory, self.runner, text, category, self._after_write, self._write_failed
            )
        )

    @Slot()
    def pin_selected(self) -> None:
        facts = [f for f in self.selected_facts() if not f.pinned]
        if facts:
            self._push(
                pin_command(
                    self.memory, self.runner, facts, True, self._after_write, self._write_failed
                )
            )

    @Slot()
    def unpin_selected(self) -> None:
        facts = [f for f in self.selected_facts() if f.pinned]
        if facts:
            self._push(
                pin_command(
                    self.memory, self.runner, facts, False, self._after_write, self._write_failed
                )
            )

    @Slot()
    def recategorize_selected(self, category: str | None = None) -> None:
        facts = self.selected_facts()
        if not facts:
            return
        if not category:
            category, ok = QInputDialog.getText(
                self,
                "Change category",
                f"New category for {len(facts)} fact(s):",
                text=facts[0].category,
            )
            if not ok or not category.strip():
                return
        self._push(
            recategorize_command(
                self.memory,
                self.runner,
                facts,
                category.strip(),
                self._after_write,
                self._write_failed,
            )
        )

    @Slot()
    def delete_selected(self, confirm: bool = True) -> None:
        facts = self.selected_facts()
        if not facts:
            return
        if confirm and len(facts) > 20:
            # Enter never confirms a bulk delete: No is the default
            box = QMessageBox(
                QMessageBox.Question,
                "Delete facts",
                f"Delete {len(facts)} facts? (Ctrl+Z undoes it)",
                QMessageBox.Yes | QMessageBox.No,
                self,
            )
            box.button(QMessageBox.Yes).setText(f"Delete {len(facts)}")
            box.setDefaultButton(QMessageBox.No)
            box.setEscapeButton(QMessageBox.No)
            if box.exec() != QMessageBox.Yes:
                return
        self._push(
            DeleteFactsCommand(
                self.memory, self.runner, facts, self._after_write, self._write_failed
            )
        )

    def _after_write(
        self, kind: str, ids: list, title: str = "", undone: bool = False, step=None
    ) -> None:
        def done():
            if kind == "restore":
                self.select_ids(ids, current=ids[0])
                self._sync_editor(reload=True)
            if self.search.query.text().strip():
                self.search.run_now()
            self._update_bulk()
            if title:
                self.confirmed.emit(title, not undone, step)
            self.write_done.emit(kind, list(ids))

        if kind == "edit":
            self.model.refresh_rows(ids)
            if self.editor.fact is not None and self.editor.fact.id in ids:
                self._load_editor(self.editor.fact.id)
            done()
        else:
            self._after_reload.append(done)
            self.refresh()

    def _write_failed(self, message: str) -> None:
        self.message.emit(message)
        QMessageBox.warning(self, "Engram", message)

    # refresh (the store changed) ---------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the facts keeping the selection, the current row and the scroll position
        (restored when the model has reloaded, see ``_on_reloaded``)."""
        self._remember_selection()
        self.model.refresh()

    @Slot()
    def _remember_selection(self) -> None:
        if self._restore is None:
            ids = self._view_ids() if self.stack.currentIndex() == 0 else []
            cur = self.table.currentIndex()
            cur_id = self.model.id_at(cur.row()) if cur.isValid() else None
            self._restore = (ids, cur_id, self.table.verticalScrollBar().value())

    @Slot()
    def _on_reloaded(self) -> None:
        ids, cur_id, scroll = self._restore or ([], None, 0)
        self._restore = None
        self.table.selectionModel().blockSignals(True)
        self.select_ids(ids, current=cur_id)
        self.table.selectionModel().blockSignals(False)
        self.table.viewport().update()
        self.table.verticalScrollBar().setValue(scroll)
        self._sync_editor(reload=True)  # a filter that hid the fact empties the editor
        self._update_count()
        self.update_review_count()
        self._count_categories()
        for i in self._loaded - {0}:
            if i == self.views.currentIndex():
                self._reload_view(i)
            else:
                self._loaded.discard(i)  # reloaded when shown next
        callbacks, self._after_reload = self._after_reload, []
        for fn in callbacks:
            fn()
        self.refreshed.emit()

    def _count_categories(self) -> None:
        """The category and tag filters show how many active facts each one holds."""
        if getattr(self, "_counting", False) or self.runner is None:
            return
        self._counting = True
        memory = self.memory

        def op(p, c):
            cats = {k for k in agent_stats(memory).by_category}
            cats |= {c for c in CATEGORIES}
            by_cat = {k: memory.facts.count(FactFilters(status="active", category=k)) for k in cats}
            return by_cat, tag_counts(memory)

        def done(counts):
            self._counting = False
            by_cat, by_tag = counts
            self.filter_bar.set_category_counts({k: n for k, n in by_cat.items() if n})
            self.filter_bar.set_tag_counts(by_tag)

        def failed(_m):
            self._counting = False

        self.runner.start(
            "Counting categories",
            op,
            visible=False,
            success=done,
            failure=failed,
            interruptible=True,
        )

    def close_down(self) -> None:
        self.undo_stack.clear()

    # context menu ------------------------------------------------------------------------------
    @Slot("QPoint")
    def _context_menu(self, pos) -> None:
        if not self.selected_ids():
            return
        m = QMenu(self)
        m.addAction("Pin", self.pin_selected)
        m.addAction("Unpin", self.unpin_selected)
        m.addAction("Change category…", self.recategorize_selected)
        m.addSeparator()
        m.addAction("Delete", lambda: self.delete_selected())
        m.exec(self.table.viewport().mapToGlobal(pos))

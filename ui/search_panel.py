"""Search: a debounced query field that runs hybrid search in a worker, and a results table
that shows each signal's share of the score so the user sees *why* a fact ranked."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.a11y import set_name
from ui.search_results import SearchResultsModel, SharesDelegate, legend

MODES = [
    ("hybrid", "&Hybrid", "Keyword and semantic together (default)"),
    ("keyword", "&Keyword", "Full-text (BM25) only"),
    ("semantic", "&Semantic", "Meaning (embedding similarity) only"),
]
# typing ~120 ms a key stays one search; the results land ≤ 300 ms after the last key at 100k
DEBOUNCE_MS = 150
PAGE = 50  # results per page


class SearchPanel(QWidget):
    """``memory=None`` searches every agent (the "All agents" tab)."""

    results_ready = Signal(int)  # number of hits, after they are shown
    hit_activated = Signal(str, int)  # agent slug, fact id: the current hit changed
    hit_opened = Signal(str, int)  # Enter or double-click on a hit
    query_changed = Signal(str)

    def __init__(self, engram, runner, memory=None, filters=None, parent=None):
        super().__init__(parent)
        self.engram, self.runner, self.memory = engram, runner, memory
        self._filters = filters  # callable -> FactFilters, or None
        self._generation = 0
        self._job = 0  # the search running in a worker (cancelled when a newer one starts)
        self.mode = "hybrid"
        self.last_error: str | None = None

        self.query = QLineEdit()
        self.query.setClearButtonEnabled(True)
        scope = "all agents" if memory is None else f"{memory.info.name}"
        self.query.setPlaceholderText(f"Search {scope}… (Ctrl+F)")
        self.query.setAccessibleName("Search query")
        self.mode_group = QButtonGroup(self)
        self.mode_group.setExclusive(True)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.query, 1)
        self.mode_buttons = {}
        for key, label, tip in MODES:
            b = QToolButton(text=label.replace("&", ""), checkable=True)
            b.setToolTip(tip)
            b.setProperty("mode", key)
            set_name(b, f"{label.replace('&', '')} search")
            if key == "hybrid":
                b.setChecked(True)
            self.mode_group.addButton(b)
            self.mode_buttons[key] = b
            top.addWidget(b)
        self.update_semantic()
        self.status = QLabel("")
        self.status.setMinimumWidth(120)
        top.addWidget(self.status)
        # a page of results, never a silent cap: when more match, the status says so
        self.more_btn = QToolButton(text="Show more")
        self.more_btn.setToolTip("Show the next results")
        set_name(self.more_btn, "Show more results")
        self.more_btn.hide()
        self.more_btn.clicked.connect(self.show_more)
        top.addWidget(self.more_btn)
        self.page = PAGE
        self.k = PAGE

        self.model = SearchResultsModel(show_agent=memory is None, parent=self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        # the fact list's row height: switching to the results no longer doubles the rows
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setWordWrap(False)
        self.table.setTabKeyNavigation(False)
        set_name(self.table, "Search results")
        self.table.setItemDelegateForColumn(
            self.model.cols.index("Why it ranked"), SharesDelegate(self.table)
        )
        self._size_columns()
        self.table.activated.connect(self._on_activated)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)

        # two parts a host may place apart: the query bar and the results
        self.bar = QWidget()
        self.bar.setLayout(top)
        self.results = QWidget()
        rl = QVBoxLayout(self.results)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.table, 1)
        rl.addWidget(legend())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.bar)
        lay.addWidget(self.results, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.run_now)
        self.query.textChanged.connect(self._on_text)
        self.query.returnPressed.connect(self.run_now)
        self.mode_group.buttonToggled.connect(self._on_mode)
        # only from the query field: as a window shortcut it took Down from the fact table
        # (the row never moved; focus jumped to the hidden results)
        QShortcut(
            QKeySequence("Down"),
            self.query,
            activated=self.table.setFocus,
            context=Qt.ShortcutContext.WidgetShortcut,
        )

    def update_semantic(self) -> None:
        """Enable Semantic once the model is loaded (it may load after the window shows)."""
        b = self.mode_buttons["semantic"]
        on = self.engram.semantic_enabled
        b.setEnabled(on)
        b.setToolTip(
            MODES[2][2]
            if on
            else (self.engram.semantic_error or "the embedding model is still loading")
        )
        if not on and b.isChecked():
            self.mode_buttons["hybrid"].setChecked(True)

    def _size_columns(self) -> None:
        h = self.table.horizontalHeader()
        for i, name in enumerate(self.model.cols):
            h.setSectionResizeMode(
                i,
                QHeaderView.ResizeMode.Stretch
                if name == "Content"
                else QHeaderView.ResizeMode.ResizeToContents,
            )
        h.setSectionResizeMode(
            self.model.cols.index("Why it ranked"), QHeaderView.ResizeMode.Interactive
        )
        h.resizeSection(self.model.cols.index("Why it ranked"), 170)

    # input --------------------------------------------------------------------------------
    @Slot(str)
    def _on_text(self, text: str) -> None:
        self.query_changed.emit(text)
        if text.strip():
            self._debounce.start()
        else:
            self._debounce.stop()
            self._generation += 1
            self.runner.cancel(self._job)
            self.model.set_hits([])
            self.status.setText("")
            self.more_btn.hide()

    @Slot()
    def _on_mode(self, *_):
        b = self.mode_group.checkedButton()
        if b is not None:
            self.mode = b.property("mode")
            if self.query.text().strip():
                self.run_now()

    def set_mode(self, mode: str) -> None:
        self.mode_buttons[mode].setChecked(True)

    @Slot()
    def run_now(self) -> None:
        self._debounce.stop()
        q = self.query.text().strip()
        if not q:
            return
        self._generation += 1
        gen, mode = self._generation, self.mode
        filters = self._filters() if self._filters else None
        memory, engram = self.memory, self.engram
        if q != getattr(self, "_last_q", None) or mode != getattr(self, "_last_mode", None):
            self.k = self.page  # a new query starts with one page
        self._last_q, self._last_mode = q, mode
        k = self.k + 1  # one more than shown: tells whether more match

        def op(progress, cancelled):
            if memory is None:
                return engram.search_all(q, k=k, mode=mode, touch=False)
            return [
                (memory.slug, h)
                for h in memory.search(q, k=k, filters=filters, mode=mode, touch=False)
            ]

        self.status.setText("Searching…")
        # the older query's answer would be dropped anyway (generation): stop its SQL so it
        # does not hold a core and the GIL while the newer one runs
        self.runner.cancel(self._job)
        self._job = self.runner.start(
            f"Search “{q}”",
            op,
            visible=False,
            success=lambda hits: self._show(gen, hits),
            failure=lambda msg: self._fail(gen, msg),
            interruptible=True,
        )

    def _show(self, gen: int, hits) -> None:
        if gen != self._generation:
            return  # an older query finished after a newer one was typed
        self.last_error = None
        more = len(hits) > self.k
        hits = hits[: self.k]
        keep = self.current_fact_id()
        self.model.set_hits(hits)
        self._select_fact(keep)
        if more:
            self.status.setText(f"Showing the best {len(hits)}; more match")
        else:
            self.status.setText(f"{len(hits)} result{'s' * (len(hits) != 1)}")
        self.more_btn.setVisible(more)
        self.more_btn.setText(f"Show {self.page} more")
        self.results_ready.emit(len(hits))

    @Slot()
    def show_more(self) -> None:
        self.k += self.page
        self.run_now()

    def _fail(self, gen: int, message: str) -> None:
        if gen != self._generation:
            return
        self.last_error = message
        self.model.set_hits([])
        self.status.setText(message)
        self.results_ready.emit(0)

    def current_fact_id(self) -> int | None:
        cur = self.table.currentIndex()
        if not cur.isValid() or not self.table.selectionModel().isRowSelected(cur.row()):
            return None
        return self.model.fact_id_at(cur.row())

    def _select_fact(self, fact_id: int | None) -> None:
        """The results are read again after a write (Save, Pin): the fact that was picked
        stays picked, so the editor and Ctrl+P still have it."""
        row = self.model.row_of(fact_id) if fact_id is not None else None
        if row is not None:
            self.table.selectionModel().setCurrentIndex(
                self.model.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )

    def focus_query(self) -> None:
        self.query.setFocus()
        self.query.selectAll()

    # output -------------------------------------------------------------------------------
    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        if 0 <= index.row() < len(self.model.hits):
            slug, hit = self.model.hits[index.row()]
            self.hit_opened.emit(slug or "", hit.fact.id)

    @Slot(QModelIndex, QModelIndex)
    def _on_current(self, cur: QModelIndex, _prev) -> None:
        if cur.isValid():
            self._emit_hit(cur.row())

    def _emit_hit(self, row: int) -> None:
        if 0 <= row < len(self.model.hits):
            slug, hit = self.model.hits[row]
            self.hit_activated.emit(slug or "", hit.fact.id)

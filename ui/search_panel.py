"""Search: a debounced query field that runs hybrid search in a worker, and a results table
that shows each signal's share of the score so the user sees *why* a fact ranked."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QColor, QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStyledItemDelegate,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.a11y import set_name

SIGNALS = [
    ("keyword", "#3b82f6"),
    ("semantic", "#a855f7"),
    ("recency", "#22c55e"),
    ("importance", "#f59e0b"),
    ("access", "#94a3b8"),
]
SHARES_ROLE = Qt.ItemDataRole.UserRole + 2
ID_ROLE = Qt.ItemDataRole.UserRole + 1
MODES = [
    ("hybrid", "&Hybrid", "Keyword and semantic together (default)"),
    ("keyword", "&Keyword", "Full-text (BM25) only"),
    ("semantic", "&Semantic", "Meaning (embedding similarity) only"),
]
# typing ~120 ms a key stays one search; the results land ≤ 300 ms after the last key at 100k
DEBOUNCE_MS = 150


def shares(signals: dict) -> dict[str, float]:
    total = sum(max(0.0, v) for v in signals.values())
    if total <= 0:
        return {k: 0.0 for k, _ in SIGNALS}
    return {k: max(0.0, signals.get(k, 0.0)) / total for k, _ in SIGNALS}


def shares_text(signals: dict) -> str:
    sh = shares(signals)
    return " · ".join(f"{k} {sh[k] * 100:.0f}%" for k, _ in SIGNALS if sh[k] >= 0.005)


class SearchResultsModel(QAbstractTableModel):
    def __init__(self, show_agent: bool, parent=None):
        super().__init__(parent)
        self.show_agent = show_agent
        self.hits: list[tuple[str | None, Any]] = []  # (agent slug, SearchHit)
        self.top_score = 0.0
        self.cols = (["Agent"] if show_agent else []) + [
            "Score",
            "Content",
            "Why it ranked",
            "Category",
            "Pinned",
        ]

    def set_hits(self, hits) -> None:
        self.beginResetModel()
        self.hits = list(hits)
        self.top_score = max((h.score for _s, h in self.hits), default=0.0)
        self.endResetModel()

    def fact_id_at(self, row: int) -> int | None:
        hit: Any = self.hits[row][1] if 0 <= row < len(self.hits) else None
        return hit.fact.id if hit is not None else None

    def row_of(self, fact_id: int | None) -> int | None:
        return next((r for r in range(len(self.hits)) if self.fact_id_at(r) == fact_id), None)

    def scale_of(self, hit) -> float:
        """The bar's length: this hit's score against the best one's (the shares split it)."""
        return max(0.0, min(1.0, hit.score / self.top_score)) if self.top_score > 0 else 0.0

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.cols)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.cols)
        ):
            return self.cols[section]
        return None

    def flags(self, index):
        return (
            Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if index.isValid()
            else Qt.ItemFlag.NoItemFlags
        )

    def multiData(self, index, span) -> None:
        """Every role of a cell in one call into Python (Qt's default calls ``data`` per
        role): while a search worker holds the GIL, each call from a repaint may wait for it."""
        if not index.isValid() or index.row() >= len(self.hits):
            for rd in span:
                rd.clearData()
            return
        for rd in span:
            value = self._value(index.row(), index.column(), rd.role())
            if value is None:
                rd.clearData()
            else:
                rd.setData(value)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self.hits):
            return None
        return self._value(index.row(), index.column(), role)

    _ROLES = frozenset(
        int(r)
        for r in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
            Qt.ItemDataRole.TextAlignmentRole,
            ID_ROLE,
            SHARES_ROLE,
        )
    )

    def _value(self, row: int, col: int, role):
        if role not in self._ROLES:
            return None
        slug, hit = self.hits[row]
        name = self.cols[col]
        if role == ID_ROLE:
            return hit.fact.id
        if role == SHARES_ROLE and name == "Why it ranked":
            scale = self.scale_of(hit)
            return {k: v * scale for k, v in shares(hit.signals).items()}
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "Agent": slug,
                "Score": f"{hit.score:.3f}",
                "Content": hit.fact.content.replace("\n", " "),
                "Why it ranked": shares_text(hit.signals),
                "Category": hit.fact.category,
                "Pinned": "★" if hit.fact.pinned else "",
            }.get(name)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            # as in the fact list, where the star is centred
            return int(Qt.AlignmentFlag.AlignCenter) if name == "Pinned" else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "Why it ranked":
                lines = [f"{k}: +{hit.signals.get(k, 0.0):.3f}" for k, _ in SIGNALS]
                raw = hit.raw or {}
                lines.append(f"bm25 {raw.get('bm25', 0)} · cosine {raw.get('cosine', 0)}")
                return "\n".join(lines)
            if name == "Content":
                return hit.fact.content
        return None


class SharesDelegate(QStyledItemDelegate):
    """Paints the signal shares as a stacked bar as long as the hit's score is against the
    best hit's (the tooltip has the numbers)."""

    def paint(self, painter: QPainter, option, index):
        sh = index.data(SHARES_ROLE)
        if not sh:
            return super().paint(painter, option, index)
        painter.save()
        r = QRectF(option.rect).adjusted(
            4, option.rect.height() * 0.25, -4, -option.rect.height() * 0.25
        )
        x = r.left()
        for key, color in SIGNALS:
            w = r.width() * sh.get(key, 0.0)
            if w > 0:
                painter.fillRect(QRectF(x, r.top(), w, r.height()), QColor(color))
                x += w
        painter.restore()

    def sizeHint(self, option, index):
        return QSize(160, super().sizeHint(option, index).height())


def legend() -> QWidget:
    w = QWidget()
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    for key, color in SIGNALS:
        sw = QLabel()
        sw.setFixedSize(12, 12)
        sw.setStyleSheet(f"background:{color}; border-radius:2px;")
        lay.addWidget(sw)
        lay.addWidget(QLabel(key))
        lay.addSpacing(6)
    lay.addStretch(1)
    return w


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

"""Archived facts (GC's expiry, eviction, a user's archive) with why, and Restore. Archived
is never deleted: this is where it comes back from (CLI: ``engram restore ID…``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from services import archived_summary, restore_archived, restore_gc_run, restore_in_batches
from ui.archived_model import ArchivedModel


class ArchivedView(QWidget):
    restored = Signal(list)  # fact ids, after the write
    page = 500  # rows read at a time, more as the list is scrolled; the count and Restore
    # all cover every archived fact
    total = 0
    loaded = Signal()  # the count, the GC runs and the first page are shown

    def __init__(self, memory, runner, parent=None):
        super().__init__(parent)
        self.memory, self.runner = memory, runner
        self.hint = QLabel(
            "Facts taken out of memory by a clean-up (GC) or archived by hand. Agents no "
            "longer see them; Restore puts them back."
        )
        self.hint.setWordWrap(True)
        self.model = ArchivedModel(memory, runner, self.page, self)
        self.model.page_loaded.connect(self._show_count)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        h = self.table.horizontalHeader()
        # widths from the font, never from the rows: sizing a column to its contents asks
        # every listed row for its text (a Python call each) at every page read
        fm = self.fontMetrics()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        h.resizeSection(0, fm.horizontalAdvance("#9999999") + 16)
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        h.resizeSection(3, fm.horizontalAdvance("2026-12-31") + 24)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        v = self.table.verticalHeader()
        v.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        v.setDefaultSectionSize(fm.height() + 8)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        h.resizeSection(2, 320)
        self.restore_btn = QPushButton("Restore")
        self.restore_btn.setToolTip("Make the selected facts active again (Enter)")
        self.restore_btn.clicked.connect(lambda: self.restore_selected())
        self.all_btn = QPushButton("Restore all…")
        self.all_btn.setAutoDefault(False)
        self.all_btn.setToolTip("Make every archived fact active again")
        self.all_btn.clicked.connect(lambda: self.restore_all())
        # a GC run's archive is its undo, also after a restart
        self.runs = QComboBox()
        self.runs.setToolTip("Each clean-up (GC) run that archived facts still archived")
        self.run_btn = QPushButton("Restore everything this GC archived")
        self.run_btn.setAutoDefault(False)
        self.run_btn.clicked.connect(lambda: self.restore_run())
        self.count = QLabel("")
        row = QHBoxLayout()
        row.addWidget(self.count, 1)
        row.addWidget(self.all_btn)
        row.addWidget(self.restore_btn)
        runs_row = QHBoxLayout()
        runs_row.addWidget(QLabel("Undo a clean-up:"))
        runs_row.addWidget(self.runs, 1)
        runs_row.addWidget(self.run_btn)
        lay = QVBoxLayout(self)
        lay.addWidget(self.hint)
        lay.addLayout(runs_row)
        lay.addWidget(self.table, 1)
        lay.addLayout(row)
        QShortcut(
            QKeySequence(Qt.Key_Return),
            self.table,
            activated=self.restore_selected,
            context=Qt.WidgetShortcut,
        )
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update())
        self._summary_gen = 0
        self._counting = False
        self._update()

    def reload(self) -> None:
        """The count and the GC runs in one read, the rows a page at a time: all in workers,
        so a 100k store's archive never holds the window."""
        self._summary_gen += 1
        gen, memory = self._summary_gen, self.memory
        self._counting = True
        self.count.setText("Counting archived facts…")
        self.all_btn.setEnabled(False)
        self.model.page = self.page
        self.model.reset()
        self.runner.start(
            "Counting archived facts",
            lambda p, c: archived_summary(memory),
            success=lambda s: self._summary(gen, s),
            visible=False,
            interruptible=True,
        )

    def _summary(self, gen: int, summary) -> None:
        if gen != self._summary_gen:
            return
        self._counting = False
        self.total = summary.count
        self.runs.clear()
        for when, n in summary.runs:
            self.runs.addItem(f"GC of {when.replace('T', ' ')[:16]} UTC: {n:,} fact(s)", when)
        self.runs.setEnabled(self.runs.count() > 0)
        self.run_btn.setEnabled(self.runs.count() > 0)
        if not self.runs.count():
            self.runs.addItem("No clean-up has archived anything that is still archived")
        self.all_btn.setEnabled(self.total > 0)
        self._show_count()
        self.loaded.emit()

    def is_loading(self) -> bool:
        return self._counting or self.model.is_loading()

    @Slot()
    def _show_count(self) -> None:
        if self._counting:
            return  # the rows came first; the count says it all when it lands
        listed = self.model.rowCount()
        shown = f" ({listed:,} listed; scroll for more)" if listed < self.total else ""
        self.count.setText(
            f"{self.total:,} archived fact(s){shown}" if self.total else "Nothing archived."
        )
        self._update()

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.id_at(r) for r in rows]

    def _update(self) -> None:
        n = len(self.selected_ids())
        self.restore_btn.setEnabled(n > 0)
        self.restore_btn.setText(f"Restore {n}" if n > 1 else "Restore")

    @Slot()
    def restore_selected(self) -> int:
        ids = self.selected_ids()
        if not ids:
            return 0
        memory = self.memory
        return self.runner.start(
            f"Restoring {len(ids)} fact(s)",
            lambda p, c: restore_archived(memory, ids),
            serial=True,
            visible=False,
            success=self._restored,
        )

    def _restored(self, ids: list) -> None:
        self.reload()
        self.restored.emit(list(ids))

    def _ask(self, text: str) -> bool:
        box = QMessageBox(
            QMessageBox.Question, "Restore", text, QMessageBox.Yes | QMessageBox.No, self
        )
        box.setDefaultButton(QMessageBox.No)
        self.confirm_box = box
        return box.exec() == QMessageBox.Yes

    @Slot()
    def restore_all(self) -> int:
        if not self.total or not self._ask(
            f"Make all {self.total:,} archived facts active again? Agents will see them."
        ):
            return 0
        memory = self.memory
        return self.runner.start(
            f"Restoring {self.total:,} fact(s)",
            lambda p, c: restore_in_batches(memory, None, p),
            serial=True,
            on_cancel=self.reload,  # the batches done stay restored
            success=self._restored,
        )

    @Slot()
    def restore_run(self) -> int:
        when = self.runs.currentData()
        if not when:
            return 0
        memory = self.memory
        return self.runner.start(
            "Restoring a clean-up's facts",
            lambda p, c: restore_gc_run(memory, when),
            serial=True,
            success=self._restored,
        )

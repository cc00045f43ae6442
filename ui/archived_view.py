"""Archived facts (GC's expiry, eviction, a user's archive) with why, and Restore. Archived
is never deleted: this is where it comes back from (CLI: ``engram restore ID…``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from services import (
    archived_count,
    archived_facts,
    archived_ids,
    gc_runs,
    restore_archived,
    restore_gc_run,
)
from ui.tables import read_only_table


class ArchivedView(QWidget):
    restored = Signal(list)  # fact ids, after the write
    page = 500  # rows shown; the count and Restore all cover every archived fact
    total = 0

    def __init__(self, memory, runner, parent=None):
        super().__init__(parent)
        self.memory, self.runner = memory, runner
        self.hint = QLabel(
            "Facts taken out of memory by a clean-up (GC) or archived by hand. Agents no "
            "longer see them; Restore puts them back."
        )
        self.hint.setWordWrap(True)
        self.table = read_only_table(["#", "Content", "Why", "Archived"])
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        h.setSectionResizeMode(3, QHeaderView.ResizeToContents)
        h.setSectionResizeMode(1, QHeaderView.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        h.setSectionResizeMode(2, QHeaderView.Interactive)
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
        self.table.itemSelectionChanged.connect(self._update)
        self._update()

    def reload(self) -> None:
        rows = archived_facts(self.memory, limit=self.page)
        self.total = archived_count(self.memory)
        self.runs.clear()
        for when, n in gc_runs(self.memory):
            self.runs.addItem(f"GC of {when.replace('T', ' ')[:16]} UTC: {n:,} fact(s)", when)
        self.runs.setEnabled(self.runs.count() > 0)
        self.run_btn.setEnabled(self.runs.count() > 0)
        if not self.runs.count():
            self.runs.addItem("No clean-up has archived anything that is still archived")
        self.table.setRowCount(len(rows))
        for r, (fid, content, why, when) in enumerate(rows):
            if why == "archived":  # archived by hand, an import or a sync: no reason kept
                why = "archived (no reason recorded: by hand, an import or a sync)"
            cells = [str(fid), content.replace("\n", " "), why, f"{when:%Y-%m-%d}" if when else ""]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, fid)
                if c in (1, 2):
                    item.setToolTip(text)
                self.table.setItem(r, c, item)
        shown = f" (showing the newest {len(rows):,})" if len(rows) < self.total else ""
        self.count.setText(
            f"{self.total:,} archived fact(s){shown}" if self.total else "Nothing archived."
        )
        self.all_btn.setEnabled(self.total > 0)
        self._update()

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [self.table.item(r, 0).data(Qt.UserRole) for r in rows]

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
            lambda p, c: restore_archived(memory, archived_ids(memory)),
            serial=True,
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

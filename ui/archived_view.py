"""Archived facts (GC's expiry, eviction, a user's archive) with why, and Restore. Archived
is never deleted: this is where it comes back from (CLI: ``engram restore ID…``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from services import archived_facts, restore_archived
from ui.tables import read_only_table


class ArchivedView(QWidget):
    restored = Signal(list)  # fact ids, after the write

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
        h.setSectionResizeMode(1, QHeaderView.Stretch)
        h.setSectionResizeMode(2, QHeaderView.Interactive)
        h.resizeSection(2, 320)
        self.restore_btn = QPushButton("Restore")
        self.restore_btn.setToolTip("Make the selected facts active again (Enter)")
        self.restore_btn.clicked.connect(lambda: self.restore_selected())
        self.count = QLabel("")
        row = QHBoxLayout()
        row.addWidget(self.count, 1)
        row.addWidget(self.restore_btn)
        lay = QVBoxLayout(self)
        lay.addWidget(self.hint)
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
        rows = archived_facts(self.memory)
        self.table.setRowCount(len(rows))
        for r, (fid, content, why, when) in enumerate(rows):
            cells = [str(fid), content.replace("\n", " "), why, f"{when:%Y-%m-%d}" if when else ""]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, fid)
                if c in (1, 2):
                    item.setToolTip(text)
                self.table.setItem(r, c, item)
        self.count.setText(f"{len(rows):,} archived fact(s)" if rows else "Nothing archived.")
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

"""Removed agents: the undo step of File → Remove agent, and File → Trash, where a removed
agent comes back (or is deleted for good, after a confirmation that names it)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
)

from services import EMPTY_TRASH
from ui.tables import read_only_table
from ui.undo import STEP_SEQ


class RemoveAgentCommand(QUndoCommand):
    """An agent already moved to the trash; undo restores it, redo trashes it again."""

    def __init__(self, engram, runner, trashed, done):
        super().__init__(f"Remove agent {trashed.slug}")
        self.engram, self.runner, self._done = engram, runner, done
        self.slug, self.facts = trashed.slug, trashed.fact_count
        self.removed = True
        self.seq = next(STEP_SEQ)
        self._first = True

    def done_text(self) -> str:
        return f"Removed agent {self.slug} ({self.facts:,} facts)"

    def _queue(self, title: str, op, removed: bool) -> None:
        def ok(_r):
            self.removed = removed
            self._done(self)

        self.runner.start(title, lambda p, c: op(), serial=True, visible=False, success=ok)

    def redo(self) -> None:
        if self._first:  # pushed after the removal ran
            self._first = False
            return
        engram, slug = self.engram, self.slug
        self._queue(f"Removing {slug}", lambda: engram.trash_agent(slug), True)

    def undo(self) -> None:
        engram, slug = self.engram, self.slug
        self._queue(f"Restoring {slug}", lambda: engram.restore_agent(slug), False)


class TrashDialog(QDialog):
    changed = Signal()  # an agent came back or was deleted for good

    def __init__(self, engram, runner, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Trash: removed agents")
        self.engram, self.runner = engram, runner
        hint = QLabel(
            "Removed agents keep every memory here until you delete them for good. "
            "Restore puts an agent back with its memories."
        )
        hint.setWordWrap(True)
        self.table = read_only_table(["Agent", "Facts", "Removed (UTC)"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 220)
        self.restore_btn = QPushButton("Restore")
        self.delete_btn = QPushButton("Delete for good…")
        self.restore_btn.setAutoDefault(False)
        self.delete_btn.setAutoDefault(False)
        self.restore_btn.clicked.connect(lambda: self.restore_selected())
        self.delete_btn.clicked.connect(lambda: self.delete_selected())
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        row = QHBoxLayout()
        row.addWidget(self.restore_btn)
        row.addWidget(self.delete_btn)
        row.addStretch(1)
        row.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(hint)
        lay.addWidget(self.table, 1)
        lay.addLayout(row)
        self.table.itemSelectionChanged.connect(self._update)
        self.resize(620, 360)
        self.reload()

    def reload(self) -> None:
        items = self.engram.trashed_agents()
        self.table.setRowCount(len(items))
        for r, t in enumerate(items):
            label = t.slug if t.name == t.slug else f"{t.name} ({t.slug})"
            when = t.trashed_at.replace("T", " ")[:16]
            for c, text in enumerate([label, f"{t.fact_count:,}", when]):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, (t.slug, t.fact_count))
                self.table.setItem(r, c, item)
        if items:
            self.table.selectRow(0)
        self._update()

    def _selected(self) -> tuple[str, int] | None:
        rows = self.table.selectionModel().selectedRows()
        return self.table.item(rows[0].row(), 0).data(Qt.UserRole) if rows else None

    def _update(self) -> None:
        on = self._selected() is not None
        self.restore_btn.setEnabled(on)
        self.delete_btn.setEnabled(on)

    def _run(self, title: str, op, done_text) -> None:
        """``done_text``: the status message, or a function of what ``op`` returned."""

        def ok(r):
            self.reload()
            self.changed.emit()
            parent = self.parent()
            if parent is not None and hasattr(parent, "show_message"):
                parent.show_message(done_text(r) if callable(done_text) else done_text)

        self.runner.start(title, lambda p, c: op(), serial=True, success=ok, failure=self._fail)

    def _fail(self, message: str) -> None:
        QMessageBox.warning(self, "Trash", message)

    @Slot()
    def restore_selected(self) -> None:
        sel = self._selected()
        if sel is None:
            return
        slug, n = sel
        engram = self.engram
        self._run(
            f"Restoring {slug}",
            lambda: engram.restore_agent(slug),
            f"Restored agent {slug} with its {n:,} facts.",
        )

    @Slot()
    def delete_selected(self) -> None:
        sel = self._selected()
        if sel is None:
            return
        slug, n = sel
        box = QMessageBox(
            QMessageBox.Warning,
            "Delete for good",
            f"Delete the agent {slug} and its {n:,} fact(s) for good?",
            QMessageBox.Yes | QMessageBox.No,
            self,
        )
        box.setInformativeText(EMPTY_TRASH.for_app())
        box.button(QMessageBox.Yes).setText(f"Delete {slug}")
        box.setDefaultButton(QMessageBox.No)
        box.setEscapeButton(QMessageBox.No)
        self.confirm_box = box
        if box.exec() != QMessageBox.Yes:
            return
        engram = self.engram
        self._run(f"Deleting {slug}", lambda: engram.empty_trash(slug), _deleted_text)


def _deleted_text(gone) -> str:
    """What Delete for good did: the agent, the agents' files it was unwired from, and
    whether the verification found any of its text left."""
    parts = []
    for d in gone:
        text = f"Deleted agent {d.slug} for good"
        if d.unwired:
            text += f"; Engram's hooks for it removed from {len(d.unwired)} file(s)"
        if d.remaining:
            text += f"; {d.remaining} place(s) still hold its text (forget receipt {d.receipt})"
        parts.append(text + ".")
    return " ".join(parts)

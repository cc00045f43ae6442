"""The status bar's confirmation of a write: "Deleted 4 facts — Undo".

It stays until the next confirmation or until dismissed (a timed message can be missed),
and its button undoes (or, after an undo, redoes) exactly that step."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget


class UndoNotice(QWidget):
    undo_requested = Signal()
    redo_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.label = QLabel("")
        self.action_btn = QPushButton("Undo")
        self.action_btn.setFlat(True)
        self.action_btn.setStyleSheet("QPushButton { text-decoration: underline; }")
        self.close_btn = QToolButton(text="×")
        self.close_btn.setToolTip("Dismiss")
        self.close_btn.setAutoRaise(True)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.action_btn)
        lay.addWidget(self.close_btn)
        self._undoable = True
        self.action_btn.clicked.connect(self._act)
        self.close_btn.clicked.connect(self.hide)
        self.hide()

    def confirm(self, text: str, undoable: bool = True) -> None:
        """``undoable`` False: the step was just undone; the button then redoes it."""
        self._undoable = undoable
        self.label.setText(f"{text} —" if undoable else f"Undone: {text} —")
        self.action_btn.setText("Undo" if undoable else "Redo")
        self.show()

    def text(self) -> str:
        return f"{self.label.text()} {self.action_btn.text()}"

    @Slot()
    def _act(self) -> None:
        self.hide()
        (self.undo_requested if self._undoable else self.redo_requested).emit()

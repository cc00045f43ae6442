"""The status bar's confirmation of a write: "Deleted 4 facts — Undo".

It stays until the next confirmation or until dismissed (a timed message can be missed),
and its button undoes (or, after an undo, redoes) exactly that step: the notice holds the
command and the stack it lives on, so switching tabs in between does not change its target.
A step that is no longer the last one on its stack is not undone out of order; the notice
says so instead of undoing whatever is on top."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget
from shiboken6 import isValid


class UndoNotice(QWidget):
    undo_requested = Signal()  # a notice without a step of its own (older callers)
    redo_requested = Signal()
    stale = Signal(str)  # the named step can no longer be undone from here: why

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
        self._stack = None
        self._step = None
        self._name = ""
        self.action_btn.clicked.connect(self._act)
        self.close_btn.clicked.connect(self.hide)
        self.hide()

    def confirm(self, text: str, undoable: bool = True, stack=None, step=None) -> None:
        """``undoable`` False: the step was just undone; the button then redoes it.
        ``stack``/``step``: the QUndoStack and the command this notice names."""
        self._undoable = undoable
        self._stack, self._step, self._name = stack, step, text
        self.label.setText(f"{text} —" if undoable else f"Undone: {text} —")
        self.action_btn.setText("Undo" if undoable else "Redo")
        self.action_btn.setToolTip(f"{'Undo' if undoable else 'Redo'}: {text}")
        self.show()

    def text(self) -> str:
        return f"{self.label.text()} {self.action_btn.text()}"

    @Slot()
    def _act(self) -> None:
        self.hide()
        stack, step = self._stack, self._step
        if stack is None or step is None:
            (self.undo_requested if self._undoable else self.redo_requested).emit()
            return
        if not isValid(stack):
            self.stale.emit(f"“{self._name}” can no longer be undone: its agent's tab is gone.")
            return
        i = stack.index()
        if self._undoable and i > 0 and stack.command(i - 1) is step:
            stack.undo()
        elif not self._undoable and i < stack.count() and stack.command(i) is step:
            stack.redo()
        else:
            self.stale.emit(
                f"“{self._name}” is not the last change there any more: undo the later "
                "changes first (Edit → Undo in that tab)."
            )

"""Undo routing: Edit → Undo / Redo act on the newest step of the current tab's stack or of
the window's own (steps of no one agent: a GC of all agents, a removed agent)."""

from __future__ import annotations

from PySide6.QtCore import Slot
from shiboken6 import isValid

from ui.controllers.base import Controller


class UndoRouter(Controller):
    def _undo_stacks(self) -> list:
        active = self.w.undo_group.activeStack()
        return [st for st in dict.fromkeys([active, self.w.window_stack]) if st is not None]

    def _next_undo(self):
        """The stack whose last step is the newest (a GC run from another tab counts)."""
        stacks = [st for st in self._undo_stacks() if st.canUndo()]
        return max(
            stacks, key=lambda st: getattr(st.command(st.index() - 1), "seq", 0), default=None
        )

    def _next_redo(self):
        stacks = [st for st in self._undo_stacks() if st.canRedo()]
        return min(stacks, key=lambda st: getattr(st.command(st.index()), "seq", 0), default=None)

    @Slot()
    def undo_latest(self) -> None:
        st = self._next_undo()
        if st is not None:
            st.undo()

    @Slot()
    def redo_latest(self) -> None:
        st = self._next_redo()
        if st is not None:
            st.redo()

    @Slot()
    def _update_undo_actions(self, *_a) -> None:
        if not (isValid(self.w.undo_group) and isValid(self.w.act_undo)):
            return  # the window is being destroyed: its stacks go after the group
        u, r = self._next_undo(), self._next_redo()
        self.w.act_undo.setEnabled(u is not None)
        self.w.act_undo.setText(f"&Undo {u.undoText()}" if u is not None else "&Undo")
        self.w.act_redo.setEnabled(r is not None)
        self.w.act_redo.setText(f"&Redo {r.redoText()}" if r is not None else "&Redo")

"""Ctrl+Z / Ctrl+Shift+Z reach the window's undo stack from anywhere.

A focused text field normally swallows the undo keys (it accepts the ShortcutOverride), so
Ctrl+Z did nothing while the search box or the editor had focus even though Edit → Undo was
on offer. A field keeps its own undo only while it holds unsaved typing: the fact editor
while it is dirty, any other field while it has something of its own to undo.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QPlainTextEdit, QTextEdit, QWidget


def _editor_of(w):
    from ui.fact_editor import FactEditor

    while w is not None:
        if isinstance(w, FactEditor):
            return w
        w = w.parentWidget()
    return None


def has_own_undo(w: QObject, redo: bool = False) -> bool:
    """Whether ``w`` has unsaved typing for the key to undo (or redo)."""
    if not isinstance(w, QWidget):
        return False
    editor = _editor_of(w)
    if editor is not None:
        return editor.is_dirty()
    if isinstance(w, QAbstractSpinBox):
        w = w.findChild(QLineEdit) or w
    if isinstance(w, QLineEdit):
        return w.isRedoAvailable() if redo else w.isUndoAvailable()
    if isinstance(w, QPlainTextEdit | QTextEdit):
        doc = w.document()
        return doc.isRedoAvailable() if redo else doc.isUndoAvailable()
    return False


class UndoKeys(QObject):
    """An application event filter: leaves the undo keys to the window's actions unless the
    focused field has its own unsaved typing."""

    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.ShortcutOverride:
            undo = ev.matches(QKeySequence.Undo)
            redo = ev.matches(QKeySequence.Redo)
            if (undo or redo) and not has_own_undo(obj, redo=redo):
                return True  # not accepted: the shortcut (Edit → Undo/Redo) fires instead
        return False

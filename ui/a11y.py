"""Accessible names: a screen reader announces a control by its name, and without one it
reads the value ("Any", "active") or nothing."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QLineEdit, QWidget


def set_name(widget: QWidget, text: str, description: str = "") -> QWidget:
    """Name ``widget`` and the line edit inside an editable combo or a spin box (that inner
    edit is what takes the focus, so it is what gets announced)."""
    widget.setAccessibleName(text)
    if description:
        widget.setAccessibleDescription(description)
    inner = None
    if isinstance(widget, QComboBox) and widget.isEditable():
        inner = widget.lineEdit()
    elif isinstance(widget, QAbstractSpinBox):
        inner = widget.findChild(QLineEdit)
    if inner is not None:
        inner.setAccessibleName(text)
    return widget

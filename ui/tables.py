"""The read-only row tables the review, archived and privacy views share."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QTableWidget


def read_only_table(headers: list[str], parent=None) -> QTableWidget:
    """Whole-row selection, no in-place editing, no row numbers, one line per row."""
    t = QTableWidget(0, len(headers), parent)
    t.setHorizontalHeaderLabels(headers)
    t.setSelectionBehavior(QAbstractItemView.SelectRows)
    t.setEditTriggers(QAbstractItemView.NoEditTriggers)
    t.verticalHeader().hide()
    t.setWordWrap(False)
    return t

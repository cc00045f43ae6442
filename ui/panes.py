"""Two panes side by side, as the search and timeline views lay them out."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QWidget


def side_by_side(
    left: QWidget, right: QWidget, stretch: tuple[int, int], sizes: tuple[int, int]
) -> QSplitter:
    """A horizontal splitter: ``stretch`` shares a resize, ``sizes`` are the first widths."""
    split = QSplitter(Qt.Orientation.Horizontal)
    split.addWidget(left)
    split.addWidget(right)
    for i, factor in enumerate(stretch):
        split.setStretchFactor(i, factor)
    split.setSizes(list(sizes))
    return split

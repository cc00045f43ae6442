"""Search results: the table model of hits and the bar that shows each signal's share of a
hit's score (so the user sees *why* a fact ranked), with its legend."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStyledItemDelegate, QWidget

from ui.fact_cells import answered_roles

SIGNALS = [
    ("keyword", "#3b82f6"),
    ("semantic", "#a855f7"),
    ("recency", "#22c55e"),
    ("importance", "#f59e0b"),
    ("access", "#94a3b8"),
]
SHARES_ROLE = Qt.ItemDataRole.UserRole + 2
ID_ROLE = Qt.ItemDataRole.UserRole + 1


def shares(signals: dict) -> dict[str, float]:
    total = sum(max(0.0, v) for v in signals.values())
    if total <= 0:
        return {k: 0.0 for k, _ in SIGNALS}
    return {k: max(0.0, signals.get(k, 0.0)) / total for k, _ in SIGNALS}


def shares_text(signals: dict) -> str:
    sh = shares(signals)
    return " · ".join(f"{k} {sh[k] * 100:.0f}%" for k, _ in SIGNALS if sh[k] >= 0.005)


class SearchResultsModel(QAbstractTableModel):
    def __init__(self, show_agent: bool, parent=None):
        super().__init__(parent)
        self.show_agent = show_agent
        self.hits: list[tuple[str | None, Any]] = []  # (agent slug, SearchHit)
        self.top_score = 0.0
        self.cols = (["Agent"] if show_agent else []) + [
            "Score",
            "Content",
            "Why it ranked",
            "Category",
            "Pinned",
        ]

    def set_hits(self, hits) -> None:
        self.beginResetModel()
        self.hits = list(hits)
        self.top_score = max((h.score for _s, h in self.hits), default=0.0)
        self.endResetModel()

    def fact_id_at(self, row: int) -> int | None:
        hit: Any = self.hits[row][1] if 0 <= row < len(self.hits) else None
        return hit.fact.id if hit is not None else None

    def row_of(self, fact_id: int | None) -> int | None:
        return next((r for r in range(len(self.hits)) if self.fact_id_at(r) == fact_id), None)

    def scale_of(self, hit) -> float:
        """The bar's length: this hit's score against the best one's (the shares split it)."""
        return max(0.0, min(1.0, hit.score / self.top_score)) if self.top_score > 0 else 0.0

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.cols)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.cols)
        ):
            return self.cols[section]
        return None

    def flags(self, index):
        return (
            Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if index.isValid()
            else Qt.ItemFlag.NoItemFlags
        )

    def multiData(self, index, span) -> None:
        """Every role of a cell in one call into Python (Qt's default calls ``data`` per
        role): while a search worker holds the GIL, each call from a repaint may wait for it."""
        if not index.isValid() or index.row() >= len(self.hits):
            for rd in span:
                rd.clearData()
            return
        for rd in span:
            value = self._value(index.row(), index.column(), rd.role())
            if value is None:
                rd.clearData()
            else:
                rd.setData(value)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self.hits):
            return None
        return self._value(index.row(), index.column(), role)

    _ROLES = answered_roles(ID_ROLE, SHARES_ROLE)

    def _value(self, row: int, col: int, role):
        if role not in self._ROLES:
            return None
        slug, hit = self.hits[row]
        name = self.cols[col]
        if role == ID_ROLE:
            return hit.fact.id
        if role == SHARES_ROLE and name == "Why it ranked":
            scale = self.scale_of(hit)
            return {k: v * scale for k, v in shares(hit.signals).items()}
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "Agent": slug,
                "Score": f"{hit.score:.3f}",
                "Content": hit.fact.content.replace("\n", " "),
                "Why it ranked": shares_text(hit.signals),
                "Category": hit.fact.category,
                "Pinned": "★" if hit.fact.pinned else "",
            }.get(name)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            # as in the fact list, where the star is centred
            return int(Qt.AlignmentFlag.AlignCenter) if name == "Pinned" else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "Why it ranked":
                lines = [f"{k}: +{hit.signals.get(k, 0.0):.3f}" for k, _ in SIGNALS]
                raw = hit.raw or {}
                lines.append(f"bm25 {raw.get('bm25', 0)} · cosine {raw.get('cosine', 0)}")
                return "\n".join(lines)
            if name == "Content":
                return hit.fact.content
        return None


class SharesDelegate(QStyledItemDelegate):
    """Paints the signal shares as a stacked bar as long as the hit's score is against the
    best hit's (the tooltip has the numbers)."""

    def paint(self, painter: QPainter, option, index):
        sh = index.data(SHARES_ROLE)
        if not sh:
            return super().paint(painter, option, index)
        painter.save()
        r = QRectF(option.rect).adjusted(
            4, option.rect.height() * 0.25, -4, -option.rect.height() * 0.25
        )
        x = r.left()
        for key, color in SIGNALS:
            w = r.width() * sh.get(key, 0.0)
            if w > 0:
                painter.fillRect(QRectF(x, r.top(), w, r.height()), QColor(color))
                x += w
        painter.restore()

    def sizeHint(self, option, index):
        return QSize(160, super().sizeHint(option, index).height())


def legend() -> QWidget:
    w = QWidget()
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    for key, color in SIGNALS:
        sw = QLabel()
        sw.setFixedSize(12, 12)
        sw.setStyleSheet(f"background:{color}; border-radius:2px;")
        lay.addWidget(sw)
        lay.addWidget(QLabel(key))
        lay.addSpacing(6)
    lay.addStretch(1)
    return w

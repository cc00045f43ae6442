"""Small QPainter charts (QtCharts is not part of PySide6-Essentials): bars and a line."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

ACCENT = QColor("#3b82f6")


class _Chart(QWidget):
    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.title = title
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setMinimumSize(QSize(220, 160))

    def _frame(self, p: QPainter) -> QRectF:
        pal = self.palette()
        p.setRenderHint(QPainter.Antialiasing)
        p.fillRect(self.rect(), pal.color(QPalette.Base))
        fm = p.fontMetrics()
        p.setPen(pal.color(QPalette.Text))
        f = p.font()
        f.setBold(True)
        p.setFont(f)
        p.drawText(QRectF(8, 4, self.width() - 16, fm.height() + 4), Qt.AlignLeft, self.title)
        f.setBold(False)
        p.setFont(f)
        return QRectF(8, fm.height() + 12, self.width() - 16, self.height() - fm.height() - 18)

    def _empty(self, p: QPainter, area: QRectF) -> None:
        p.setPen(self.palette().color(QPalette.PlaceholderText))
        p.drawText(area, Qt.AlignCenter, "No data yet")


class BarChart(_Chart):
    """Horizontal bars with labels and values: readable at any count of categories."""

    def __init__(self, title: str, parent=None, vertical: bool = False):
        super().__init__(title, parent)
        self.items: list[tuple[str, int]] = []
        self.vertical = vertical

    def set_items(self, items) -> None:
        self.items = list(items)
        if not self.vertical:
            fm = self.fontMetrics()
            self.setMinimumHeight(fm.height() * 2 + len(self.items) * (fm.height() + 6) + 24)
        self.update()

    def paintEvent(self, _):
        p = QPainter(self)
        area = self._frame(p)
        if not self.items or not any(n for _, n in self.items):
            self._empty(p, area)
            return
        fm = p.fontMetrics()
        top = max(n for _, n in self.items) or 1
        text = self.palette().color(QPalette.Text)
        if self.vertical:
            n = len(self.items)
            lab_h = fm.height() + 4
            w = area.width() / n
            for i, (label, v) in enumerate(self.items):
                h = (area.height() - 2 * lab_h) * v / top
                x = area.left() + i * w
                bar = QRectF(x + w * 0.15, area.bottom() - lab_h - h, w * 0.7, h)
                p.fillRect(bar, ACCENT)
                p.setPen(text)
                p.drawText(QRectF(x, area.bottom() - lab_h, w, lab_h), Qt.AlignCenter, label)
                p.drawText(QRectF(x, bar.top() - lab_h, w, lab_h), Qt.AlignCenter, str(v))
            return
        label_w = min(area.width() * 0.4, max(fm.horizontalAdvance(l) for l, _ in self.items) + 10)
        val_w = fm.horizontalAdvance(str(top)) + 10
        row_h = fm.height() + 6
        for i, (label, v) in enumerate(self.items):
            y = area.top() + i * row_h
            if y + row_h > area.bottom() + 2:
                break
            p.setPen(text)
            p.drawText(
                QRectF(area.left(), y, label_w - 6, row_h), Qt.AlignRight | Qt.AlignVCenter, label
            )
            bw = (area.width() - label_w - val_w) * v / top
            p.fillRect(QRectF(area.left() + label_w, y + 3, bw, row_h - 6), ACCENT)
            p.drawText(
                QRectF(area.left() + label_w + bw + 4, y, val_w, row_h),
                Qt.AlignLeft | Qt.AlignVCenter,
                str(v),
            )


class LineChart(_Chart):
    """Cumulative growth: x = days (labels at the ends), y = count."""

    def __init__(self, title: str, parent=None):
        super().__init__(title, parent)
        self.points: list[tuple[str, int]] = []

    def set_points(self, points) -> None:
        self.points = list(points)
        self.update()

    def paintEvent(self, _):
        p = QPainter(self)
        area = self._frame(p)
        if len(self.points) < 1:
            self._empty(p, area)
            return
        fm = p.fontMetrics()
        text = self.palette().color(QPalette.Text)
        plot = area.adjusted(fm.horizontalAdvance("0000000"), 0, -8, -(fm.height() + 6))
        top = max(v for _, v in self.points) or 1
        n = len(self.points)
        path = QPainterPath()
        for i, (_, v) in enumerate(self.points):
            x = plot.left() + (plot.width() * i / (n - 1) if n > 1 else plot.width() / 2)
            y = plot.bottom() - plot.height() * v / top
            path.moveTo(x, y) if i == 0 else path.lineTo(x, y)
        grid = QColor(text)
        grid.setAlpha(60)
        p.setPen(QPen(grid, 1))
        p.drawLine(plot.bottomLeft(), plot.bottomRight())
        p.drawLine(plot.bottomLeft(), plot.topLeft())
        p.setPen(QPen(ACCENT, 2))
        p.drawPath(path)
        p.setPen(text)
        p.drawText(
            QRectF(area.left(), plot.top() - 2, plot.left() - area.left() - 4, fm.height()),
            Qt.AlignRight,
            str(top),
        )
        p.drawText(
            QRectF(
                area.left(), plot.bottom() - fm.height(), plot.left() - area.left() - 4, fm.height()
            ),
            Qt.AlignRight,
            "0",
        )
        lab_y = plot.bottom() + 4
        p.drawText(QPointF(plot.left(), lab_y + fm.ascent()), self.points[0][0])
        last = self.points[-1][0]
        p.drawText(QPointF(plot.right() - fm.horizontalAdvance(last), lab_y + fm.ascent()), last)

"""Episode timeline: session summaries grouped by day, a per-day density strip above, and the
selected episode (or whole day) rendered as sanitized markdown."""

from __future__ import annotations

from datetime import date, timedelta

from PySide6.QtCore import QRectF, QSize, Qt, Signal, Slot
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QLabel,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.markdown_view import MarkdownView
from ui.panes import side_by_side

DAY_ROLE = Qt.UserRole + 1
EP_ROLE = Qt.UserRole + 2


class DensityStrip(QWidget):
    """One bar per day between the first and last episode; click a day to jump to it."""

    day_clicked = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.counts: dict[date, int] = {}
        self.days: list[date] = []
        self.selected: date | None = None
        self.setMinimumHeight(60)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setToolTip("Episodes per day — click a day to show it")
        self.setMouseTracking(True)

    def sizeHint(self):
        return QSize(400, 64)

    def set_counts(self, counts: dict[date, int]) -> None:
        self.counts = dict(counts)
        if counts:
            first, last = min(counts), max(counts)
            n = (last - first).days + 1
            self.days = [first + timedelta(days=i) for i in range(n)]
        else:
            self.days = []
        self.update()

    def _day_at(self, x: float) -> date | None:
        if not self.days:
            return None
        i = int(x / max(1.0, self.width()) * len(self.days))
        return self.days[max(0, min(len(self.days) - 1, i))]

    def mousePressEvent(self, ev):
        d = self._day_at(ev.position().x())
        if d is not None:
            self.day_clicked.emit(d)

    def mouseMoveEvent(self, ev):
        d = self._day_at(ev.position().x())
        if d is not None:
            self.setToolTip(f"{d:%a %Y-%m-%d}: {self.counts.get(d, 0)} episode(s)")

    def paintEvent(self, _):
        p = QPainter(self)
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QPalette.Base))
        if not self.days:
            p.setPen(pal.color(QPalette.PlaceholderText))
            p.drawText(self.rect(), Qt.AlignCenter, "No episodes yet")
            return
        top = max(self.counts.values()) or 1
        w = self.width() / len(self.days)
        band = self.fontMetrics().height() + 2  # month labels live above the bars
        h = self.height() - 3 - band
        accent = QColor("#22c55e")
        sel = pal.color(QPalette.Highlight)
        for i, d in enumerate(self.days):
            n = self.counts.get(d, 0)
            x = i * w
            if d == self.selected:
                p.fillRect(QRectF(x, 0, max(w, 2), self.height()), sel.lighter(150))
            if n:
                bh = max(3.0, h * n / top)
                p.fillRect(
                    QRectF(x + w * 0.1, self.height() - 3 - bh, max(1.0, w * 0.8), bh), accent
                )
            if d.day == 1 or i == 0:  # month ticks with the month and year, above the bars
                p.setPen(pal.color(QPalette.Mid))
                p.drawLine(int(x), 0, int(x), self.height())
                p.setPen(pal.color(QPalette.Text))
                p.drawText(QRectF(x + 3, 0, 90, band), Qt.AlignLeft | Qt.AlignVCenter, f"{d:%b %Y}")


class TimelineView(QWidget):
    def __init__(self, memory, parent=None):
        super().__init__(parent)
        self.memory = memory
        self.strip = DensityStrip()
        self.tree = QTreeWidget()
        # an episode's time is as the agent wrote it: its own local time, not converted
        self.tree.setHeaderLabels(["Day / time (agent's local time)", "Summary"])
        self.tree.setColumnWidth(0, 210)
        self.tree.setUniformRowHeights(True)
        self.tree.setAccessibleName("Episodes by day")
        self.view = MarkdownView()
        self.view.setAccessibleName("Episode")
        self.count = QLabel("")
        split = side_by_side(self.tree, self.view, (2, 3), (420, 600))
        lay = QVBoxLayout(self)
        lay.addWidget(self.count)
        lay.addWidget(self.strip)
        lay.addWidget(split, 1)
        self.tree.currentItemChanged.connect(self._on_current)
        self.strip.day_clicked.connect(self.select_day)
        self._episodes = []

    def reload(self) -> None:
        cur = self.tree.currentItem()
        keep = (cur.data(0, DAY_ROLE), cur.data(0, EP_ROLE)) if cur else None
        eps = self.memory.episodes.list(limit=5000)
        self._episodes = eps
        self.strip.set_counts(self.memory.episodes.density())
        self.tree.blockSignals(True)
        self.tree.clear()
        days: dict[date, QTreeWidgetItem] = {}
        for e in eps:
            item = days.get(e.day)
            if item is None:
                item = QTreeWidgetItem([f"{e.day:%a %Y-%m-%d}", ""])
                item.setData(0, DAY_ROLE, e.day.isoformat())
                days[e.day] = item
                self.tree.addTopLevelItem(item)
            first = e.summary.strip().splitlines()[0] if e.summary.strip() else ""
            child = QTreeWidgetItem([e.time or "—", first.lstrip("#-* ")[:200]])
            child.setData(0, DAY_ROLE, e.day.isoformat())
            child.setData(0, EP_ROLE, e.id)
            child.setToolTip(1, e.summary[:500])
            item.addChild(child)
        for _d, item in days.items():
            item.setText(1, f"{item.childCount()} episode(s)")
        for i in range(min(3, self.tree.topLevelItemCount())):
            self.tree.topLevelItem(i).setExpanded(True)
        self.tree.blockSignals(False)
        span = f" from {min(days):%d %b %Y} to {max(days):%d %b %Y}" if days else ""
        self.count.setText(
            f"{len(eps)} episode(s) over {len(days)} day(s){span} · days and times as each "
            "agent wrote them (its local time)"
            if eps
            else "No episodes yet: session summaries appear here by day."
        )
        if keep and self._reselect(*keep):
            return
        if self.tree.topLevelItemCount():
            first = self.tree.topLevelItem(0)
            self.tree.setCurrentItem(first.child(0) if first.childCount() else first)
        else:
            self.view.set_markdown_text("")

    def _reselect(self, day_iso, ep_id) -> bool:
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top.data(0, DAY_ROLE) != day_iso:
                continue
            if ep_id is None:
                self.tree.setCurrentItem(top)
                return True
            for j in range(top.childCount()):
                if top.child(j).data(0, EP_ROLE) == ep_id:
                    self.tree.setCurrentItem(top.child(j))
                    return True
        return False

    @Slot(object)
    def select_day(self, d: date) -> None:
        # nearest day that has episodes
        if not self._episodes:
            return
        days = sorted({e.day for e in self._episodes}, key=lambda x: abs((x - d).days))
        target = days[0].isoformat()
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top.data(0, DAY_ROLE) == target:
                top.setExpanded(True)
                self.tree.setCurrentItem(top)
                self.tree.scrollToItem(top)
                return

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_current(self, item, _prev) -> None:
        if item is None:
            self.view.set_markdown_text("")
            return
        day = date.fromisoformat(item.data(0, DAY_ROLE))
        self.strip.selected = day
        self.strip.update()
        ep_id = item.data(0, EP_ROLE)
        eps = [e for e in self._episodes if e.day == day and (ep_id is None or e.id == ep_id)]
        parts = [f"# {day:%A, %d %B %Y}"]
        for e in eps:  # already in the order the sessions happened
            head = f"## {e.time}" if e.time else "## Episode"
            tags = f"\n\n*tags: {', '.join(e.tags)}*" if e.tags else ""
            parts.append(f"{head}\n\n{e.summary}{tags}")
        self.view.set_markdown_text("\n\n".join(parts))

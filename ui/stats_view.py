"""Statistics of one agent: counts by category/type/status, importance histogram, growth."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from services import agent_stats
from ui.charts import BarChart, LineChart


class StatsView(QWidget):
    loaded = Signal()

    def __init__(self, memory, runner, parent=None):
        super().__init__(parent)
        self.memory, self.runner = memory, runner
        self.stats = None
        self.summary = QLabel("Loading…")
        self.summary.setWordWrap(True)
        self.by_category = BarChart("Facts by category")
        self.by_type = BarChart("By memory type")
        self.by_status = BarChart("By status")
        self.importance = BarChart("Importance", vertical=True)
        self.growth = LineChart("Growth over time (facts stored)")
        grid = QGridLayout()
        grid.addWidget(self.by_category, 0, 0, 2, 1)
        grid.addWidget(self.by_type, 0, 1)
        grid.addWidget(self.by_status, 1, 1)
        grid.addWidget(self.importance, 2, 0)
        grid.addWidget(self.growth, 2, 1)
        grid.setRowMinimumHeight(2, 200)
        inner = QWidget()
        lay = QVBoxLayout(inner)
        lay.addWidget(self.summary)
        lay.addLayout(grid, 1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def reload(self) -> None:
        memory = self.memory
        self.runner.start(
            f"Statistics of {memory.slug}",
            lambda p, c: agent_stats(memory),
            visible=False,
            success=self._show,
            failure=self.summary.setText,
            interruptible=True,
        )

    def _show(self, s) -> None:
        self.stats = s
        self.summary.setText(
            f"<b>{s.total:,}</b> facts ({s.by_status.get('active', 0):,} active, "
            f"{s.pinned:,} pinned) · <b>{s.episodes:,}</b> episodes"
        )
        self.by_category.set_items(list(s.by_category.items()))
        self.by_type.set_items(list(s.by_type.items()))
        self.by_status.set_items(list(s.by_status.items()))
        self.importance.set_items([(f".{i}", n) for i, n in enumerate(s.importance)])
        self.growth.set_points(s.growth)
        self.loaded.emit()

"""What the four insight views share: a window of their own over the main one, a job that
reads their numbers off the GUI thread, and the painted gauge and status chips."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ui.a11y import set_name

GOOD, WARN, BAD, QUIET = QColor("#16a34a"), QColor("#d97706"), QColor("#dc2626"), QColor("#6b7280")


class InsightWindow(QDialog):
    """A non-modal window: the numbers load in a worker (``load``), then ``show_data``."""

    title = ""

    def __init__(self, window, parent=None):
        super().__init__(parent or window)
        self.window_ = window
        self.engram, self.runner = window.engram, window.runner
        self.setWindowTitle(self.title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.status = QLabel("Reading the store…")
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # it names agents: never markup
        self.status.setWordWrap(True)
        self.lay = QVBoxLayout(self)
        self.lay.addWidget(self.status)
        self.loading = False
        self.resize(1000, 680)

    def add_agent_picker(self, slug: str | None, *beside: QWidget) -> QComboBox:
        """The "Agent:" row above the window's content, on SLUG (else the first agent), with
        BESIDE after it; picking another agent reloads the window."""
        self.agent = QComboBox()
        set_name(self.agent, "Agent")
        for a in self.engram.agents(with_counts=False):
            self.agent.addItem(a.name, a.slug)
        if slug:
            self.agent.setCurrentIndex(max(0, self.agent.findData(slug)))
        top = QHBoxLayout()
        top.addWidget(QLabel("Agent:"))
        top.addWidget(self.agent, 1)
        for w in beside:
            top.addWidget(w)
        self.lay.insertLayout(0, top)
        self.agent.currentIndexChanged.connect(lambda _i: self.reload())
        return self.agent

    @property
    def slug(self) -> str:
        """The agent picked in the window's agent picker."""
        return self.agent.currentData() or ""

    def read(self, progress, cancelled):  # in the worker
        raise NotImplementedError

    def show_data(self, data) -> None:  # on the GUI thread
        raise NotImplementedError

    def reload(self) -> None:
        self.loading = True
        self.runner.start(
            f"Reading {self.title.lower()}",
            self.read,
            success=self._landed,
            failure=self._failed,
            visible=False,
        )

    def _landed(self, data) -> None:
        self.loading = False
        self.show_data(data)

    def _failed(self, message: str) -> None:
        self.loading = False
        self.status.setText(f"Could not read it: {message}")


class Gauge(QWidget):
    """Used against a budget: a bar that turns amber near it and red past it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.used, self.budget = 0, 0
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(240, self.fontMetrics().height() + 10)

    def _label_width(self) -> int:
        return self.fontMetrics().horizontalAdvance("100,000 / 100,000 tokens (100 %)") + 16

    def set_value(self, used: int, budget: int) -> None:
        self.used, self.budget = used, budget
        self.setAccessibleName(f"{used:,} of {budget:,} tokens")
        self.update()

    def colour(self) -> QColor:
        if self.budget and self.used > self.budget:
            return BAD
        return WARN if self.budget and self.used > 0.9 * self.budget else GOOD

    def paintEvent(self, _):
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        full = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        # the figure beside the bar, never over it: readable whatever the bar's colour
        label = QRectF(
            full.right() - self._label_width(), full.y(), self._label_width(), full.height()
        )
        r = full.adjusted(0, 0, -self._label_width() - 8, 0)
        p.setPen(pal.color(QPalette.ColorRole.Mid))
        p.setBrush(pal.color(QPalette.ColorRole.Base))
        p.drawRoundedRect(r, 4, 4)
        share = min(1.0, self.used / self.budget) if self.budget else 0.0
        if share:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(self.colour())
            p.drawRoundedRect(QRectF(r.x(), r.y(), r.width() * share, r.height()), 4, 4)
        p.setPen(pal.color(QPalette.ColorRole.Text))
        if self.budget:
            text = (
                f"{self.used:,} / {self.budget:,} tokens ({round(100 * self.used / self.budget)} %)"
            )
        else:
            text = "not compiled yet"
        p.drawText(label, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, text)

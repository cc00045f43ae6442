"""*What agents load*: one card per agent with the compiled block it loads (plain text: it
is memory, untrusted), its tokens against its budget, what changed in it since yesterday,
and which memories were read in the last week and which never."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from services import load_board
from ui.a11y import set_name
from ui.views.common import Gauge, InsightWindow


def _plain(text: str) -> str:
    return " ".join(text.split())


class AgentCard(QFrame):
    def __init__(self, load, parent=None):
        super().__init__(parent)
        self.load = load
        self.setFrameShape(QFrame.Shape.StyledPanel)
        head = QLabel()
        head.setTextFormat(Qt.TextFormat.PlainText)  # the user's name for it, not markup
        head.setText(f"{load.name} ({load.slug})")
        f = head.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.15)
        head.setFont(f)
        self.gauge = Gauge()
        self.gauge.set_value(load.tokens, load.budget)
        when = f"compiled {load.compiled_at:%Y-%m-%d %H:%M} UTC" if load.compiled_at else ""
        self.changed = QLabel(
            f"Since yesterday: +{len(load.added_since_yesterday)} memories in the block, "
            f"−{len(load.dropped_since_yesterday)} out · {load.facts_in_block} in it · {when}"
        )
        reads = ", ".join(f"{ch} {n}" for ch, n in sorted(load.reads_week.items())) or "none"
        self.recall = QLabel(
            f"Read in the last week: {load.recalled_week:,} of {load.active:,} active · "
            f"never read: {load.never_recalled:,} · reads this week by channel: {reads}"
        )
        for lab in (self.changed, self.recall):
            lab.setWordWrap(True)
            lab.setTextFormat(Qt.TextFormat.PlainText)
        self.block = QPlainTextEdit(load.block or "(not compiled yet: Engram → Compile all)")
        self.block.setReadOnly(True)
        self.block.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        set_name(self.block, f"{load.slug}: the compiled block it loads")
        self.recalled = QListWidget()
        set_name(self.recalled, f"{load.slug}: memories read in the last week")
        for b in load.recalled[:20]:
            self.recalled.addItem(f"#{b.id} ×{b.access_count} {_plain(b.content)[:120]}")
        if not load.recalled:
            self.recalled.addItem("Nothing read in the last week")
        grid = QGridLayout(self)
        grid.addWidget(head, 0, 0, 1, 2)
        grid.addWidget(self.gauge, 1, 0, 1, 2)
        grid.addWidget(self.changed, 2, 0, 1, 2)
        grid.addWidget(self.recall, 3, 0, 1, 2)
        grid.addWidget(QLabel("The block it loads (memory.md):"), 4, 0)
        grid.addWidget(QLabel("Read in the last week (× times read):"), 4, 1)
        grid.addWidget(self.block, 5, 0)
        grid.addWidget(self.recalled, 5, 1)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        self.block.setMinimumHeight(140)
        self.recalled.setMinimumHeight(140)


class LoadBoard(InsightWindow):
    title = "What agents load"

    def __init__(self, window, parent=None):
        super().__init__(window, parent)
        self.cards: dict[str, AgentCard] = {}
        self.inner = QWidget()
        self.inner_lay = QVBoxLayout(self.inner)
        self.area = QScrollArea()
        self.area.setWidgetResizable(True)
        self.area.setWidget(self.inner)
        self.area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the cards' widgets take Tab
        self.lay.addWidget(self.area, 1)
        self.reload()

    def read(self, progress, cancelled):
        return load_board(self.engram)

    def show_data(self, loads) -> None:
        for card in self.cards.values():
            card.deleteLater()
        self.cards = {}
        for load in loads:
            card = AgentCard(load, self.inner)
            self.inner_lay.addWidget(card)
            self.cards[load.slug] = card
        self.inner_lay.addStretch(1)
        over = [x.slug for x in loads if x.over_budget]
        self.status.setText(
            f"{len(loads)} agent(s). What each loads is its compiled memory.md"
            + (f"; over budget: {', '.join(over)}." if over else ".")
            if loads
            else "No agents yet."
        )

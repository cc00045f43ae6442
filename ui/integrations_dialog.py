"""Agent integrations: which agents can reach Engram over MCP, switched per agent and app.

One row per Engram agent; one checkbox per coding agent (Claude Code, Codex, Cursor, Gemini
CLI, OpenCode) says whether that agent's config starts ``engram mcp --agent <row>``; ticking
registers it (with a backup, undone byte for byte when unticked). The last column holds MCP
writes of that agent in the review inbox until the user accepts them.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from services import (
    MCP_TARGET_NAMES,
    EngramError,
    mcp_registrations,
    mcp_review_required,
    set_mcp_registration,
    set_mcp_review,
)

REVIEW = "review"


class IntegrationsDialog(QDialog):
    def __init__(self, engram, parent=None, home: Path | None = None):
        super().__init__(parent)
        self.engram = engram
        self.home = home
        self.setWindowTitle("Agent integrations (MCP)")
        self.resize(760, 360)
        self.targets = list(MCP_TARGET_NAMES)
        lay = QVBoxLayout(self)
        intro = QLabel(
            "Tick an app to let it read and write this agent's memory over MCP (Engram adds "
            "itself to that app's MCP server list, beside your own servers). “Review” keeps "
            "what an app writes in the review inbox until you accept it."
        )
        intro.setWordWrap(True)
        lay.addWidget(intro)
        self.table = QTableWidget(0, len(self.targets) + 1, self)
        self.table.setHorizontalHeaderLabels(
            [MCP_TARGET_NAMES[t] for t in self.targets] + ["Review MCP writes"]
        )
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        lay.addWidget(self.table)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.slugs: list[str] = []
        self.refresh()
        self.table.itemChanged.connect(self._toggled)

    def refresh(self) -> None:
        self.table.blockSignals(True)
        regs = mcp_registrations(self.engram)
        self.slugs = [a.slug for a in self.engram.agents(with_counts=False)]
        self.table.setRowCount(len(self.slugs))
        self.table.setVerticalHeaderLabels(self.slugs)
        for row, slug in enumerate(self.slugs):
            for col, target in enumerate(self.targets):
                reg = regs.get(slug, {}).get(target)
                item = self._check(reg is not None and reg["present"])
                if reg is not None:
                    item.setToolTip(reg["path"])
                self.table.setItem(row, col, item)
            self.table.setItem(
                row, len(self.targets), self._check(mcp_review_required(self.engram, slug))
            )
        self.table.blockSignals(False)

    @staticmethod
    def _check(on: bool) -> QTableWidgetItem:
        item = QTableWidgetItem()
        item.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
        item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        return item

    def is_checked(self, slug: str, column: str) -> bool:
        col = len(self.targets) if column == REVIEW else self.targets.index(column)
        item = self.table.item(self.slugs.index(slug), col)
        return item is not None and item.checkState() == Qt.CheckState.Checked

    def set_checked(self, slug: str, column: str, on: bool) -> None:
        """What a click on that checkbox does (tests and keyboard users go through here)."""
        col = len(self.targets) if column == REVIEW else self.targets.index(column)
        item = self.table.item(self.slugs.index(slug), col)
        item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    @Slot(QTableWidgetItem)
    def _toggled(self, item: QTableWidgetItem) -> None:
        slug = self.slugs[item.row()]
        on = item.checkState() == Qt.CheckState.Checked
        try:
            if item.column() == len(self.targets):
                set_mcp_review(self.engram, slug, on)
                self.status.setText(
                    f"{slug}: MCP writes {'wait for review' if on else 'are active at once'}."
                )
            else:
                target = self.targets[item.column()]
                plan = set_mcp_registration(self.engram, slug, target, on, home=self.home)
                where = next((str(c.path) for c in plan.changes), "")
                self.status.setText(
                    f"{MCP_TARGET_NAMES[target]} {'now starts' if on else 'no longer starts'} "
                    f"Engram's MCP server for {slug} ({where})."
                )
        except (EngramError, OSError, ValueError) as exc:
            self.status.setText(f"Not changed: {exc}")
        self.refresh()

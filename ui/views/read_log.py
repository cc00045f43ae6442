"""Per agent: who read what (MCP ``recall`` and ``get_context``, the hooks' context
injection), newest first, and the *Pause capture* switch: an incognito session in which the
agent's MCP ``remember``, hooks and transcript capture write nothing until resumed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from PySide6.QtWidgets import (
    QCheckBox,
    QHeaderView,
    QTableWidgetItem,
)

from services import agent_reads, capture_paused, read_counts, set_capture_paused
from ui.a11y import set_name
from ui.tables import read_only_table
from ui.views.common import InsightWindow


class ReadLogView(InsightWindow):
    title = "Read log"

    def __init__(self, window, parent=None, slug: str | None = None):
        super().__init__(window, parent)
        self.pause = QCheckBox("Pause capture (incognito)")
        self.pause.setToolTip(
            "While paused, this agent's MCP remember, hooks and transcripts store nothing"
        )
        self.pause.toggled.connect(self._toggle)
        self.add_agent_picker(slug, self.pause)
        self.table = read_only_table(["When (UTC)", "How", "#", "Memory read"])
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        h.resizeSection(0, self.fontMetrics().horizontalAdvance("2026-12-31 23:59:59") + 20)
        h.resizeSection(1, self.fontMetrics().horizontalAdvance("mcp get_context") + 24)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        h.resizeSection(2, self.fontMetrics().horizontalAdvance("#999999") + 16)
        set_name(self.table, "Reads of this agent's memories")
        self.lay.addWidget(self.table, 1)
        self.reload()

    def read(self, progress, cancelled):
        slug = self.slug
        if not slug:
            return None
        m = self.engram.agent(slug)
        now = datetime.now(UTC).replace(tzinfo=None)  # the store keeps naive UTC
        week = read_counts(m.agent_id, now - timedelta(days=7))
        return slug, capture_paused(m.agent_id), agent_reads(m.agent_id), week

    def show_data(self, data) -> None:
        self.table.setRowCount(0)
        if data is None:
            self.status.setText("No agents yet.")
            return
        slug, paused, reads, week = data
        if slug != self.slug:
            return  # another agent was chosen meanwhile; its read is on the way
        self.pause.blockSignals(True)
        self.pause.setChecked(paused)
        self.pause.blockSignals(False)
        self.table.setRowCount(len(reads))
        for r, read in enumerate(reads):
            cells = [f"{read.at:%Y-%m-%d %H:%M:%S}", read.channel, str(read.fact_id)]
            cells.append(" ".join(read.content.split()))  # plain text: memory is untrusted
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
        by = ", ".join(f"{ch}: {n:,}" for ch, n in sorted(week.items())) or "none"
        state = "Capture is PAUSED: nothing is stored for this agent. " if paused else ""
        self.status.setText(f"{state}Reads in the last week — {by}. Kept 30 days; ids only.")

    def _toggle(self, on: bool) -> None:
        slug = self.slug
        if not slug:
            return
        memory = self.engram.agent(slug)
        self.runner.start(
            "Pausing capture" if on else "Resuming capture",
            lambda p, c: set_capture_paused(memory.agent_id, on),
            serial=True,
            visible=False,
            success=lambda _r: self._toggled(slug, on),
        )

    def _toggled(self, slug: str, on: bool) -> None:
        self.window_.show_message(
            f"Capture paused for {slug}: nothing is stored until you resume."
            if on
            else f"Capture resumed for {slug}."
        )
        self.reload()

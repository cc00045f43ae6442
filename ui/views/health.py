"""*Memory health* for one agent: facts that say the same thing, facts gone stale, conflicts
waiting for review, facts never read; each section with the action that fixes it (Merge,
Archive, Review). Archived facts keep why and come back from the Archived view."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
)

from services import archive_with_reason, memory_health, merge_duplicates
from ui.a11y import set_name
from ui.views.common import InsightWindow

SECTIONS = ("duplicates", "stale", "conflicts", "never")
TITLES = {
    "duplicates": "Say the same thing",
    "stale": "Stale: not read in 90 days",
    "conflicts": "Conflicts waiting for review",
    "never": "Never read (stored over a week ago)",
}
ACTIONS = {
    "duplicates": "Merge checked copies (keep the newest)",
    "stale": "Archive checked stale facts",
    "conflicts": "Review the conflicts…",
    "never": "Archive checked never-read facts",
}


def _line(text: str) -> str:
    return " ".join(text.split())[:160]


class HealthView(InsightWindow):
    title = "Memory health"
    limit = 200  # findings listed per section ("200+" when there are more)
    acted = Signal(str, list)  # section, fact ids changed

    def __init__(self, window, parent=None, slug: str | None = None):
        super().__init__(window, parent)
        self.add_agent_picker(slug)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Memory", "#", "Why"])
        self.tree.setColumnWidth(0, 560)
        self.tree.setColumnWidth(1, self.fontMetrics().horizontalAdvance("#999999") + 16)
        set_name(self.tree, "Memory health findings")
        self.lay.addWidget(self.tree, 1)
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for key in SECTIONS:
            b = QPushButton(ACTIONS[key])
            b.setAutoDefault(False)
            b.clicked.connect(lambda _=False, k=key: self.act(k))
            self.buttons[key] = b
            row.addWidget(b)
        self.lay.addLayout(row)
        self.groups: dict[str, QTreeWidgetItem] = {}
        self.data = None
        self.reload()

    def read(self, progress, cancelled):
        slug = self.slug
        return memory_health(self.engram.agent(slug), limit=self.limit) if slug else None

    def show_data(self, health) -> None:
        self.data = health
        self.tree.clear()
        self.groups = {}
        if health is None:
            self.status.setText("No agents yet.")
            return
        counts = {
            "duplicates": health.duplicate_copies,
            "stale": len(health.stale),
            "conflicts": len(health.conflicts),
            "never": len(health.never_recalled),
        }
        for key in SECTIONS:
            more = "+" if counts[key] >= self.limit and key != "duplicates" else ""
            top = QTreeWidgetItem([f"{TITLES[key]} ({counts[key]:,}{more})", "", ""])
            f = top.font(0)
            f.setBold(True)
            top.setFont(0, f)
            self.tree.addTopLevelItem(top)
            self.groups[key] = top
        for group in health.duplicates:
            keep = group[0]
            parent = QTreeWidgetItem([_line(keep.content), f"#{keep.id}", f"{len(group)} copies"])
            parent.setData(0, Qt.ItemDataRole.UserRole, [b.id for b in group])
            parent.setCheckState(0, Qt.CheckState.Checked)
            for b in group[1:]:
                child = QTreeWidgetItem([_line(b.content), f"#{b.id}", f"same words as #{keep.id}"])
                parent.addChild(child)
            self.groups["duplicates"].addChild(parent)
        for key, rows, why in (
            ("stale", health.stale, "stored {:%Y-%m-%d}, not read since"),
            ("never", health.never_recalled, "stored {:%Y-%m-%d}, never read"),
        ):
            for b in rows:
                item = QTreeWidgetItem([_line(b.content), f"#{b.id}", why.format(b.created_at)])
                item.setData(0, Qt.ItemDataRole.UserRole, [b.id])
                item.setCheckState(0, Qt.CheckState.Checked)
                self.groups[key].addChild(item)
        for it in health.conflicts:
            other = it.detail.get("with_fact")
            item = QTreeWidgetItem(
                [_line(it.fact.content), f"#{it.fact.id}", f"contradicts #{other}" if other else ""]
            )
            item.setData(0, Qt.ItemDataRole.UserRole, [it.fact.id])
            self.groups["conflicts"].addChild(item)
        for top in self.groups.values():
            top.setExpanded(top.childCount() > 0)
        dups = self.groups["duplicates"]
        for i in range(min(dups.childCount(), 20)):  # the copies show under their first
            group = dups.child(i)
            if group is not None:
                group.setExpanded(True)
        for key, b in self.buttons.items():
            b.setEnabled(counts[key] > 0)
        total = sum(counts.values())
        self.status.setText(
            f"{self.agent.currentText()}: {total:,} finding(s). Archived facts keep why and "
            "come back from the agent's Archived view."
            if total
            else f"{self.agent.currentText()}: nothing to fix."
        )

    def checked(self, key: str) -> list[list[int]]:
        top = self.groups.get(key)
        if top is None:
            return []
        out = []
        for i in range(top.childCount()):
            item = top.child(i)
            if item is None:
                continue
            if key == "conflicts" or item.checkState(0) == Qt.CheckState.Checked:
                out.append(list(item.data(0, Qt.ItemDataRole.UserRole) or []))
        return out

    def act(self, key: str) -> int:
        if key == "conflicts":
            tab = self.window_.agent_tabs.get(self.slug)
            if tab is not None:  # the agent's Review view decides each conflict
                self.window_.tabs.setCurrentWidget(tab)
                tab.show_view("Review")
                self.window_.raise_()
                self.window_.activateWindow()
            return 0
        picked = self.checked(key)
        if not picked:
            return 0
        memory = self.engram.agent(self.slug)
        reason = {"stale": "stale: not read in 90 days", "never": "never read"}.get(key, "")

        def op(progress, cancelled):
            done: list[int] = []
            for i, ids in enumerate(picked):
                progress(i, len(picked), "")
                if key == "duplicates":
                    done += merge_duplicates(memory, ids)
                else:
                    done += archive_with_reason(memory, ids, reason)
            return done

        verb = "Merging" if key == "duplicates" else "Archiving"
        return self.runner.start(
            f"{verb} {len(picked):,} finding(s) of {self.slug}",
            op,
            serial=True,
            success=lambda ids: self._acted(key, ids),
        )

    def _acted(self, key: str, ids: list) -> None:
        self.window_.show_message(
            f"{len(ids):,} fact(s) archived"
            + (" as copies" if key == "duplicates" else "")
            + "; the agent's Archived view restores them."
        )
        self.acted.emit(key, list(ids))
        self.reload()

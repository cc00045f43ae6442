"""Edit one fact (content, category, importance, tags, pin) and read its history.

The editor never writes: Save emits ``edit_requested(fact_id, before, after)`` and the tab
turns it into an undoable command.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from services import FactView
from ui.a11y import set_name
from ui.filter_bar import CATEGORIES
from ui.settings_text import guard_wheel
from ui.undo import FIELDS, values_of

ACTION_TEXT = {
    "create": "created",
    "edit": "edited",
    "pin": "pinned",
    "unpin": "unpinned",
    "delete": "deleted",
    "restore": "restored",
    "supersede": "replaced",
    "redact": "redacted",
}


def _describe(ev: dict) -> str:
    before, after = ev.get("before") or {}, ev.get("after") or {}
    if ev["action"] in ("edit", "pin", "unpin") and before and after:
        changed = [k for k in after if k not in ("updated_at",) and before.get(k) != after.get(k)]
        parts = []
        for k in changed[:4]:
            b, a = before.get(k), after.get(k)
            if k == "content":
                parts.append(f"content: “{_short(b)}” → “{_short(a)}”")
            else:
                parts.append(f"{k}: {json.dumps(b)} → {json.dumps(a)}")
        return "; ".join(parts) or "no visible change"
    if ev["action"] == "supersede" or ev["fact_id"] != ev.get("_current"):
        text = (before or after).get("content")
        return f"#{ev['fact_id']}: “{_short(text)}”" if text else f"#{ev['fact_id']}"
    text = (after or before).get("content")
    return f"“{_short(text)}”" if text else ""


ACTORS = {
    "user": "you",
    "engram": "Engram",
    "gc": "the clean-up (GC)",
    "demo": "the demo",
    "cli": "the engram command",
    "hook": "the agent's hook",
    "import": "an import",
    "sync": "a workspace sync",
    "compile": "the compiler",
}


def who(actor: str | None, source: str | None = None) -> str:
    """Who or what an audit actor is, in words: user, app, hook, mcp:<client>, import…"""
    a = (actor or "").strip()
    if a.startswith("mcp:"):
        return f"the MCP client {a[4:] or '(unnamed)'}"
    if a.startswith(("team:", "user:")):
        return f"team member {a.split(':', 1)[1]}"
    if a.startswith("hook"):
        return "the agent's hook" + (f" ({a.split(':', 1)[1]})" if ":" in a else "")
    if a.startswith("import"):
        return "an import" + (f" of {source}" if source and source != "manual" else "")
    return ACTORS.get(a, a or "unknown")


ORIGINS = {"cli": "the engram command", "app": "you, in the app", "hook": "the agent's hook"}


def who_did(ev: dict, source: str | None = None) -> str:
    """Who made an audit event: its actor when that is a program (GC, an MCP client, an
    import), else where the write came from (the CLI, a hook, the app) and as whom."""
    actor = (ev.get("actor") or "").strip()
    origin = (ev.get("origin") or "").strip()
    if actor and actor != "user":
        return who(actor, source)
    if not origin or origin == "app":
        return "you"
    base = ORIGINS.get(origin) or who(origin, source)
    user = ev.get("by_user")
    return f"{base} (as {user})" if user else base


def readable_change(ev: dict) -> str:
    """A history event's before → after as lines a person reads (it was raw JSON)."""
    before, after = ev.get("before") or {}, ev.get("after") or {}
    lines = [f"{ACTION_TEXT.get(ev['action'], ev['action'])} by {who(ev.get('actor'))}"]
    if ev.get("reason"):
        lines.append(f"why: {ev['reason']}")
    for k in sorted(set(before) | set(after)):
        if k in ("updated_at", "id", "agent_id", "content_hash", "metadata"):
            continue
        b, a = before.get(k), after.get(k)
        if b == a:
            continue
        if k == "content":
            lines.append(f"content: “{_short(b, 200)}” → “{_short(a, 200)}”")
        elif before and after:
            lines.append(f"{k}: {b} → {a}")
        else:
            lines.append(f"{k}: {a if after else b}")
    return "\n".join(lines[:14])


def _plain(f: FactView) -> dict:
    """The editable fields as the editor holds them (importance to 2 places)."""
    v = values_of(f)
    v["importance"] = round(v["importance"], 2)
    return v


def _short(s, n: int = 60) -> str:
    s = (s or "").replace("\n", " ")
    return s if len(s) <= n else s[: n - 1] + "…"


class FactEditor(QWidget):
    edit_requested = Signal(int, dict, dict)  # fact id, before, after

    def __init__(self, parent=None):
        super().__init__(parent)
        self.fact: FactView | None = None
        self.base: FactView | None = None  # the version the typing started from
        self.title = QLabel("No fact selected")
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.content = QPlainTextEdit()
        self.content.setTabChangesFocus(True)
        self.content.setAccessibleName("Fact content")
        self.content.setMinimumHeight(70)
        self.content.setMaximumHeight(160)
        self.category = QComboBox(editable=True)
        self.category.addItems([c for c in CATEGORIES if not c.endswith(":")])
        self.importance = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        guard_wheel(self.importance)
        guard_wheel(self.category)
        self.tags = QLineEdit()
        self.tags.setPlaceholderText("comma, separated")
        # the explanation is the tooltip: in the 900 px window the long label was cut off
        self.pinned = QCheckBox("Pinned")
        self.pinned.setToolTip("Pinned facts are kept first and never decay")
        set_name(self.category, "Category")
        set_name(self.importance, "Importance", "0 to 1; pinned facts never decay")
        set_name(self.tags, "Tags", "comma separated")
        set_name(self.pinned, "Pinned")
        self.save_btn = QPushButton("&Save")
        self.save_btn.setToolTip("Save changes (Ctrl+S); undo with Ctrl+Z")
        self.revert_btn = QPushButton("Re&vert")
        self.provenance = QLabel("")
        self.provenance.setWordWrap(True)
        self.provenance.setAccessibleName("Who wrote this fact")
        self.meta = QLabel("")
        self.meta.setWordWrap(True)
        self.meta.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.history = QTreeWidget()
        self.history.setHeaderLabels(["When (UTC)", "What"])
        self.history.setRootIsDecorated(False)
        self.history.setUniformRowHeights(True)
        self.history.setAlternatingRowColors(True)
        set_name(self.history, "History of this fact")
        hh = self.history.header()
        hh.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        hh.setStretchLastSection(True)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        form.addRow("&Content", self.content)
        form.addRow("C&ategory", self.category)
        form.addRow("&Importance", self.importance)
        form.addRow("&Tags", self.tags)
        form.addRow("", self.pinned)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.revert_btn)
        buttons.addWidget(self.save_btn)
        hist_box = QGroupBox("History")
        hl = QVBoxLayout(hist_box)
        hl.addWidget(self.history)

        lay = QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addLayout(form)
        lay.addLayout(buttons)
        lay.addWidget(self.provenance)
        lay.addWidget(self.meta)
        lay.addWidget(hist_box, 1)

        self.save_btn.clicked.connect(self.save)
        self.revert_btn.clicked.connect(self.revert)
        QShortcut(
            QKeySequence.Save, self, activated=self.save, context=Qt.WidgetWithChildrenShortcut
        )
        for sig in (
            self.content.textChanged,
            self.category.currentTextChanged,
            self.importance.valueChanged,
            self.tags.textChanged,
            self.pinned.toggled,
        ):
            sig.connect(self._update_buttons)
        self.set_fact(None)

    def set_fact(self, fact: FactView | None, history: list[dict] | None = None) -> None:
        same = fact is not None and self.fact is not None and fact.id == self.fact.id
        # typing that now equals the stored fact (it was just saved) is not unsaved work
        dirty = same and self.is_dirty() and self.values() != _plain(fact)
        self.fact = fact
        if not dirty:
            self.base = fact
        enabled = fact is not None
        for w in (self.content, self.category, self.importance, self.tags, self.pinned):
            w.setEnabled(enabled)
        if fact is None:
            self.title.setText("No fact selected — pick one in the list to edit it.")
            self.meta.setText("")
            self.provenance.setText("")
            self.history.clear()
            for w in (self.content, self.tags, self.category, self.importance, self.pinned):
                w.blockSignals(True)
            self.content.clear()
            self.tags.clear()
            self.category.setCurrentText("")
            self.importance.setValue(0)
            self.pinned.setChecked(False)
            for w in (self.content, self.tags, self.category, self.importance, self.pinned):
                w.blockSignals(False)
            self._update_buttons()
            return
        self.title.setText(f"<b>Fact #{fact.id}</b> · {fact.memory_type} · {fact.status}")
        if not dirty:  # a refresh must not throw away what the user is typing
            self._load(fact)
        acc = fact.last_accessed.strftime("%Y-%m-%d %H:%M") if fact.last_accessed else "never"
        sup = f" · superseded by #{fact.superseded_by}" if fact.superseded_by else ""
        self.meta.setText(
            f"Source: {fact.source}{' (' + fact.source_ref + ')' if fact.source_ref else ''}"
            f" · created {fact.created_at:%Y-%m-%d %H:%M} · updated {fact.updated_at:%Y-%m-%d %H:%M}"
            f" · accessed {fact.access_count}× (last {acc}){sup}"
        )
        self._set_history(history or [])
        self.provenance.setText(self._provenance(fact, history or []))
        self._update_buttons()

    @staticmethod
    def _provenance(fact: FactView, history: list[dict]) -> str:
        mine = [e for e in history if e.get("fact_id") in (None, fact.id)]
        first = next((e for e in mine if e["action"] in ("create", "restore")), None)
        by = who_did(first, fact.source) if first else who(None, fact.source)
        if first is None and fact.source:
            by = f"{fact.source} (no audit record)"
        text = f"<b>Written by</b> {by}"
        last = next((e for e in reversed(mine) if e is not first), None)
        if last is not None and last.get("actor"):
            what = ACTION_TEXT.get(last["action"], last["action"])
            text += f" · last {what} by {who_did(last)}"
        return text

    def _load(self, f: FactView) -> None:
        widgets = (self.content, self.category, self.importance, self.tags, self.pinned)
        for w in widgets:
            w.blockSignals(True)
        self.content.setPlainText(f.content)
        self.category.setCurrentText(f.category)
        self.importance.setValue(f.importance)
        self.tags.setText(", ".join(f.tags))
        self.pinned.setChecked(f.pinned)
        for w in widgets:
            w.blockSignals(False)

    def _set_history(self, events: list[dict]) -> None:
        self.history.clear()
        for ev in reversed(events):  # newest first
            ev = dict(ev, _current=self.fact.id if self.fact else None)
            when = ev["created_at"].replace("T", " ")[:16]
            what = ACTION_TEXT.get(ev["action"], ev["action"])
            if ev.get("actor") and ev["actor"] != "user":
                what += f" by {who(ev['actor'])}"
            details = _describe(ev)
            item = QTreeWidgetItem([when, f"{what}: {details}" if details else what])
            item.setData(0, Qt.UserRole, ev["action"])
            item.setToolTip(1, readable_change(ev))
            self.history.addTopLevelItem(item)

    def values(self) -> dict:
        tags = [t.strip() for t in self.tags.text().split(",") if t.strip()]
        return {
            "content": self.content.toPlainText().strip(),
            "category": self.category.currentText().strip() or "fact",
            "importance": round(self.importance.value(), 2),
            "tags": tags,
            "pinned": self.pinned.isChecked(),
        }

    def is_dirty(self) -> bool:
        """Typed changes against the version the user started from (``base``): a refresh
        after an outside edit must not turn the typing into "no change", nor hide that the
        stored fact moved on (``changed_outside``)."""
        base = self.base or self.fact
        return base is not None and self.values() != _plain(base)

    def changed_outside(self) -> bool:
        return (
            self.base is not None
            and self.fact is not None
            and _plain(self.base) != _plain(self.fact)
        )

    def note_kept(self) -> None:
        """The fact left the list (a search, a filter, Clear) while it has unsaved typing:
        the editor keeps it, and says so."""
        if self.fact is not None and self.is_dirty():
            self.title.setText(
                f"<b>Fact #{self.fact.id}</b> · not in the list now · "
                "<i>unsaved changes kept: Save (Ctrl+S) or Revert</i>"
            )

    @Slot()
    def _update_buttons(self, *_):
        dirty = self.is_dirty()
        self.save_btn.setEnabled(dirty)
        self.revert_btn.setEnabled(dirty)

    @Slot()
    def revert(self) -> None:
        if self.fact is not None:
            self.base = self.fact
            self._load(self.fact)
            self._update_buttons()

    @Slot()
    def save(self) -> None:
        if self.fact is None or not self.is_dirty():
            return
        new = self.values()
        old = values_of(self.base or self.fact)
        changed = [
            k for k in FIELDS if new[k] != (round(old[k], 2) if k == "importance" else old[k])
        ]
        before = {k: old[k] for k in changed}
        after = {k: new[k] for k in changed}
        self.edit_requested.emit(self.fact.id, before, after)

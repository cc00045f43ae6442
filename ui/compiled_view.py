"""Compiled memory: memory.md and the today/week/long-term layers, a token meter per budget,
the facts behind each line (hover for a summary, click for the list), and a diff with the
previous compilation. Works through the compile service."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from services import latest_layers, layer_diff
from ui.markdown_view import MarkdownView

LAYERS = ["memory", "today", "week", "longterm"]
_MARKER = re.compile(r"^\s*(#{1,6}\s+|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+|>\s*)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def line_key(text: str) -> str:
    """A markdown source line and the block it renders to agree on this: no list or heading
    marker, a link's text without its address, only letters and digits."""
    text = _LINK.sub(r"\1", _MARKER.sub("", text))
    return re.sub(r"\W+", "", text).lower()


LAYER_TITLES = {
    "memory": "memory.md",
    "today": "Today",
    "week": "This week",
    "longterm": "Long-term",
}


class LayerPane(QWidget):
    """One layer: token meter, source lines with provenance, rendered view, diff."""

    open_facts = Signal(list)  # fact ids to show in the Facts view

    def __init__(self, name: str, memory, parent=None):
        super().__init__(parent)
        self.name, self.memory = name, memory
        self.layer = None
        self.meter = QProgressBar()
        self.meter.setTextVisible(True)
        self.meter.setAccessibleName(f"{name} token budget")
        self.when = QLabel("")
        self.lines = QListWidget()
        self.lines.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.lines.setMouseTracking(True)
        self.lines.setWordWrap(True)
        self.lines.setAccessibleName("Compiled lines (hover or click to see their facts)")
        self.sources = QListWidget()
        self.sources.setAccessibleName("Facts behind the selected line")
        self.rendered = MarkdownView()
        self.rendered.setAccessibleName("Rendered memory (hover a line to see its facts)")
        self.rendered.viewport().installEventFilter(self)
        self._rendered_ids: dict[str, list[int]] = {}
        self.diff = QPlainTextEdit(readOnly=True)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        views = QTabWidget()
        views.addTab(self.rendered, "Rendered")
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.lines, 3)
        ll.addWidget(
            QLabel(
                "Facts behind the selected line (double-click a line, or click a fact, "
                "to open it in Facts):"
            )
        )
        ll.addWidget(self.sources, 1)
        views.addTab(left, "Lines && sources")
        views.addTab(self.diff, "Diff with previous")
        self.views = views
        top = QHBoxLayout()
        top.addWidget(QLabel("Tokens:"))
        top.addWidget(self.meter, 1)
        top.addWidget(self.when)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(views, 1)
        self.lines.currentRowChanged.connect(self._on_line)
        self.lines.itemEntered.connect(self._on_hover)
        self.lines.itemActivated.connect(self._open_line)
        self.sources.itemClicked.connect(self._open_source)
        self.sources.itemActivated.connect(self._open_source)

    @Slot(QListWidgetItem)
    def _open_line(self, item) -> None:
        ids = list(item.data(Qt.UserRole) or [])
        if ids:
            self.open_facts.emit(ids)

    @Slot(QListWidgetItem)
    def _open_source(self, item) -> None:
        fid = item.data(Qt.UserRole)
        if fid:
            self.open_facts.emit([fid])

    def set_layer(self, layer) -> None:
        self.layer = layer
        self.lines.clear()
        self.sources.clear()
        if layer is None:
            self.meter.setRange(0, 1)
            self.meter.setValue(0)
            self.meter.setFormat("not compiled yet")
            self.rendered.set_markdown_text(
                f"*{LAYER_TITLES[self.name]} has not been compiled "
                "yet. Use Compile now (Ctrl+Shift+C).*"
            )
            self.diff.setPlainText("")
            self.when.setText("")
            return
        budget = int(getattr(layer, "budget", 0) or 0)
        tokens = int(getattr(layer, "tokens", 0) or 0)
        self.meter.setRange(0, max(budget, tokens, 1))
        self.meter.setValue(tokens)
        over = budget and tokens > budget
        self.meter.setFormat(
            f"{tokens:,} / {budget:,} tokens" + (" — over budget!" if over else "")
        )
        self.meter.setStyleSheet("QProgressBar::chunk { background: #dc2626; }" if over else "")
        self.rendered.set_markdown_text(layer.markdown or "")
        prov = {int(n): list(ids) for n, ids in (getattr(layer, "provenance", None) or [])}
        self._rendered_ids = {}
        for i, line in enumerate((layer.markdown or "").splitlines(), start=1):
            item = QListWidgetItem(line or " ")
            ids = prov.get(i, [])
            if ids and line_key(line):
                known = self._rendered_ids.setdefault(line_key(line), [])
                known += [x for x in ids if x not in known]
            item.setData(Qt.UserRole, ids)
            if ids:
                item.setToolTip(
                    f"From fact{'s' * (len(ids) > 1)} " + ", ".join(f"#{x}" for x in ids[:12])
                )
            self.lines.addItem(item)
        try:
            diff = layer_diff(self.memory, self.name)
        except Exception as exc:
            diff = f"(no diff: {exc})"
        self.diff.setPlainText(diff or "No previous compilation to compare with.")
        self._color_diff()

    def _color_diff(self) -> None:
        doc = self.diff.document()
        block = doc.begin()
        from PySide6.QtGui import QTextCursor

        while block.isValid():
            t = block.text()
            color = None
            if t.startswith("+") and not t.startswith("+++"):
                color = QColor("#16a34a")
            elif t.startswith("-") and not t.startswith("---"):
                color = QColor("#dc2626")
            if color is not None:
                cur = QTextCursor(block)
                cur.select(QTextCursor.BlockUnderCursor)
                fmt = QTextCharFormat()
                fmt.setForeground(color)
                cur.mergeCharFormat(fmt)
            block = block.next()

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        if obj is self.rendered.viewport() and ev.type() == QEvent.Type.ToolTip:
            pos = ev.pos()  # type: ignore[attr-defined]  # a QHelpEvent
            text = self.rendered_sources_at(pos)
            if text:
                QToolTip.showText(ev.globalPos(), text, self.rendered.viewport())  # type: ignore[attr-defined]
            else:
                QToolTip.hideText()
            return True
        return super().eventFilter(obj, ev)

    def rendered_sources_at(self, pos: QPoint) -> str:
        """What the Rendered view's hover says: the facts behind the line under ``pos`` (from
        the layer's provenance), or "" off the text or on a line no fact made."""
        view = self.rendered
        block = view.cursorForPosition(pos).block()
        rect = view.document().documentLayout().blockBoundingRect(block)
        offset = QPoint(view.horizontalScrollBar().value(), view.verticalScrollBar().value())
        if not rect.contains(pos + offset):
            return ""
        ids = self._rendered_ids.get(line_key(block.text()), [])
        return self._summary(ids)

    def _summary(self, ids: list[int]) -> str:
        if not ids:
            return ""
        rows = self.memory.facts.rows(ids[:6])
        head = f"From fact{'s' * (len(ids) > 1)} " + ", ".join(f"#{x}" for x in ids[:12])
        lines = [f"#{i}: {rows[i].content[:100]}" for i in ids[:6] if i in rows]
        more = [f"… and {len(ids) - 6} more"] if len(ids) > 6 else []
        return "\n".join([head, *lines, *more])

    def facts_of_line(self, row: int) -> list[int]:
        item = self.lines.item(row)
        return list(item.data(Qt.UserRole) or []) if item else []

    @Slot(QListWidgetItem)
    def _on_hover(self, item) -> None:
        ids = item.data(Qt.UserRole) or []
        if ids and not item.toolTip().count("\n"):
            rows = self.memory.facts.rows(ids[:6])
            text = "\n".join(f"#{i}: {rows[i].content[:100]}" for i in ids[:6] if i in rows)
            item.setToolTip(text or item.toolTip())

    @Slot(int)
    def _on_line(self, row: int) -> None:
        self.sources.clear()
        ids = self.facts_of_line(row)
        if not ids:
            self.sources.addItem("(no facts: a heading or a line written by the compiler)")
            return
        rows = self.memory.facts.rows(ids)
        for i in ids:
            f = rows.get(i)
            item = QListWidgetItem(
                f"#{i} [{f.category}] {f.content}"
                if f
                else f"#{i} (deleted since this compilation)"
            )
            if f:
                item.setData(Qt.UserRole, i)
                item.setToolTip("Click to open this fact in Facts")
            self.sources.addItem(item)


class CompiledView(QWidget):
    compile_requested = Signal()
    open_facts = Signal(list)

    def __init__(self, memory, parent=None):
        super().__init__(parent)
        self.memory = memory
        self.notice = QLabel("")
        self.notice.setWordWrap(True)
        self.compile_btn = QPushButton("Compile &now")
        self.compile_btn.setToolTip("Compile this agent's layers (Ctrl+Shift+C)")
        self.compile_btn.clicked.connect(self.compile_requested)
        from ui.theme import icon

        self.compile_btn.setIcon(icon("compile"))
        self.tabs = QTabWidget()
        self.panes = {name: LayerPane(name, memory) for name in LAYERS}
        for name in LAYERS:
            self.tabs.addTab(self.panes[name], LAYER_TITLES[name])
            self.panes[name].open_facts.connect(self.open_facts)
        head = QHBoxLayout()
        head.addWidget(self.notice, 1)
        head.addWidget(self.compile_btn)
        lay = QVBoxLayout(self)
        lay.addLayout(head)
        lay.addWidget(self.tabs, 1)

    def reload(self) -> None:
        try:
            layers = latest_layers(self.memory) or {}
        except Exception as exc:
            self.notice.setText(f"Could not read compiled layers: {exc}")
            return
        for name, pane in self.panes.items():
            pane.set_layer(layers.get(name))
        if layers:
            self.notice.setText(
                f"Compiled layers of {self.memory.info.name}. Hover a line of the Rendered "
                "view to see the facts behind it; the Lines && sources tab lists them (click "
                "a line).".replace("&&", "&")
            )
        else:
            self.notice.setText("Nothing compiled yet for this agent.")

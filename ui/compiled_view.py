"""Compiled memory: memory.md and the today/week/long-term layers, a token meter per budget,
the facts behind each line (hover for a summary, click for the list), and a diff with the
previous compilation. Works through the compile service."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
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
    QVBoxLayout,
    QWidget,
)

from services import latest_layers, layer_diff
from ui.markdown_view import MarkdownView

LAYERS = ["memory", "today", "week", "longterm"]
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
        for i, line in enumerate((layer.markdown or "").splitlines(), start=1):
            item = QListWidgetItem(line or " ")
            ids = prov.get(i, [])
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
                f"Compiled layers of {self.memory.info.name}. The Lines && sources tab "
                "shows the facts behind each line: hover a line for a summary, click it for "
                "the list.".replace("&&", "&")
            )
        else:
            self.notice.setText("Nothing compiled yet for this agent.")

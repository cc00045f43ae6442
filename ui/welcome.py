"""First run: the window is there at once and offers three ways in: Find my agents (the
memory files already on this machine), Try the demo (seeded in a worker, clearly marked)
or Start empty."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)


def describe_source(src) -> str:
    """One line for a discovered source (services.interop.discover.DiscoveredSource)."""
    label = getattr(src, "label", None) or str(getattr(src, "kind", "source"))
    tool = getattr(src, "agent_kind", "") or ""
    bits = [f"<b>{tool}</b> · {label}" if tool else f"<b>{label}</b>"]
    entries = getattr(src, "entries", None)
    if isinstance(entries, int):
        bits.append(f"{entries:,} entries")
    if getattr(src, "imported_by", None):
        bits.append(f"already imported by {src.imported_by}")
    if getattr(src, "problem", None):
        bits.append(f"cannot be read: {src.problem}")
    elif not getattr(src, "importable", True):
        bits.append("transcripts (read by the session hooks, not imported here)")
    path = getattr(src, "path", "")
    return " · ".join(bits) + (f"<br><small>{path}</small>" if path else "")


class WelcomePage(QWidget):
    find_requested = Signal()
    demo_requested = Signal()
    empty_requested = Signal()
    import_requested = Signal(list)  # the chosen discovered sources

    def __init__(self, parent=None):
        super().__init__(parent)
        title = QLabel("<h2>Welcome to Engram</h2>")
        intro = QLabel(
            "Engram shows what your AI agents remember, lets you correct it, and erases what "
            "they should not keep. Nothing leaves this computer. How do you want to start?"
        )
        intro.setWordWrap(True)
        self.find_btn = QPushButton("Find my agents")
        self.find_btn.setToolTip(
            "Look for the memory files of Claude Code, Codex, Cursor, Gemini, Hermes… on this "
            "computer and pick which to import"
        )
        self.demo_btn = QPushButton("Try the demo")
        self.demo_btn.setToolTip("Four made-up agents with a few hundred facts, marked as demo")
        self.empty_btn = QPushButton("Start empty")
        self.empty_btn.setToolTip("Create your first agent yourself (File → New agent)")
        row = QGridLayout()
        row.setHorizontalSpacing(16)
        row.setColumnStretch(1, 1)
        for r, b in enumerate((self.find_btn, self.demo_btn, self.empty_btn)):
            b.setMinimumHeight(36)
            b.setMinimumWidth(150)
            row.addWidget(b, r, 0)
            text = QLabel(b.toolTip())
            text.setWordWrap(True)
            row.addWidget(text, r, 1)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.hide()
        self.sources_box = QWidget()
        self.sources_lay = QVBoxLayout(self.sources_box)
        self.sources_lay.setAlignment(Qt.AlignTop)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.sources_box)
        scroll.setFrameShape(QScrollArea.NoFrame)
        self.import_btn = QPushButton("Import the checked sources")
        self.import_btn.hide()
        self.checks: list[tuple[QCheckBox, object]] = []

        inner = QWidget()
        inner.setMaximumWidth(760)
        lay = QVBoxLayout(inner)
        lay.addWidget(title)
        lay.addWidget(intro)
        lay.addLayout(row)
        lay.addWidget(self.status)
        lay.addWidget(self.progress)
        lay.addWidget(scroll, 1)
        lay.addWidget(self.import_btn, 0, Qt.AlignLeft)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        outer.addWidget(inner, 4)
        outer.addStretch(1)

        self.find_btn.clicked.connect(self.find_requested)
        self.demo_btn.clicked.connect(self.demo_requested)
        self.empty_btn.clicked.connect(self.empty_requested)
        self.import_btn.clicked.connect(self._import_checked)

    def busy(self, text: str, done: int = 0, total: int = 0) -> None:
        for b in (self.find_btn, self.demo_btn, self.empty_btn):
            b.setEnabled(False)
        self.status.setText(text)
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(f"{done} of {total}" if total else "")
        self.progress.show()

    def idle(self, text: str = "") -> None:
        for b in (self.find_btn, self.demo_btn, self.empty_btn):
            b.setEnabled(True)
        self.progress.hide()
        self.status.setText(text)

    def show_sources(self, sources: list) -> None:
        for cb, _src in self.checks:
            cb.deleteLater()
        self.checks = []
        if not sources:
            self.idle("No agent memory files found on this computer.")
            self.import_btn.hide()
            return
        self.idle(f"Found {len(sources)} source(s). Check the ones to import:")
        for src in sources:
            cb = QCheckBox()
            usable = getattr(src, "importable", True) and not getattr(src, "imported_by", None)
            cb.setChecked(bool(usable))
            cb.setEnabled(bool(usable))
            label = QLabel(describe_source(src))
            label.setTextFormat(Qt.RichText)
            line = QHBoxLayout()
            line.addWidget(cb)
            line.addWidget(label, 1)
            self.sources_lay.addLayout(line)
            self.checks.append((cb, src))
        self.import_btn.show()

    @Slot()
    def _import_checked(self) -> None:
        chosen = [src for cb, src in self.checks if cb.isChecked()]
        if chosen:
            self.import_requested.emit(chosen)

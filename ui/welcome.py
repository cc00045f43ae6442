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


def find_sources():
    """The native-files discover service (``services.discover_sources``), looked up when the
    button is pressed so a build without it still opens; None when it is not there."""
    import services

    try:
        return services.discover_sources
    except AttributeError:
        return None


def describe_source(src) -> str:
    """One line for a discovered source, whatever record shape the service returns."""
    get = src.get if isinstance(src, dict) else lambda k, d=None: getattr(src, k, d)
    tool = get("tool") or get("agent") or get("kind") or "source"
    path = get("path") or ""
    count = get("count") or get("entries")
    fmt = get("format") or get("fmt")
    bits = [f"<b>{tool}</b>"]
    if fmt:
        bits.append(str(fmt))
    if count is not None:
        bits.append(f"{count:,} entries" if isinstance(count, int) else str(count))
    return " · ".join(bits) + (f"<br><small>{path}</small>" if path else "")


class WelcomePage(QWidget):
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

        self.find_btn.clicked.connect(self.find_agents)
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

    @Slot()
    def find_agents(self) -> None:
        fn = find_sources()
        if fn is None:
            self.status.setText(
                "Finding agents needs the discover service, which this build does not have "
                "yet. Use File → Import memory files… to pick files or folders."
            )
            return
        try:
            sources = list(fn())
        except Exception as exc:  # a bad home directory entry must not kill the page
            self.status.setText(f"Could not look for agents: {exc}")
            return
        self.show_sources(sources)

    def show_sources(self, sources: list) -> None:
        for cb, _src in self.checks:
            cb.deleteLater()
        self.checks = []
        if not sources:
            self.status.setText("No agent memory files found on this computer.")
            self.import_btn.hide()
            return
        self.status.setText(f"Found {len(sources)} source(s). Check the ones to import:")
        for src in sources:
            cb = QCheckBox()
            cb.setChecked(True)
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

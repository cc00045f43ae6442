"""The tray's actions live in a controller (Vorta habit): the tray menu and, where no tray
exists (offscreen, bare Xvfb, some desktops), the window's menu are both built from it, and
tests drive it without a tray. Menus are rebuilt on ``aboutToShow`` so they are current."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon

from services import CompileService, run_gc


def _summary(result) -> str:
    layers = getattr(result, "layers", None) or {}
    if layers:
        parts = [
            f"{n} {getattr(l, 'tokens', 0)}/{getattr(l, 'budget', 0)}" for n, l in layers.items()
        ]
        return ", ".join(parts) + " tokens"
    return "done"


class TrayController(QObject):
    compiled = Signal(str)  # human summary of the last compile
    gc_done = Signal(str)
    gc_requested = Signal()  # the window previews first (ui/gc_dialog.py)
    gc_reports = Signal(dict)  # slug → GCReport of a finished run (the undo step)
    toggle_window = Signal()
    quit_requested = Signal()

    def __init__(self, engram, runner, parent=None):
        super().__init__(parent)
        self.engram, self.runner = engram, runner
        self.last_compile: tuple[datetime, str] | None = None
        self.last_gc: tuple[datetime, str] | None = None
        self.tray: QSystemTrayIcon | None = None
        self._menu: QMenu | None = None
        self.act_show = QAction("Show/Hide Engram", self)
        self.act_show.triggered.connect(self.toggle_window)
        self.act_compile_all = QAction("Compile now (all agents)", self)
        self.act_compile_all.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.act_compile_all.triggered.connect(self.compile_all)
        self.act_gc = QAction("Run GC (all agents)", self)
        self.act_gc.setShortcut(QKeySequence("Ctrl+Shift+G"))
        self.act_gc.triggered.connect(self.gc_requested)
        self.act_last = QAction("", self)
        self.act_last.setEnabled(False)
        self.act_quit = QAction("Quit Engram", self)
        self.act_quit.setShortcut(
            QKeySequence("Ctrl+Q")
        )  # QKeySequence.Quit is empty on some platforms
        self.act_quit.triggered.connect(self.quit_requested)
        self._update_states()

    # menus ---------------------------------------------------------------------------------
    def populate(self, menu: QMenu) -> None:
        """Fill ``menu`` with the current actions (called on every aboutToShow)."""
        menu.clear()
        self._update_states()
        menu.addAction(self.act_show)
        menu.addSeparator()
        menu.addAction(self.act_compile_all)
        sub = menu.addMenu("Compile one agent")
        for a in self.engram.agents():
            act = sub.addAction(f"{a.name} ({a.fact_count} facts)")
            act.setData(a.slug)
            act.triggered.connect(self._compile_from_menu)
        menu.addAction(self.act_gc)
        menu.addSeparator()
        menu.addAction(self.act_last)
        menu.addSeparator()
        menu.addAction(self.act_quit)

    def _update_states(self) -> None:
        if self.last_compile is None:
            self.act_last.setText("Last compile: never (this session)")
        else:
            when, text = self.last_compile
            self.act_last.setText(f"Last compile {when:%H:%M:%S}: {text}"[:90])

    def install_tray(self, icon) -> bool:
        """Show a tray icon if the desktop has a tray; returns whether it did."""
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return False
        self._menu = QMenu()
        self._menu.aboutToShow.connect(self._rebuild_tray_menu)
        self.populate(self._menu)
        self.tray = QSystemTrayIcon(icon, self)
        self.tray.setToolTip("Engram")
        self.tray.setContextMenu(self._menu)
        self.tray.activated.connect(self._on_activated)
        self.tray.show()
        QApplication.instance().setQuitOnLastWindowClosed(False)
        return True

    def remove_tray(self) -> None:
        if self.tray is not None:
            self.tray.hide()
            self.tray.deleteLater()
            self.tray = None

    @Slot()
    def _rebuild_tray_menu(self) -> None:
        self.populate(self._menu)

    @Slot(QSystemTrayIcon.ActivationReason)
    def _on_activated(self, reason) -> None:
        if reason == QSystemTrayIcon.Trigger:
            self.toggle_window.emit()

    # jobs ----------------------------------------------------------------------------------
    @Slot()
    def _compile_from_menu(self) -> None:
        act = self.sender()
        if isinstance(act, QAction) and act.data():
            self.compile(act.data())

    @Slot()
    def compile_all(self) -> int:
        return self.compile(None)

    def compile(self, slug: str | None) -> int:
        """Compile one agent (or all) in a worker; returns the job id."""
        engram = self.engram
        slugs = [slug] if slug else [a.slug for a in engram.agents()]

        def one(i, s, progress, cancelled):
            return CompileService(engram.agent(s)).compile(
                progress=lambda d, t, m="": progress(
                    i, len(slugs), f"{s}: {m}" if m else f"Compiling {s}"
                ),
                cancelled=cancelled,
            )

        op = _each_agent(slugs, one, lambda i, s: f"Compiling {s}", done="Compiled")

        title = f"Compiling {slug}" if slug else "Compiling all agents"
        return self.runner.start(
            title,
            op,
            success=self._compiled,
            failure=lambda m: self._record_compile(f"failed: {m}"),
            on_cancel=lambda: self._record_compile("cancelled"),
        )

    def _compiled(self, results: dict) -> None:
        if len(results) == 1:
            ((slug, r),) = results.items()
            text = f"{slug}: {_summary(r)}"
        else:
            text = f"{len(results)} agents compiled"
        self._record_compile(text)

    def _record_compile(self, text: str) -> None:
        self.last_compile = (datetime.now(), text)
        self._update_states()
        self.compiled.emit(text)
        if self.tray is not None and self.tray.isVisible():
            self.tray.setToolTip(f"Engram — last compile: {text}")

    @Slot()
    def gc_all(self) -> int:
        engram = self.engram
        slugs = [a.slug for a in engram.agents()]

        op = _each_agent(
            slugs,
            lambda i, s, progress, cancelled: run_gc(engram.agent(s), cancelled=cancelled),
            lambda i, s: f"GC {s} ({i + 1} of {len(slugs)})",
        )
        return self.runner.start(
            "Running GC",
            op,
            success=self._gc_finished,
            failure=lambda m: self.gc_done.emit(f"GC failed: {m}"),
        )

    def _gc_finished(self, reports: dict) -> None:
        n = sum(r.expired + r.archived + r.evicted for r in reports.values())
        text = f"GC done for {len(reports)} agent(s): {n} fact(s) archived"
        self.gc_reports.emit(reports)
        self.last_gc = (datetime.now(), text)
        self.gc_done.emit(text)


def _each_agent(slugs: list[str], step, label, done: str | None = None):
    """A job that runs ``step(i, slug, progress, cancelled)`` for each agent in turn (stopping
    at a cancel) and returns the results by slug; ``label(i, slug)`` names the step."""

    def op(progress, cancelled):
        out = {}
        for i, s in enumerate(slugs):
            if cancelled():
                break
            progress(i, len(slugs), label(i, s))
            out[s] = step(i, s, progress, cancelled)
        if done is not None:
            progress(len(slugs), len(slugs), done)
        return out

    return op

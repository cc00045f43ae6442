"""Lifecycle: compile, garbage collection (previewed first; its step undoable from any tab)
and re-indexing an agent's vectors."""

from __future__ import annotations

from PySide6.QtCore import Slot

from ui.controllers.base import Controller
from ui.gc_dialog import GCCommand, GCPreviewDialog


class LifecycleController(Controller):
    gc_dialog: GCPreviewDialog | None = None

    def __init__(self, window):
        super().__init__(window)
        tray = window.tray
        tray.compiled.connect(self._on_compiled)
        tray.gc_done.connect(self._on_gc)
        tray.gc_requested.connect(self.gc_preview)
        tray.gc_reports.connect(self._gc_step)

    @Slot(str)
    def _on_compiled(self, text: str) -> None:
        self.show_message(f"Compile: {text}")
        tab = self.w.current_agent_tab()
        if tab is not None and tab.views.currentIndex() == 2:
            tab.compiled.reload()

    @Slot()
    def gc_preview(self) -> GCPreviewDialog:
        """Ctrl+Shift+G: preview first; the run starts only from the dialog's button."""
        dlg = GCPreviewDialog(self.engram, self.runner, self.w)
        dlg.confirmed.connect(self.w.tray.gc_all)
        dlg.finished.connect(dlg.deleteLater)
        self.gc_dialog = dlg
        dlg.open()
        return dlg

    @Slot(dict)
    def _gc_step(self, reports: dict) -> None:
        """A GC run spans agents: its step lives on the window's stack and the notice holds
        it, so it is undone from any tab (after a restart: Archived → Restore this GC run)."""
        w = self.w
        cmd = GCCommand(self.engram, self.runner, reports, self._gc_undone)
        w.window_stack.push(cmd)
        w.notice.confirm(cmd.text().replace("Run GC", "GC ran"), True, w.window_stack, cmd)

    def _gc_undone(self, cmd) -> None:
        self.w.notice.confirm(
            cmd.text().replace("Run GC", "GC ran"), not cmd._undone, self.w.window_stack, cmd
        )
        self.w.agents_ctl.on_store_changed()

    @Slot(str)
    def _on_gc(self, text: str) -> None:
        self.show_message(text)
        self.w.agents_ctl.on_store_changed()

    @Slot()
    def reindex(self) -> int:
        tab = self.w.current_agent_tab()
        if tab is None:
            return 0
        memory = tab.memory
        return self.runner.start(
            f"Re-indexing {memory.slug}",
            lambda p, c: memory.rebuild_index(
                progress=lambda d, t: p(d, t, "Re-indexing"), cancelled=c
            ),
            success=lambda n: self.show_message(f"Re-indexed {n} fact(s)"),
            failure=self.show_error,
        )

"""The window's menu bar: a shortcut for every main action, F1's list of them, About.

Built with the frame, before the store opens: the actions that need the store are off until
``attach`` and call their controller through the window (made at ``attach``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu

from ui.controllers.base import Controller
from ui.theme import icon

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

# keys that belong to a widget, not to a menu (F1 lists them too)
EXTRA_KEYS = (
    ("Save the fact being edited", "Ctrl+S"),
    ("Revert the fact being edited", "Alt+V"),
    ("Review: accept / edit / hide for now / reject (erase, asks first)", "A / E / N / R"),
    ("Archived: restore the selected facts", "Enter"),
)


class WindowMenus(Controller):
    shortcuts_box: QMessageBox | None = None

    def _act(
        self, menu: QMenu, text: str, slot, shortcut=None, tip: str | None = None, store=True
    ) -> QAction:
        """``store``: the action needs the store, so it is off until ``attach`` (its key
        does nothing while the window is still opening it)."""
        a = QAction(text, self.w)
        if store:
            a.setEnabled(False)
            self.w._store_actions.append(a)
        if shortcut is not None:
            # the property, not setShortcut(): resolving that overload builds the Qt
            # namespace's ~100 Python enums (~10 ms), before the first paint
            a.setProperty("shortcut", QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(slot)
        menu.addAction(a)
        return a

    def build(self) -> None:
        w = self.w
        mb = w.menuBar()
        self._build_file(mb.addMenu("&File"))
        self._build_edit(mb.addMenu("&Edit"))
        self._build_view(mb.addMenu("&View"))

        w.engram_menu = mb.addMenu("E&ngram")
        w.engram_menu.aboutToShow.connect(self._rebuild_engram_menu)
        # filled on first open (populate lists agents: a COUNT over every fact)

        h = mb.addMenu("&Help")
        self._act(h, "&Keyboard shortcuts", self.show_shortcuts, "F1", store=False)
        self._act(h, "&About Engram", self.about)

    def _build_file(self, f: QMenu) -> None:
        w = self.w
        w.act_add_agent = self._act(f, "&New agent…", lambda: w.agents_ctl.add_agent(), "Ctrl+N")
        w.act_find_agents = self._act(
            f,
            "&Find my agents…",
            lambda: w.startup_ctl.find_agents_again(),
            tip="Look for the memory files and transcripts of the agents on this computer",
        )
        w.act_rename_agent = self._act(
            f, "&Rename agent…", lambda: w.agents_ctl.rename_agent(), "F2"
        )
        # a lambda: triggered(checked=False) must not reach a parameter of remove_agent
        w.act_remove_agent = self._act(
            f, "Re&move agent…", lambda: w.agents_ctl.remove_agent(), "Ctrl+Shift+Backspace"
        )
        w.act_trash = self._act(
            f,
            "T&rash (removed agents)…",
            lambda: w.agents_ctl.open_trash(),
            tip="Restore a removed agent",
        )
        f.addSeparator()
        w.act_import = self._act(
            f, "&Import memory files…", lambda: w.imports_ctl.import_files(), "Ctrl+I"
        )
        w.act_transcripts = self._act(
            f,
            "Import &transcripts…",
            lambda: w.imports_ctl.import_transcripts(),
            tip="Learn from an agent's session transcripts (a Claude Code project or Codex "
            "sessions folder)",
        )
        w.act_reindex = self._act(
            f, "Re-&index vectors", lambda: w.lifecycle_ctl.reindex(), "Ctrl+Shift+R"
        )
        f.addSeparator()
        w.act_settings = self._act(f, "&Settings…", lambda: w.team_ctl.open_settings(), "Ctrl+,")
        w.act_team_store = self._act(
            f, "&Team store and sync…", lambda: w.team_ctl.open_team_store()
        )
        w.act_integrations = self._act(
            f,
            "Agent &integrations (MCP)…",
            lambda: w.team_ctl.open_integrations(),
            tip="Which apps reach Engram over MCP",
        )
        f.addSeparator()
        # the tray's Quit takes its place at attach; until then quitting needs no store
        w.act_quit_early = self._act(f, "Quit Engram", w.quit, "Ctrl+Q", store=False)
        w.file_menu = f

    def _build_edit(self, e: QMenu) -> None:
        w, undo = self.w, self.w.undo_ctl
        # on or off by the undo stacks (_update_undo_actions), which exist from the start
        w.act_undo = self._act(e, "&Undo", undo.undo_latest, "Ctrl+Z", store=False)
        w.act_redo = self._act(e, "&Redo", undo.redo_latest, "Ctrl+Shift+Z", store=False)
        w.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for sig in (w.undo_group.indexChanged, w.undo_group.activeStackChanged):
            sig.connect(undo._update_undo_actions)
        w.window_stack.indexChanged.connect(undo._update_undo_actions)
        undo._update_undo_actions()
        e.addSeparator()
        w.act_find = self._act(
            e, "&Find…", lambda: w.agents_ctl.focus_search(), QKeySequence.StandardKey.Find
        )

        def on_tab(method: str):
            return lambda: w.agents_ctl._on_tab(method)

        w.act_add_fact = self._act(e, "&Add fact…", on_tab("add_fact"), "Ctrl+Shift+N")
        w.act_pin = self._act(e, "&Pin", on_tab("pin_selected"), "Ctrl+P")
        w.act_unpin = self._act(e, "U&npin", on_tab("unpin_selected"), "Ctrl+Shift+P")
        w.act_recat = self._act(e, "Change &category…", on_tab("recategorize_selected"), "Ctrl+K")
        w.act_delete = self._act(
            e, "&Delete", on_tab("delete_selected"), QKeySequence.StandardKey.Delete
        )
        w.act_pin.setIcon(icon("pin"))
        w.act_delete.setIcon(icon("delete"))
        w.act_forget = self._act(
            e, "&Forget permanently…", lambda: w.privacy_ctl.forget(), "Ctrl+Shift+Del"
        )

    def _build_view(self, v: QMenu) -> None:
        w = self.w
        # the agent views (Facts, Timeline, …) are listed at attach: their names come with
        # the agent tab's module, which loads with the store
        w.view_menu, self._views_sep = v, v.addSeparator()
        self._act(v, "&All agents", lambda: w.tabs.setCurrentIndex(0), "Ctrl+0")
        self._act(v, "Next agent", lambda: w.agents_ctl._next_tab(), "Ctrl+Tab")
        self._act(v, "Previous agent", lambda: w.agents_ctl._prev_tab(), "Ctrl+Shift+Tab")
        self._act(v, "&Refresh", lambda: w.agents_ctl.on_store_changed(), "F5")
        w.act_dark = self._act(v, "&Dark palette", self.toggle_dark, "Ctrl+Shift+D", store=False)
        w.act_dark.setCheckable(True)
        app = QApplication.instance()
        if app is not None:
            w.act_dark.setChecked(
                app.palette().color(app.palette().ColorRole.Window).lightness() < 128
            )
        w.act_cancel = self._act(v, "Cancel running job", lambda: w.jobs.cancel(), "Esc")
        w.act_privacy = self._act(
            v, "&Privacy: receipts and rules…", lambda: w.privacy_ctl.open_privacy()
        )
        w.act_jobs_log = self._act(v, "&Jobs log…", lambda: w.jobs.log_dialog(w).exec())

    def attach(self) -> None:
        """The store is there: its actions turn on, the tray's join the menus."""
        from PySide6.QtCore import Qt

        from ui.agent_tab import VIEWS

        w = self.w
        for i, name in enumerate(VIEWS, start=1):
            a = QAction(name, w)
            a.setShortcut(QKeySequence(f"Ctrl+{i}"))
            a.triggered.connect(lambda _=False, n=name: w.agents_ctl._show_view(n))
            w.view_menu.insertAction(self._views_sep, a)
        w.file_menu.insertAction(w.act_quit_early, w.tray.act_quit)
        w.file_menu.removeAction(w.act_quit_early)
        w.act_quit_early.setEnabled(False)  # one Ctrl+Q: the tray's
        w.tray.act_compile_all.setIcon(icon("compile"))
        w.act_cancel.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        # the controller's shortcuts must work without opening the menu
        for a in (w.tray.act_compile_all, w.tray.act_gc, w.tray.act_quit):
            w.addAction(a)
        for a in w._store_actions:
            a.setEnabled(True)
        w.undo_ctl._update_undo_actions()

    @Slot()
    def _rebuild_engram_menu(self) -> None:
        if self.engram is None:
            self.w.engram_menu.clear()
            self.w.engram_menu.addAction("Opening your memory…").setEnabled(False)
            return
        self.w.tray.populate(self.w.engram_menu)

    @Slot()
    def toggle_dark(self) -> None:
        from ui.theme import apply_theme

        apply_theme(QApplication.instance(), self.w.act_dark.isChecked())

    def show_shortcuts(self) -> None:
        from PySide6.QtWidgets import QMessageBox  # F1 works before the store is attached

        rows = []
        # the Engram menu fills itself when opened: its actions are listed from the window
        for a in self.w.actions():
            if not a.shortcut().isEmpty():
                rows.append(
                    f"<tr><td>{a.text().replace('&', '')}</td>"
                    f"<td><b>{a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)}</b></td></tr>"
                )
        for menu in self.w.menuBar().findChildren(QMenu):
            for a in menu.actions():
                if not a.shortcut().isEmpty():
                    rows.append(
                        f"<tr><td>{a.text().replace('&', '')}</td>"
                        f"<td><b>{a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)}</b></td></tr>"
                    )
        for what, key in EXTRA_KEYS:
            rows.append(f"<tr><td>{what}</td><td><b>{key}</b></td></tr>")
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "Keyboard shortcuts",
            "<table>" + "".join(dict.fromkeys(rows)) + "</table>",
            QMessageBox.StandardButton.Ok,
            self.w,
        )
        self.shortcuts_box = box
        box.exec()
        self.shortcuts_box = None

    def about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        from services.version import VERSION as __version__

        model = "on" if self.engram.semantic_enabled else "off"
        QMessageBox.about(
            self.w,
            "About Engram",
            f"<b>Engram {__version__}</b><br>See, search, correct and erase what "
            f"your AI agents remember.<br>Store: {self.engram.config.data_dir}"
            f"<br>Semantic search: {model}",
        )

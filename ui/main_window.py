"""The main window: an "All agents" search tab, one tab per agent, menus with a shortcut for
every main action, a job bar (progress + Cancel) and the store watcher."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence, QUndoGroup, QUndoStack
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QMenu,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from ui.a11y import set_name
from ui.notice import UndoNotice
from ui.theme import icon
from ui.views import install as install_views

if TYPE_CHECKING:
    # ``Qt`` too: its namespace builds ~100 Python enums on first access (~11 ms); the
    # dialogs' classes their own (~2 ms)
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QInputDialog, QMessageBox, QSplitter

    from services import EngramError, ImportFormatError
    from ui.agent_tab import VIEWS, AgentTab
    from ui.fact_editor import FactEditor
    from ui.forget_dialog import ForgetDialog
    from ui.gc_dialog import GCCommand, GCPreviewDialog
    from ui.import_dialog import ImportDialog, ImportReportDialog
    from ui.jobs_bar import JobsBar
    from ui.new_agent_dialog import NewAgentDialog
    from ui.privacy_view import PrivacyView
    from ui.search_panel import SearchPanel
    from ui.settings_dialog import SettingsDialog
    from ui.store_watcher import StoreWatcher
    from ui.sync_auto import AutoSync
    from ui.sync_box import SyncIndicator
    from ui.team_store_dialog import TeamStoreDialog
    from ui.trash import RemoveAgentCommand, TrashDialog
    from ui.tray import TrayController
    from ui.undo_keys import UndoKeys
    from ui.welcome import WelcomePage
    from ui.workers import JobRunner
    from ui.workspace_watcher import WorkspaceWatcher


def load_store_parts() -> None:
    """Import what needs a store: the tabs, dialogs, tray and ``services`` (peewee, numpy,
    markdown: ~300 ms). They are not imported with this module so the window paints first
    (``python -X importtime``: nothing of them loads before the first paint); ``attach``
    calls this, and app/main.py calls it in its opening thread. The names become this
    module's globals, which the methods below use as if imported at the top."""
    global EngramError, ImportFormatError, AgentTab, FactEditor, ForgetDialog, GCCommand
    global GCPreviewDialog, ImportDialog, ImportReportDialog, NewAgentDialog, PrivacyView
    global SearchPanel, SettingsDialog, StoreWatcher, TeamStoreDialog, RemoveAgentCommand
    global TrashDialog, TrayController, WelcomePage, WorkspaceWatcher, VIEWS, SyncIndicator
    global AutoSync
    global Qt, JobRunner, JobsBar, UndoKeys, QInputDialog, QMessageBox, QSplitter
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QInputDialog, QMessageBox, QSplitter

    from services import EngramError, ImportFormatError
    from ui.agent_tab import VIEWS, AgentTab
    from ui.fact_editor import FactEditor
    from ui.forget_dialog import ForgetDialog
    from ui.gc_dialog import GCCommand, GCPreviewDialog
    from ui.import_dialog import ImportDialog, ImportReportDialog
    from ui.jobs_bar import JobsBar
    from ui.new_agent_dialog import NewAgentDialog
    from ui.privacy_view import PrivacyView
    from ui.search_panel import SearchPanel
    from ui.settings_dialog import SettingsDialog
    from ui.store_watcher import StoreWatcher
    from ui.sync_auto import AutoSync
    from ui.sync_box import SyncIndicator
    from ui.team_store_dialog import TeamStoreDialog
    from ui.trash import RemoveAgentCommand, TrashDialog
    from ui.tray import TrayController
    from ui.undo_keys import UndoKeys
    from ui.welcome import WelcomePage
    from ui.workers import JobRunner
    from ui.workspace_watcher import WorkspaceWatcher


log = logging.getLogger(__name__)
OPENING_TEXT = "<p align='center'>Opening your memory…</p>"
# keys that belong to a widget, not to a menu (F1 lists them too)
EXTRA_KEYS = (
    ("Save the fact being edited", "Ctrl+S"),
    ("Revert the fact being edited", "Alt+V"),
    ("Review: accept / edit / hide for now / reject (erase, asks first)", "A / E / N / R"),
    ("Archived: restore the selected facts", "Enter"),
)


class AllAgentsTab(QWidget):
    """Search every agent at once; picking a hit opens it in its agent's tab."""

    def __init__(self, engram, runner, parent=None):
        super().__init__(parent)
        self.engram = engram
        self.search = SearchPanel(engram, runner, None, parent=self)
        self.preview = FactEditor()
        self.preview.title.setText("Pick a result to see it here.")
        for w in (
            self.preview.content,
            self.preview.category,
            self.preview.importance,
            self.preview.tags,
            self.preview.pinned,
        ):
            w.setEnabled(False)
        self.preview.save_btn.hide()
        self.preview.revert_btn.hide()
        hint = QLabel(
            "Search the memories of every agent. Press Enter (or double-click) on a "
            "result to open it in its agent's tab, where it can be edited."
        )
        hint.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.search)
        split.addWidget(self.preview)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([980, 340])
        lay = QVBoxLayout(self)
        lay.addWidget(hint)
        lay.addWidget(split, 1)
        self.search.hit_activated.connect(self._preview)

    @Slot(str, int)
    def _preview(self, slug: str, fact_id: int) -> None:
        try:
            mem = self.engram.agent(slug)
            self.preview.set_fact(mem.get(fact_id), mem.facts.history(fact_id))
        except EngramError:
            self.preview.set_fact(None)
            return
        for w in (
            self.preview.content,
            self.preview.category,
            self.preview.importance,
            self.preview.tags,
            self.preview.pinned,
        ):
            w.setEnabled(False)
        self.preview.title.setText(f"<b>{slug}</b> · " + self.preview.title.text())


class MainWindow(QMainWindow):
    demo_facts = 300  # how many facts "Try the demo" writes
    agents_changed = Signal()
    first_page_painted = Signal()
    window_painted = Signal()  # once: the window (opened store or not) is on screen
    semantic_ready = Signal(bool)

    # made at ``attach`` (they need the store); declared here for the type checker
    engram: Any  # None until ``attach``
    runner: JobRunner
    watcher: StoreWatcher
    workspaces: WorkspaceWatcher
    tray: TrayController
    all_tab: AllAgentsTab
    jobs: JobsBar

    def __init__(
        self,
        engram=None,
        use_tray: bool = True,
        load_semantic: bool = False,
        parent=None,
        demo_if_empty: bool = False,
    ):
        """With ``engram`` the window is complete at once (tests, scripts). With None it is
        the frame a user sees first: title, geometry, theme, menus (store actions off) and an
        "Opening your memory…" page; ``attach`` adds the store's tabs, tray and watchers."""
        super().__init__(parent)
        self.engram = None
        self.setWindowTitle("Engram")
        self.setWindowIcon(icon())
        self._quitting = False
        self.has_tray = False
        self._options = (use_tray, load_semantic, demo_if_empty)
        self.undo_group = QUndoGroup(self)
        self.window_stack = QUndoStack(self)  # steps of no one agent's tab (GC of all agents)
        self.undo_group.addStack(self.window_stack)
        self.gc_dialog: GCPreviewDialog | None = None
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        set_name(self.tabs, "Agents")
        set_name(self.tabs.tabBar(), "Agents")
        self.agent_tabs: dict[str, AgentTab] = {}
        self._infos: dict = {}  # slug → AgentInfo last read
        self.welcome: WelcomePage | None = None
        # rich text centres it without the Qt namespace (imported with the store)
        self.opening = QLabel(OPENING_TEXT)
        self.opening.setWordWrap(True)
        # a tab, not a bare label: the tab bar is there from the first paint, so the page
        # below it does not move when the store's tabs replace this one
        self.tabs.addTab(self.opening, "Engram")
        self.setCentralWidget(self.tabs)
        # the status bar with its Undo notice (hidden until a write) from the first paint: the
        # notice's height is the bar's, so the tab area does not shrink at attach
        self.notice = UndoNotice()
        self.notice.undo_requested.connect(self.undo_group.undo)
        self.notice.redo_requested.connect(self.undo_group.redo)
        self.notice.stale.connect(self.show_message)
        # permanent: a timed status message must not paint over the Undo
        self.statusBar().addPermanentWidget(self.notice)
        self._store_actions: list[QAction] = []
        self._build_menus()
        self._restore_settings()
        if engram is not None:
            self.attach(engram)

    def attach(self, engram) -> None:
        """The store is open: build the tabs, tray, job bar and watchers, turn the store's
        menu actions on, and start the workers (model, demo) the options asked for."""
        load_store_parts()
        use_tray, load_semantic, demo_if_empty = self._options
        self.engram = engram
        self._undo_keys = UndoKeys(self)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self._undo_keys)
        self.runner = JobRunner(db=engram.db, parent=self)
        self.runner.job_progress.connect(self._demo_progress)
        self.watcher = StoreWatcher(engram, parent=self)
        self.watcher.changed.connect(self.on_store_changed)
        self.workspaces = WorkspaceWatcher(engram, self.runner, parent=self)
        self.workspaces.synced.connect(self._on_workspace_synced)
        self.workspaces.failed.connect(self._on_workspace_failed)
        self.tray = TrayController(engram, self.runner, parent=self)
        self.tray.toggle_window.connect(self.toggle_visible)
        self.tray.quit_requested.connect(self.quit)
        self.tray.compiled.connect(self._on_compiled)
        self.tray.gc_done.connect(self._on_gc)
        self.tray.gc_requested.connect(self.gc_preview)
        self.tray.gc_reports.connect(self._gc_step)

        self.all_tab = AllAgentsTab(engram, self.runner)
        self.all_tab.search.hit_opened.connect(self.open_fact)
        self.tabs.setUpdatesEnabled(False)  # one repaint when the tabs are all there
        self.tabs.removeTab(self.tabs.indexOf(self.opening))
        self.opening.deleteLater()
        self.tabs.addTab(self.all_tab, "All agents")

        self.jobs = JobsBar(self.runner)
        self.statusBar().addPermanentWidget(self.jobs)
        self.sync_indicator = SyncIndicator(engram, self.runner, self)
        self.sync_indicator.clicked.connect(self.open_team_store)
        self.statusBar().addPermanentWidget(self.sync_indicator)
        self.autosync = AutoSync(engram, parent=self)
        self.sync_indicator.pending_counted.connect(self.autosync.pending)
        self.autosync.round_ended.connect(lambda *_: self.sync_indicator.refresh())
        self.autosync.start()
        self.sync_indicator.refresh()
        self._attach_menus()
        install_views(self)  # View menu: Insights (ui/views)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.sync_agents()
        if self.tabs.count() > 1:
            self.tabs.setCurrentIndex(1)
        else:
            self._show_welcome()
        self.tabs.setUpdatesEnabled(True)
        self.has_tray = self.tray.install_tray(icon()) if use_tray else False
        if not self.has_tray:
            self.statusBar().showMessage(
                "No system tray here: the tray's actions are in the "
                "Engram menu; closing the window quits.",
                8000,
            )
        self.watcher.start()
        self.workspaces.start()
        if load_semantic and not engram.semantic_enabled:
            self._load_semantic()
        if demo_if_empty and not self.agent_tabs:
            from services import first_run

            if first_run(engram.config.data_dir):  # not after the user removed the demo
                self.seed_demo()

    def open_failed(self, message: str) -> None:
        """The store could not be opened (locked, unreadable, a failed migration): say so
        in the window, where the user is looking, instead of a traceback on a terminal."""
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QMessageBox

        self.tabs.setUpdatesEnabled(True)
        if not isValid(self.opening) or self.tabs.indexOf(self.opening) < 0:
            self.opening = QLabel()  # attach failed after taking the page down
            self.tabs.addTab(self.opening, "Engram")
        self.tabs.setCurrentWidget(self.opening)
        self.opening.setWordWrap(True)
        self.opening.setTextFormat(Qt.TextFormat.PlainText)  # the message may hold a path with "<"
        self.opening.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.opening.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.opening.setText(f"Engram could not open your memory.\n\n{message}")
        self.statusBar().showMessage("Engram could not open your memory.")
        box = QMessageBox(
            QMessageBox.Icon.Critical, "Engram", "Engram could not open your memory.", parent=self
        )
        box.setInformativeText(message)
        self.open_failed_box = box
        box.exec()

    # remembered between runs (QSettings) -----------------------------------------------------
    @staticmethod
    def settings() -> QSettings:
        return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Engram", "Engram")

    def _restore_settings(self) -> None:
        st = self.settings()
        geo = st.value("window/geometry")
        if geo is None or not self.restoreGeometry(geo):
            self.resize(1280, 800)
        self._layout_state = (st.value("facts/splitter"), st.value("facts/columns"))
        for tab in self.agent_tabs.values():
            tab.restore_layout(*self._layout_state)

    def save_settings(self) -> None:
        st = self.settings()
        st.setValue("window/geometry", self.saveGeometry())
        st.setValue("view/dark", self.act_dark.isChecked())
        tab = self.current_agent_tab() or next(iter(self.agent_tabs.values()), None)
        if tab is not None:
            st.setValue("facts/splitter", tab.splitter.saveState())
            st.setValue("facts/columns", tab.table.horizontalHeader().saveState())
        st.sync()

    @classmethod
    def remembered_dark(cls) -> bool | None:
        v = cls.settings().value("view/dark")
        return None if v is None else str(v).lower() in ("true", "1")

    # first run -------------------------------------------------------------------------------
    def _show_welcome(self) -> None:
        if self.welcome is None:
            self.welcome = WelcomePage()
            self.welcome.find_requested.connect(self.find_agents)
            self.welcome.demo_requested.connect(self.seed_demo)
            self.welcome.empty_requested.connect(self.add_agent)
            self.welcome.import_requested.connect(self.import_sources)
            self.tabs.insertTab(1, self.welcome, "Welcome")
        self.tabs.setCurrentWidget(self.welcome)

    def find_agents_again(self) -> int:
        """File → Find my agents: the Welcome page's search, also once agents exist (it
        stays open until its import finishes or it is closed)."""
        self._welcome_asked = True
        self._show_welcome()
        return self.find_agents()

    def _drop_welcome(self, force: bool = False) -> None:
        if getattr(self, "_welcome_asked", False) and not force:
            return
        if self.welcome is not None and self.agent_tabs:
            self.tabs.removeTab(self.tabs.indexOf(self.welcome))
            self.welcome.deleteLater()
            self.welcome = None

    @Slot()
    def seed_demo(self) -> int:
        """The demo is written in a worker (its vectors need the model: seconds), so the
        window is usable at once; the page shows the progress."""
        engram = self.engram
        if self.welcome is None:
            self._show_welcome()
        assert self.welcome is not None
        self.welcome.busy("Creating the demo agents (made-up memories, marked Demo)…", 0, 0)
        # the tabs appear when the demo is complete, not agent by agent while it is written
        self.demo_running = True

        def op(progress, cancelled):
            # no wait for the language model: the memories are written at once and their
            # vectors are added when the model is ready (embed_missing)
            from services import seed_demo

            return seed_demo(
                engram,
                n_facts=self.demo_facts,
                progress=lambda done, total: progress(done, total, "writing their memories"),
            )

        def stopped(message: str | None = None) -> None:
            self.demo_running = False
            if message is None:
                if self.welcome is not None:
                    self.welcome.idle("Demo cancelled.")
            else:
                self._first_run_failed(message)

        # not the serial lane: it would queue the demo behind the model's loading; only the
        # new demo agents are written
        job = self.runner.start(
            "Creating the demo",
            op,
            success=self._demo_seeded,
            failure=stopped,
            on_cancel=stopped,
        )
        self._demo_job = job
        return job

    _demo_job = 0

    @Slot(int, int, int, str)
    def _demo_progress(self, job_id: int, done: int, total: int, message: str) -> None:
        """The welcome page counts the demo agents as they are written (it said "0 of 1"
        until the end)."""
        if job_id == self._demo_job and self.welcome is not None and total:
            self.welcome.busy(f"Creating the demo agents: {message}…", done, total)

    demo_running = False

    def _demo_seeded(self, added: dict) -> None:
        self.demo_running = False
        self.sync_agents()
        first = next(iter(self.agent_tabs.values()), None)
        if first is not None:
            self.tabs.setCurrentWidget(first)
        self.show_message(
            f"Demo ready: {sum(added.values()):,} made-up memories in {len(added)} demo "
            "agents. Remove them with File → Remove agent."
        )

    def _first_run_failed(self, message: str) -> None:
        if self.welcome is not None:
            self.welcome.idle(f"That did not work: {message}")
        else:
            self.show_error(message)

    @Slot()
    def find_agents(self, home=None, project=None) -> int:
        """Welcome → Find my agents: survey this computer's agent memory files in a worker."""
        from services import discover_sources

        engram = self.engram
        if self.welcome is not None:
            self.welcome.busy("Looking for your agents' memory files…")
        return self.runner.start(
            "Finding your agents",
            lambda p, c: discover_sources(home=home, project=project, engram=engram),
            success=lambda found: self.welcome and self.welcome.show_sources(found),
            failure=self._first_run_failed,
        )

    @Slot(list)
    def import_sources(self, sources: list) -> int:
        """Import what Find my agents found, each into its suggested agent, "N of M"."""
        from services import import_discovered

        engram = self.engram
        if self.welcome is not None:
            self.welcome.busy("Importing…", 0, len(sources))
        return self.runner.start(
            "Importing your agents",
            lambda p, c: import_discovered(
                engram, sources, progress=lambda d, t: p(d, t, f"Imported {d} of {t}")
            ),
            serial=True,
            success=self._sources_imported,
            failure=self._first_run_failed,
        )

    def _sources_imported(self, results: list) -> None:
        self._welcome_asked = False
        self.sync_agents()
        rows = [(str(s.path), rep if rep is not None else err) for s, rep, err in results]
        added = sum(r.added for _p, r in rows if not isinstance(r, str))
        self.show_message(f"Imported {added:,} memories from {len(rows)} source(s).")
        self.import_report = ImportReportDialog("your agents", rows, self)
        self.import_report.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.import_report.show()

    def _load_semantic(self) -> None:
        """The store was opened without the model so the first page paints at once; the
        model loads now, first in the serial lane: every write queues behind it, so no edit
        or delete can miss its vectors. Search is keyword-only until it is ready."""
        engram = self.engram
        self.show_message("Loading the embedding model… (keyword search works meanwhile)")
        # the job takes the serial lane now (writes queue behind it) but imports onnxruntime
        # and chromadb (~1 s of Python holding the GIL) only once the first page is on screen
        painted = threading.Event()
        self.first_page_painted.connect(painted.set)
        if self.current_agent_tab() is None:  # the Welcome or All agents page: shown now
            QTimer.singleShot(0, painted.set)

        def load(p, c):
            for _ in range(200):  # at most 10 s; a window closed meanwhile cancels the wait
                if painted.wait(0.05) or c():
                    break
            return False if c() else engram.load_semantic()

        self.runner.start(
            "Loading the embedding model",
            load,
            visible=False,
            serial=True,
            success=self._semantic_loaded,
            failure=lambda m: self._semantic_loaded(False),
        )

    def _semantic_loaded(self, ok: bool) -> None:
        for panel in [self.all_tab.search] + [t.search for t in self.agent_tabs.values()]:
            panel.update_semantic()
        self.show_message(
            "Semantic search is ready."
            if ok
            else f"Semantic search is off: {self.engram.semantic_error}"
        )
        self.semantic_ready.emit(bool(ok))
        if ok:
            self.on_store_changed()  # memories written meanwhile get their vectors

    # menus ----------------------------------------------------------------------------------
    def _act(
        self, menu: QMenu, text: str, slot, shortcut=None, tip: str | None = None, store=True
    ) -> QAction:
        """``store``: the action needs the store, so it is off until ``attach`` (its key
        does nothing while the window is still opening it)."""
        a = QAction(text, self)
        if store:
            a.setEnabled(False)
            self._store_actions.append(a)
        if shortcut is not None:
            # the property, not setShortcut(): resolving that overload builds the Qt
            # namespace's ~100 Python enums (~10 ms), before the first paint
            a.setProperty("shortcut", QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(slot)
        menu.addAction(a)
        return a

    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self.act_add_agent = self._act(f, "&New agent…", lambda: self.add_agent(), "Ctrl+N")
        self.act_find_agents = self._act(
            f,
            "&Find my agents…",
            lambda: self.find_agents_again(),
            tip="Look for the memory files and transcripts of the agents on this computer",
        )
        self.act_rename_agent = self._act(f, "&Rename agent…", self.rename_agent, "F2")
        # a lambda: triggered(checked=False) must not reach a parameter of remove_agent
        self.act_remove_agent = self._act(
            f, "Re&move agent…", lambda: self.remove_agent(), "Ctrl+Shift+Backspace"
        )
        self.act_trash = self._act(
            f, "T&rash (removed agents)…", lambda: self.open_trash(), tip="Restore a removed agent"
        )
        f.addSeparator()
        self.act_import = self._act(f, "&Import memory files…", self.import_files, "Ctrl+I")
        self.act_transcripts = self._act(
            f,
            "Import &transcripts…",
            lambda: self.import_transcripts(),
            tip="Learn from an agent's session transcripts (a Claude Code project or Codex "
            "sessions folder)",
        )
        self.act_reindex = self._act(f, "Re-&index vectors", self.reindex, "Ctrl+Shift+R")
        f.addSeparator()
        self.act_settings = self._act(f, "&Settings…", self.open_settings, "Ctrl+,")
        self.act_team_store = self._act(f, "&Team store and sync…", self.open_team_store)
        self.act_integrations = self._act(
            f,
            "Agent &integrations (MCP)…",
            self.open_integrations,
            tip="Which apps reach Engram over MCP",
        )
        f.addSeparator()
        # the tray's Quit takes its place at attach; until then quitting needs no store
        self.act_quit_early = self._act(f, "Quit Engram", self.quit, "Ctrl+Q", store=False)
        self.file_menu = f

        e = mb.addMenu("&Edit")
        # on or off by the undo stacks (_update_undo_actions), which exist from the start
        self.act_undo = self._act(e, "&Undo", self.undo_latest, "Ctrl+Z", store=False)
        self.act_redo = self._act(e, "&Redo", self.redo_latest, "Ctrl+Shift+Z", store=False)
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for sig in (self.undo_group.indexChanged, self.undo_group.activeStackChanged):
            sig.connect(self._update_undo_actions)
        self.window_stack.indexChanged.connect(self._update_undo_actions)
        self._update_undo_actions()
        e.addSeparator()
        self.act_find = self._act(e, "&Find…", self.focus_search, QKeySequence.StandardKey.Find)
        self.act_add_fact = self._act(
            e, "&Add fact…", lambda: self._on_tab("add_fact"), "Ctrl+Shift+N"
        )
        self.act_pin = self._act(e, "&Pin", lambda: self._on_tab("pin_selected"), "Ctrl+P")
        self.act_unpin = self._act(
            e, "U&npin", lambda: self._on_tab("unpin_selected"), "Ctrl+Shift+P"
        )
        self.act_recat = self._act(
            e, "Change &category…", lambda: self._on_tab("recategorize_selected"), "Ctrl+K"
        )
        self.act_delete = self._act(
            e, "&Delete", lambda: self._on_tab("delete_selected"), QKeySequence.StandardKey.Delete
        )
        self.act_pin.setIcon(icon("pin"))
        self.act_delete.setIcon(icon("delete"))
        self.act_forget = self._act(e, "&Forget permanently…", self.forget, "Ctrl+Shift+Del")

        v = mb.addMenu("&View")
        # the agent views (Facts, Timeline, …) are listed at attach: their names come with
        # the agent tab's module, which loads with the store
        self.view_menu, self._views_sep = v, v.addSeparator()
        self._act(v, "&All agents", lambda: self.tabs.setCurrentIndex(0), "Ctrl+0")
        self._act(v, "Next agent", self._next_tab, "Ctrl+Tab")
        self._act(v, "Previous agent", self._prev_tab, "Ctrl+Shift+Tab")
        self._act(v, "&Refresh", self.on_store_changed, "F5")
        self.act_dark = self._act(v, "&Dark palette", self.toggle_dark, "Ctrl+Shift+D", store=False)
        self.act_dark.setCheckable(True)
        app = QApplication.instance()
        if app is not None:
            self.act_dark.setChecked(
                app.palette().color(app.palette().ColorRole.Window).lightness() < 128
            )
        self.act_cancel = self._act(v, "Cancel running job", lambda: self.jobs.cancel(), "Esc")
        self.act_privacy = self._act(v, "&Privacy: receipts and rules…", self.open_privacy)
        self.act_jobs_log = self._act(v, "&Jobs log…", lambda: self.jobs.log_dialog(self).exec())

        self.engram_menu = mb.addMenu("E&ngram")
        self.engram_menu.aboutToShow.connect(self._rebuild_engram_menu)
        # filled on first open (populate lists agents: a COUNT over every fact)

        h = mb.addMenu("&Help")
        self._act(h, "&Keyboard shortcuts", self.show_shortcuts, "F1", store=False)
        self._act(h, "&About Engram", self.about)

    def _attach_menus(self) -> None:
        """The store is there: its actions turn on, the tray's join the menus."""
        for i, name in enumerate(VIEWS, start=1):
            a = QAction(name, self)
            a.setShortcut(QKeySequence(f"Ctrl+{i}"))
            a.triggered.connect(lambda _=False, n=name: self._show_view(n))
            self.view_menu.insertAction(self._views_sep, a)
        self.file_menu.insertAction(self.act_quit_early, self.tray.act_quit)
        self.file_menu.removeAction(self.act_quit_early)
        self.act_quit_early.setEnabled(False)  # one Ctrl+Q: the tray's
        self.tray.act_compile_all.setIcon(icon("compile"))
        self.act_cancel.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        # the controller's shortcuts must work without opening the menu
        for a in (self.tray.act_compile_all, self.tray.act_gc, self.tray.act_quit):
            self.addAction(a)
        for a in self._store_actions:
            a.setEnabled(True)
        self._update_undo_actions()

    # undo: the newest step of the current tab's stack or the window's ------------------------
    def _undo_stacks(self) -> list:
        active = self.undo_group.activeStack()
        return [st for st in dict.fromkeys([active, self.window_stack]) if st is not None]

    def _next_undo(self):
        """The stack whose last step is the newest (a GC run from another tab counts)."""
        stacks = [st for st in self._undo_stacks() if st.canUndo()]
        return max(
            stacks, key=lambda st: getattr(st.command(st.index() - 1), "seq", 0), default=None
        )

    def _next_redo(self):
        stacks = [st for st in self._undo_stacks() if st.canRedo()]
        return min(stacks, key=lambda st: getattr(st.command(st.index()), "seq", 0), default=None)

    @Slot()
    def undo_latest(self) -> None:
        st = self._next_undo()
        if st is not None:
            st.undo()

    @Slot()
    def redo_latest(self) -> None:
        st = self._next_redo()
        if st is not None:
            st.redo()

    @Slot()
    def _update_undo_actions(self, *_a) -> None:
        u, r = self._next_undo(), self._next_redo()
        self.act_undo.setEnabled(u is not None)
        self.act_undo.setText(f"&Undo {u.undoText()}" if u is not None else "&Undo")
        self.act_redo.setEnabled(r is not None)
        self.act_redo.setText(f"&Redo {r.redoText()}" if r is not None else "&Redo")

    @Slot()
    def _rebuild_engram_menu(self) -> None:
        if self.engram is None:
            self.engram_menu.clear()
            self.engram_menu.addAction("Opening your memory…").setEnabled(False)
            return
        self.tray.populate(self.engram_menu)

    def _on_tab(self, method: str) -> None:
        tab = self.current_agent_tab()
        if tab is None:
            self.statusBar().showMessage("Open an agent's tab first.", 4000)
            return
        getattr(tab, method)()

    def _show_view(self, name: str) -> None:
        tab = self.current_agent_tab()
        if tab is not None:
            tab.show_view(name)

    def _next_tab(self) -> None:
        self.tabs.setCurrentIndex((self.tabs.currentIndex() + 1) % self.tabs.count())

    def _prev_tab(self) -> None:
        self.tabs.setCurrentIndex((self.tabs.currentIndex() - 1) % self.tabs.count())

    # agents -----------------------------------------------------------------------------------
    def current_agent_tab(self) -> AgentTab | None:
        if self.engram is None:
            return None  # no tab class before the store (load_store_parts)
        w = self.tabs.currentWidget()
        return w if isinstance(w, AgentTab) else None

    def sync_agents(self, agents=None) -> None:
        """Add tabs for new agents, drop tabs of removed ones, update names and counts."""
        infos = {a.slug: a for a in (self.engram.agents() if agents is None else agents)}
        for slug in list(self.agent_tabs):
            if slug not in infos:
                tab = self.agent_tabs.pop(slug)
                self.undo_group.removeStack(tab.undo_stack)
                tab.close_down()
                self.tabs.removeTab(self.tabs.indexOf(tab))
                tab.deleteLater()
        for slug, info in infos.items():
            tab = self.agent_tabs.get(slug)
            if tab is None:
                tab = AgentTab(self.engram, self.engram.agent(slug), self.runner)
                tab.message.connect(self.show_message)
                tab.compile_requested.connect(self.tray.compile)
                tab.first_paint.connect(self._on_first_paint)
                tab.selection_changed.connect(self._update_actions)
                tab.confirmed.connect(
                    lambda text, undoable, step, t=tab: self.notice.confirm(
                        text, undoable, t.undo_stack, step
                    )
                )
                tab.badge_changed.connect(lambda s=slug: self._label_tab(s))
                self.undo_group.addStack(tab.undo_stack)
                if getattr(self, "_layout_state", None):
                    tab.restore_layout(*self._layout_state)
                self.agent_tabs[slug] = tab
                self.tabs.addTab(tab, "")
            self._infos[slug] = info
            self._label_tab(slug)
        if self.agent_tabs:
            self._drop_welcome()
        self._on_tab_changed(self.tabs.currentIndex())
        self.agents_changed.emit()

    def _label_tab(self, slug: str) -> None:
        """Name, review badge and a tooltip with today's counts (it used to keep the first)."""
        tab, info = self.agent_tabs.get(slug), self._infos.get(slug)
        if tab is None or info is None:
            return
        label = info.name if info.name == slug else f"{info.name} ({slug})"
        n = tab.review_count
        i = self.tabs.indexOf(tab)
        self.tabs.setTabText(i, f"{label} · {n}" if n else label)
        review = f" · {n} to review" if n else ""
        self.tabs.setTabToolTip(i, f"{info.fact_count:,} active facts{review} · kind {info.kind}")

    @Slot()
    def _on_first_paint(self) -> None:
        self.first_page_painted.emit()

    @Slot(int)
    def _on_tab_changed(self, _i: int) -> None:
        tab = self.current_agent_tab()
        self.undo_group.setActiveStack(tab.undo_stack if tab else self.window_stack)
        for a in (
            self.act_rename_agent,
            self.act_remove_agent,
            self.act_import,
            self.act_transcripts,
            self.act_reindex,
            self.act_forget,
            self.act_add_fact,
        ):
            a.setEnabled(tab is not None)
        self._update_actions()

    @Slot()
    def _update_actions(self) -> None:
        """The Edit menu's fact actions act on the shown selection, so they are off without
        one (a filter that hid the selected fact, another view, the All agents tab)."""
        tab = self.current_agent_tab()
        on = tab is not None and bool(tab.selected_ids())
        for a in (self.act_recat, self.act_delete):
            a.setEnabled(on)
        can_pin, can_unpin = tab.pin_states() if tab is not None else (False, False)
        self.act_pin.setEnabled(can_pin)
        self.act_unpin.setEnabled(can_unpin)

    @Slot()
    def add_agent(self, slug: str | None = None) -> AgentTab | None:
        if not slug:
            dlg = NewAgentDialog(self.engram, self)
            self.new_agent_dialog = dlg
            ok = dlg.exec()
            self.new_agent_dialog = None
            if not ok or not dlg.created:
                return None
            slug = dlg.created
        else:
            try:
                self.engram.add_agent(slug.strip())
            except EngramError as exc:
                QMessageBox.warning(self, "New agent", str(exc))
                return None
        self.sync_agents()
        tab = self.agent_tabs.get(slug.strip())
        if tab is not None:
            self.tabs.setCurrentWidget(tab)
        return tab

    @Slot()
    def rename_agent(self, name: str | None = None) -> None:
        tab = self.current_agent_tab()
        if tab is None:
            return
        if not name:
            name, ok = QInputDialog.getText(
                self, "Rename agent", "Display name:", text=tab.memory.info.name
            )
            if not ok or not name.strip():
                return
        self.engram.update_agent(tab.memory.slug, name=name.strip())
        self.sync_agents()

    @Slot()
    def remove_agent(self) -> int:
        """File → Remove agent: asks first (naming the agent and what it holds, No the
        default); the agent goes to the trash, and the status bar's Undo, Edit → Undo or
        File → Trash brings it back until the trash is emptied."""
        tab = self.current_agent_tab()
        if tab is None:
            return 0
        slug = tab.memory.slug
        info = self._infos.get(slug)
        name = info.name if info is not None else slug
        n = info.fact_count if info is not None else 0
        who = name if name == slug else f"{name} ({slug})"
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Remove agent",
            f"Remove the agent “{who}” and its {n:,} fact(s)?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setInformativeText(
            "It moves to the trash: Undo in the status bar, Edit → Undo or File → Trash "
            "brings it back with every memory until you empty the trash. (To erase it "
            "and leave no trace, use Forget.)"
        )
        box.button(QMessageBox.StandardButton.Yes).setText(f"Remove {slug}")
        box.button(QMessageBox.StandardButton.No).setText("Keep it")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setEscapeButton(QMessageBox.StandardButton.No)
        self.remove_box = box
        answer = box.exec()
        self.remove_box = None
        if answer != QMessageBox.StandardButton.Yes:
            return 0
        engram = self.engram
        return self.runner.start(
            f"Removing {slug}",
            lambda p, c: engram.trash_agent(slug),
            serial=True,
            success=self._agent_trashed,
            failure=self.show_error,
        )

    def _agent_trashed(self, trashed) -> None:
        cmd = RemoveAgentCommand(self.engram, self.runner, trashed, self._agent_step_done)
        self.window_stack.push(cmd)
        self.sync_agents()
        self.notice.confirm(cmd.done_text(), True, self.window_stack, cmd)

    def _agent_step_done(self, cmd) -> None:
        self.sync_agents()
        if not cmd.removed:
            tab = self.agent_tabs.get(cmd.slug)
            if tab is not None:
                self.tabs.setCurrentWidget(tab)
        self.notice.confirm(cmd.done_text(), cmd.removed, self.window_stack, cmd)

    @Slot()
    def open_trash(self) -> TrashDialog:
        dlg = TrashDialog(self.engram, self.runner, self)
        dlg.changed.connect(self.sync_agents)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.trash_dialog = dlg
        dlg.show()
        return dlg

    # jobs ------------------------------------------------------------------------------------
    @Slot()
    def import_files(self, path: str | None = None) -> int:
        """File → Import: a dialog previews files and folders; ``path`` skips it (scripts)."""
        tab = self.current_agent_tab()
        if tab is None:
            return 0
        if path:
            return self.run_import(tab.memory, [path])
        dlg = ImportDialog(self.runner, tab.memory.slug, parent=self)
        self.import_dialog = dlg
        memory = tab.memory
        dlg.accepted.connect(lambda: self.run_import(memory, dlg.accepted_paths()))
        dlg.finished.connect(dlg.deleteLater)
        dlg.open()
        return 0

    def run_import(self, memory, paths: list[str]) -> int:
        def op(progress, cancelled):
            results = []
            for i, p in enumerate(paths):
                label = f"Importing {Path(p).name} ({i + 1} of {len(paths)})"

                def step(d, t, label=label):
                    progress(d, t, f"{label}: {d:,} of {t:,} entries")

                try:
                    results.append((p, memory.import_path(p, progress=step, cancelled=cancelled)))
                except (EngramError, ImportFormatError, OSError, UnicodeDecodeError) as exc:
                    if len(paths) == 1:
                        raise
                    results.append((p, str(exc)))
            return results

        return self.runner.start(
            f"Importing into {memory.slug}",
            op,
            serial=True,
            success=lambda r: self._imported(memory.slug, r),
            failure=self.show_error,
        )

    def _imported(self, slug: str, results: list) -> None:
        reports = [r for _p, r in results if not isinstance(r, str)]
        added = sum(r.added for r in reports)
        dupes = sum(r.duplicates for r in reports)
        self.show_message(f"Imported {added} fact(s), {dupes} duplicate(s) skipped")
        self.import_report = ImportReportDialog(slug, results, self)
        self.import_report.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.import_report.show()
        self.on_store_changed()

    def import_transcripts(self, folder: str | None = None) -> int:
        """File → Import transcripts: a folder of session transcripts (each read once, like
        the agents' hooks do) into the current agent: facts, episodes, review candidates."""
        tab = self.current_agent_tab()
        if tab is None:
            return 0
        if folder is None:
            from PySide6.QtWidgets import QFileDialog

            dlg = QFileDialog(self, f"Transcripts for {tab.memory.slug}")
            dlg.setFileMode(QFileDialog.FileMode.Directory)
            dlg.setOption(QFileDialog.Option.ShowDirsOnly, True)
            dlg.setOption(QFileDialog.Option.DontUseNativeDialog, True)
            self.transcripts_dialog = dlg
            ok = dlg.exec()
            self.transcripts_dialog = None
            if not ok or not dlg.selectedFiles():
                return 0
            folder = dlg.selectedFiles()[0]
        from services import ingest_folder

        memory, where = tab.memory, folder
        return self.runner.start(
            f"Reading transcripts into {memory.slug}",
            lambda p, c: ingest_folder(memory, where),
            serial=True,
            success=lambda rep: self._transcripts_read(memory.slug, rep),
            failure=self.show_error,
        )

    def _transcripts_read(self, slug: str, rep) -> None:
        new = [s for s in rep.sessions if not s.already_processed]
        facts = sum(s.facts_added for s in rep.sessions)
        review = sum(s.facts_pending for s in rep.sessions)
        eps = sum(s.episodes_added for s in rep.sessions)
        seen = len(rep.sessions) - len(new)
        text = (
            f"{slug}: read {len(new)} new session(s): {facts} fact(s), {eps} episode(s), "
            f"{review} waiting for your review"
        )
        if seen:
            text += f"; {seen} read before"
        if rep.skipped:
            text += f"; {len(rep.skipped)} file(s) skipped"
        self.show_message(text + ".")
        self.last_transcripts = text
        self.on_store_changed()

    @Slot()
    def reindex(self) -> int:
        tab = self.current_agent_tab()
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

    @Slot()
    def forget(self) -> None:
        tab = self.current_agent_tab()
        if tab is None:
            return
        dlg = ForgetDialog(
            self.engram,
            self.runner,
            tab.memory.slug,
            tab.selected_ids(),
            self,
            on_finished=self._forgotten,
        )
        dlg.started.connect(self.workspaces.hold)
        dlg.finished.connect(dlg.deleteLater)
        self.forget_dialog = dlg
        dlg.open()

    def _forgotten(self, receipt, about: str | None = None) -> None:
        """Runs when a forget ends, whether or not its dialog is still open: two-way sync
        resumes, and a receipt closed with its dialog is shown here instead."""
        self.workspaces.release()
        self.on_store_changed()
        dlg = getattr(self, "forget_dialog", None)
        if dlg is not None and isValid(dlg) and dlg.isVisible():
            return
        if receipt is None:
            self.show_message("The forget failed: nothing was forgotten (see the Jobs log).")
            return
        from ui.forget_dialog import describe_receipt

        box = QMessageBox(
            QMessageBox.Icon.Information, "Forgotten", describe_receipt(receipt, about)
        )
        box.setInformativeText("View → Privacy lists every receipt.")
        box.setParent(self, box.windowFlags())
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.receipt_box = box
        box.show()
        self.show_message(describe_receipt(receipt, about).splitlines()[1])

    @Slot()
    def open_privacy(self) -> PrivacyView:
        dlg = PrivacyView(self.engram, self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.privacy = dlg
        dlg.show()
        return dlg

    @Slot(str)
    def _on_compiled(self, text: str) -> None:
        self.show_message(f"Compile: {text}")
        tab = self.current_agent_tab()
        if tab is not None and tab.views.currentIndex() == 2:
            tab.compiled.reload()

    @Slot()
    def gc_preview(self) -> GCPreviewDialog:
        """Ctrl+Shift+G: preview first; the run starts only from the dialog's button."""
        dlg = GCPreviewDialog(self.engram, self.runner, self)
        dlg.confirmed.connect(self.tray.gc_all)
        dlg.finished.connect(dlg.deleteLater)
        self.gc_dialog = dlg
        dlg.open()
        return dlg

    @Slot(dict)
    def _gc_step(self, reports: dict) -> None:
        """A GC run spans agents: its step lives on the window's stack and the notice holds
        it, so it is undone from any tab (after a restart: Archived → Restore this GC run)."""
        cmd = GCCommand(self.engram, self.runner, reports, self._gc_undone)
        self.window_stack.push(cmd)
        self.notice.confirm(cmd.text().replace("Run GC", "GC ran"), True, self.window_stack, cmd)

    def _gc_undone(self, cmd) -> None:
        self.notice.confirm(
            cmd.text().replace("Run GC", "GC ran"), not cmd._undone, self.window_stack, cmd
        )
        self.on_store_changed()

    @Slot(str)
    def _on_gc(self, text: str) -> None:
        self.show_message(text)
        self.on_store_changed()

    # misc ------------------------------------------------------------------------------------
    @Slot()
    def focus_search(self) -> None:
        tab = self.current_agent_tab()
        if tab is not None:
            tab.focus_search()
        else:
            self.all_tab.search.focus_query()

    @Slot(str, int)
    def open_fact(self, slug: str, fact_id: int) -> None:
        tab = self.agent_tabs.get(slug)
        if tab is None:
            return
        self.tabs.setCurrentWidget(tab)
        tab.show_fact(fact_id)

    @Slot()
    def on_store_changed(self) -> None:
        """Another process (or one of our workers) committed: re-read agents and facts.
        ``agents()`` counts every fact, so it runs in a worker too."""
        engram = self.engram
        self.runner.start(
            "Checking agents",
            lambda p, c: engram.agents(),
            visible=False,
            success=self._agents_read,
            interruptible=True,
        )

    def _agents_read(self, agents) -> None:
        if self.demo_running:
            return  # the demo's tabs come when it is complete (_demo_seeded)
        if {a.slug for a in agents} != set(self.agent_tabs):
            self.sync_agents(agents)
        for a in agents:
            self._infos[a.slug] = a
            self._label_tab(a.slug)
        for tab in self.agent_tabs.values():
            tab.refresh()
        self.sync_indicator.refresh()
        if self.engram.semantic_enabled:
            # hooks store facts without vectors (no model load in a hook): embed them here
            engram, slugs = self.engram, [a.slug for a in agents]
            self.runner.start(
                "Embedding new memories",
                lambda p, c: sum(
                    engram.agent(s).embed_missing(batch=64, cancelled=c) for s in slugs
                ),
                visible=False,
                serial=True,
                yields=True,  # a user's write (Restore all) goes first; vectors come behind
            )

    @Slot(str, str)
    def _on_workspace_failed(self, slug: str, message: str) -> None:
        self.show_message(f"Sync of {slug}'s workspace failed: {message}")

    @Slot(str, object)
    def _on_workspace_synced(self, slug: str, report) -> None:
        if report.conflicts:
            self.show_error(
                f"{len(report.conflicts)} conflicting edit(s) between Engram and "
                f"{slug}'s workspace files; nothing was overwritten. Resolve them "
                f"with `engram sync --agent {slug} --prefer engram|file`."
            )
        elif report.pulled or report.pushed:
            self.show_message(
                f"{slug}: {report.pulled} change(s) from the workspace, "
                f"{report.pushed} written back."
            )
            if report.pulled:
                tab = self.agent_tabs.get(slug)
                if tab is not None:
                    tab.refresh()

    @Slot()
    def open_settings(self) -> None:
        SettingsDialog(self.engram, self).exec()

    @Slot()
    def open_team_store(self) -> None:
        d = TeamStoreDialog(self.engram.config.data_dir, self)
        if d.sync_box is not None:
            d.sync_box.synced.connect(self.on_store_changed)
        self.autosync.stop()  # one round at a time: the dialog's Sync now, while it is open
        d.exec()
        self.autosync.start()  # a first sync or the checkbox may have changed what it does
        self.sync_indicator.refresh()

    @Slot()
    def open_integrations(self) -> None:
        from ui.integrations_dialog import IntegrationsDialog

        IntegrationsDialog(self.engram, self).exec()

    def show_message(self, text: str) -> None:
        """A status message that fits beside the Undo notice and the job bar: cut with "…"
        where it would be clipped mid-word (a compile summary at 900 px was), whole in the
        bar's tooltip."""
        from PySide6.QtCore import Qt  # here, not at the top: see TYPE_CHECKING above

        bar = self.statusBar()
        taken = sum(
            w.width() + 12
            for w in (self.notice, getattr(self, "jobs", None))
            if w and w.isVisible()
        )
        room = max(80, bar.width() - taken - 24)
        shown = bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room)
        bar.setToolTip(text if shown != text else "")
        bar.showMessage(shown, 8000)

    def show_error(self, text: str) -> None:
        self.show_message(text)
        QMessageBox.warning(self, "Engram", text)

    def show_shortcuts(self) -> None:
        from PySide6.QtWidgets import QMessageBox  # F1 works before the store is attached

        rows = []
        # the Engram menu fills itself when opened: its actions are listed from the window
        for a in self.actions():
            if not a.shortcut().isEmpty():
                rows.append(
                    f"<tr><td>{a.text().replace('&', '')}</td>"
                    f"<td><b>{a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)}</b></td></tr>"
                )
        for menu in self.menuBar().findChildren(QMenu):
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
            self,
        )
        self.shortcuts_box = box
        box.exec()
        self.shortcuts_box = None

    def about(self) -> None:
        from services.version import VERSION as __version__

        model = "on" if self.engram.semantic_enabled else "off"
        QMessageBox.about(
            self,
            "About Engram",
            f"<b>Engram {__version__}</b><br>See, search, correct and erase what "
            f"your AI agents remember.<br>Store: {self.engram.config.data_dir}"
            f"<br>Semantic search: {model}",
        )

    @Slot()
    def toggle_dark(self) -> None:
        from ui.theme import apply_theme

        apply_theme(QApplication.instance(), self.act_dark.isChecked())

    @Slot()
    def toggle_visible(self) -> None:
        if self.isVisible() and not self.isMinimized():
            self.hide()
        else:
            self.showNormal()
            self.raise_()
            self.activateWindow()

    def _settle_unsaved(self) -> bool:
        """Quitting asks about an editor's unsaved typing, on its tab (the same prompt as a
        row change); False: Cancel, nothing closes."""
        if getattr(self, "_shut_down", False):
            return True  # shut down already (a script or test): nothing could be saved now
        for tab in list(self.agent_tabs.values()):
            if tab.editor.fact is None or not tab.editor.is_dirty():
                continue
            if not self.isVisible() or self.isMinimized():
                self.showNormal()
                self.activateWindow()
            self.tabs.setCurrentWidget(tab)
            tab.views.setCurrentIndex(0)
            if not tab.settle_unsaved():
                tab.editor.content.setFocus()
                return False
        return True

    @Slot()
    def quit(self) -> None:
        self._quitting = True
        if self.isVisible():
            self.close()  # closeEvent asks about unsaved typing, shuts down and quits
        else:  # hidden in the tray: no close event comes
            if self.engram is not None and not self._settle_unsaved():
                self._quitting = False
                return
            self.shutdown()
            app = QApplication.instance()
            if app is not None:
                app.quit()

    def shutdown(self) -> None:
        """Stop the timer, cancel and join every worker: nothing outlives the window."""
        if not getattr(self, "_saved", False):
            self._saved = True
            self.save_settings()
        if self.engram is None:
            return  # closed while the store was opening: nothing was started
        self._shut_down = True
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self._undo_keys)
        self.watcher.stop()
        self.workspaces.stop()
        self.autosync.stop()
        self.runner.cancel_all()
        for tab in self.agent_tabs.values():
            tab.close_down()
        self.tray.remove_tray()

    _painted = False

    def paintEvent(self, ev):
        super().paintEvent(ev)
        if not self._painted:
            self._painted = True
            # after this paint pass (the children paint in it too) has reached the screen
            QTimer.singleShot(0, self.window_painted.emit)

    def closeEvent(self, ev):
        if self.has_tray and not self._quitting:
            self.hide()
            self.show_message("Engram keeps running in the tray.")
            ev.ignore()
            return
        if self.engram is not None and not self._settle_unsaved():
            self._quitting = False
            ev.ignore()
            return
        self.shutdown()
        ev.accept()
        if self._quitting or not self.has_tray:
            app = QApplication.instance()
            if app is not None:
                app.quit()

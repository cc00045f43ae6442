"""The main window: an "All agents" search tab, one tab per agent, menus with a shortcut for
every main action, a job bar (progress + Cancel) and the store watcher. The window builds the
frame and wires the controllers (ui/controllers/), one per domain, which own the actions."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QUndoGroup, QUndoStack
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QTabWidget
from shiboken6 import isValid

from ui.a11y import set_name
from ui.controllers.menus import WindowMenus
from ui.controllers.undo import UndoRouter
from ui.notice import UndoNotice
from ui.theme import icon
from ui.views import install as install_views

if TYPE_CHECKING:
    # ``Qt`` too: its namespace builds ~100 Python enums on first access (~11 ms); the
    # dialogs' classes their own (~2 ms)
    from PySide6.QtWidgets import QMenu, QMessageBox

    from ui.agent_tab import AgentTab
    from ui.all_agents_tab import AllAgentsTab
    from ui.controllers.agents import AgentsController
    from ui.controllers.imports import ImportsController
    from ui.controllers.lifecycle import LifecycleController
    from ui.controllers.privacy import PrivacyController
    from ui.controllers.startup import StartupController
    from ui.controllers.team import TeamController
    from ui.jobs_bar import JobsBar
    from ui.store_watcher import StoreWatcher
    from ui.sync_auto import AutoSync
    from ui.sync_box import SyncIndicator
    from ui.tray import TrayController
    from ui.undo_keys import UndoKeys
    from ui.workers import JobRunner
    from ui.workspace_watcher import WorkspaceWatcher


def load_store_parts() -> None:
    """Import what needs a store: the tabs, dialogs, tray, controllers and ``services``
    (peewee, numpy, markdown: ~300 ms). They are not imported with this module so the window
    paints first (``python -X importtime``: nothing of them loads before the first paint);
    ``attach`` calls this, and app/main.py calls it in its opening thread. The names become
    this module's globals, which the methods below use as if imported at the top."""
    global AgentTab, AllAgentsTab, JobRunner, JobsBar, StoreWatcher, TrayController
    global UndoKeys, WorkspaceWatcher, QMessageBox
    global AgentsController, ImportsController, LifecycleController, PrivacyController
    global StartupController, TeamController
    from PySide6.QtWidgets import QMessageBox

    from ui.agent_tab import AgentTab
    from ui.all_agents_tab import AllAgentsTab
    from ui.controllers.agents import AgentsController
    from ui.controllers.imports import ImportsController
    from ui.controllers.lifecycle import LifecycleController
    from ui.controllers.privacy import PrivacyController
    from ui.controllers.startup import StartupController
    from ui.controllers.team import TeamController
    from ui.jobs_bar import JobsBar
    from ui.store_watcher import StoreWatcher
    from ui.tray import TrayController
    from ui.undo_keys import UndoKeys
    from ui.workers import JobRunner
    from ui.workspace_watcher import WorkspaceWatcher


log = logging.getLogger(__name__)
OPENING_TEXT = "<p align='center'>Opening your memory…</p>"


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
    sync_indicator: SyncIndicator
    autosync: AutoSync
    # the controllers, one per domain (ui/controllers/); menus and undo come with the frame
    startup_ctl: StartupController
    agents_ctl: AgentsController
    imports_ctl: ImportsController
    lifecycle_ctl: LifecycleController
    privacy_ctl: PrivacyController
    team_ctl: TeamController
    # made by the menus (ui/controllers/menus.py)
    file_menu: QMenu
    view_menu: QMenu
    engram_menu: QMenu
    act_add_agent: QAction
    act_find_agents: QAction
    act_rename_agent: QAction
    act_remove_agent: QAction
    act_trash: QAction
    act_import: QAction
    act_transcripts: QAction
    act_reindex: QAction
    act_settings: QAction
    act_team_store: QAction
    act_integrations: QAction
    act_quit_early: QAction
    act_undo: QAction
    act_redo: QAction
    act_find: QAction
    act_add_fact: QAction
    act_pin: QAction
    act_unpin: QAction
    act_recat: QAction
    act_delete: QAction
    act_forget: QAction
    act_dark: QAction
    act_cancel: QAction
    act_privacy: QAction
    act_jobs_log: QAction

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
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        set_name(self.tabs, "Agents")
        set_name(self.tabs.tabBar(), "Agents")
        self.agent_tabs: dict[str, AgentTab] = {}
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
        self.undo_ctl = UndoRouter(self)
        self.menus = WindowMenus(self)
        self.menus.build()
        self._restore_settings()
        if engram is not None:
            self.attach(engram)

    def attach(self, engram) -> None:
        """The store is open: build the tabs, tray, job bar and watchers, make the
        controllers, turn the store's menu actions on, and start the workers (model, demo)
        the options asked for."""
        load_store_parts()
        use_tray, load_semantic, demo_if_empty = self._options
        self.engram = engram
        self._undo_keys = UndoKeys(self)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self._undo_keys)
        self.runner = JobRunner(db=engram.db, parent=self, idle_gc=True)  # ui/gil_share.py
        self.watcher = StoreWatcher(engram, parent=self)
        self.workspaces = WorkspaceWatcher(engram, self.runner, parent=self)
        self.tray = TrayController(engram, self.runner, parent=self)
        self.tray.toggle_window.connect(self.toggle_visible)
        self.tray.quit_requested.connect(self.quit)
        self.startup_ctl = StartupController(self)
        self.agents_ctl = AgentsController(self)
        self.imports_ctl = ImportsController(self)
        self.lifecycle_ctl = LifecycleController(self)
        self.privacy_ctl = PrivacyController(self)
        self.watcher.changed.connect(self.agents_ctl.on_store_changed)

        self.all_tab = AllAgentsTab(engram, self.runner)
        self.all_tab.search.hit_opened.connect(self.agents_ctl.open_fact)
        self.tabs.setUpdatesEnabled(False)  # one repaint when the tabs are all there
        self.tabs.removeTab(self.tabs.indexOf(self.opening))
        self.opening.deleteLater()
        self.tabs.addTab(self.all_tab, "All agents")

        self.jobs = JobsBar(self.runner)
        self.statusBar().addPermanentWidget(self.jobs)
        self.team_ctl = TeamController(self)  # the sync indicator, after the job bar
        self.menus.attach()
        install_views(self)  # View menu: Insights (ui/views)
        self.tabs.currentChanged.connect(self.agents_ctl._on_tab_changed)
        self.agents_ctl.sync_agents()
        if self.tabs.count() > 1:
            self.tabs.setCurrentIndex(1)
        else:
            self.startup_ctl._show_welcome()
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
        self.startup_ctl.begin(load_semantic, demo_if_empty)

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

    def current_agent_tab(self) -> AgentTab | None:
        if self.engram is None:
            return None  # no tab class before the store (load_store_parts)
        w = self.tabs.currentWidget()
        return w if isinstance(w, AgentTab) else None

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

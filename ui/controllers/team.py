"""Team store and sync: the status bar's sync indicator, automatic sync rounds, the team
store dialog, two-way sync of agents' workspace files, settings and MCP integrations."""

from __future__ import annotations

from PySide6.QtCore import Slot

from ui.controllers.base import Controller
from ui.settings_dialog import SettingsDialog
from ui.sync_auto import AutoSync
from ui.sync_box import SyncIndicator
from ui.team_store_dialog import TeamStoreDialog


class TeamController(Controller):
    def __init__(self, window):
        super().__init__(window)
        w, engram = window, window.engram
        w.workspaces.synced.connect(self._on_workspace_synced)
        w.workspaces.failed.connect(self._on_workspace_failed)
        w.sync_indicator = SyncIndicator(engram, self.runner, w)
        w.sync_indicator.clicked.connect(self.open_team_store)
        w.statusBar().addPermanentWidget(w.sync_indicator)
        w.autosync = AutoSync(engram, parent=w)
        w.sync_indicator.pending_counted.connect(w.autosync.pending)
        w.autosync.round_ended.connect(lambda *_: w.sync_indicator.refresh())
        w.autosync.start()
        w.sync_indicator.refresh()

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
                tab = self.w.agent_tabs.get(slug)
                if tab is not None:
                    tab.refresh()

    @Slot()
    def open_settings(self) -> None:
        SettingsDialog(self.engram, self.w).exec()

    @Slot()
    def open_team_store(self) -> None:
        w = self.w
        d = TeamStoreDialog(self.engram.config.data_dir, w)
        if d.sync_box is not None:
            d.sync_box.synced.connect(w.agents_ctl.on_store_changed)
        w.autosync.stop()  # one round at a time: the dialog's Sync now, while it is open
        d.exec()
        w.autosync.start()  # a first sync or the checkbox may have changed what it does
        w.sync_indicator.refresh()

    @Slot()
    def open_integrations(self) -> None:
        from ui.integrations_dialog import IntegrationsDialog

        IntegrationsDialog(self.engram, self.w).exec()

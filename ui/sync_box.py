"""Sync this computer's store with a PostgreSQL store, from the Team store dialog: what waits
to be pushed, when the last round ran and what stopped it, and a Sync now button.

The round runs as a child ``engram sync`` process, not in a thread: a round opens the server
store as well, and Engram binds its models to one database per process, so the app's own
connection must not be rebound under its open tabs. The child is the same command a user or
a cron job runs; Cancel kills it, and a killed round is safe by design (services/teamsync:
pushes are idempotent, the cursor moves only after the pulls are applied). Its password,
typed once here, goes to the OS keyring, where the child finds it.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from services import save_password, stop_syncing, store_syncs, sync_server, sync_status_here
from ui.sync_auto import automatic_enabled, set_automatic
from ui.sync_round import SyncRound


def describe_pending(pending: dict[str, int]) -> str:
    """``{"upsert": 3, "erase": 1}`` → "3 changes and 1 erasure waiting to be pushed"."""
    up, gone = pending.get("upsert", 0), pending.get("erase", 0)
    parts = []
    if up:
        parts.append(f"{up} change{'s' if up != 1 else ''}")
    if gone:
        parts.append(f"{gone} erasure{'s' if gone != 1 else ''}")
    if not parts:
        return "nothing waiting to be pushed"
    return " and ".join(parts) + " waiting to be pushed"


class SyncBox(QGroupBox):
    synced = Signal()  # a round ended (the store may hold what it pulled)

    def __init__(self, engram, parent=None):
        super().__init__("Sync with a PostgreSQL store (this computer's memory, everywhere)")
        if parent is not None:
            self.setParent(parent)
        self.engram = engram
        self.round = SyncRound(engram.config.data_dir, self)
        self.round.ended.connect(self._ended)
        self.server = QLineEdit()
        self.server.setPlaceholderText("postgresql://you@db.example.org:5432/engram")
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("kept in the OS keyring (or leave empty: ~/.pgpass)")
        self.status = QLabel()
        self.result = QLabel()
        for lab in (self.status, self.result):
            lab.setWordWrap(True)
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sync_button = QPushButton("S&ync now")
        self.sync_button.clicked.connect(self.start)
        self.automatic = QCheckBox("Sync automatically while Engram runs")
        self.automatic.setChecked(automatic_enabled())
        self.automatic.setToolTip(
            "Push this computer's changes a few seconds after they are made, pull others' as "
            "the server announces them, and try again every few minutes while offline"
        )
        self.automatic.toggled.connect(set_automatic)
        self.cancel_button = QPushButton("Cancel sync")
        self.cancel_button.setToolTip("Stop the round under way (what it pushed stays pushed)")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        # the only way out used to be deleting the store's sync tables by hand
        self.forget_button = QPushButton("Stop syncing")
        self.forget_button.setToolTip(
            "This computer's memory stops syncing with the server (no more automatic rounds); "
            "what waits stays queued for a later Sync now"
        )
        self.forget_button.clicked.connect(self.stop_syncing)
        self._before: str | None = None  # the server the store synced with before this round
        self._cancelled = False
        for w, text in (
            (self.server, "Server URL"),
            (self.password, "Password"),
            (self.sync_button, "Sync now"),
            (self.cancel_button, "Cancel sync"),
            (self.forget_button, "Stop syncing with this server"),
            (self.automatic, "Sync automatically"),
        ):
            w.setAccessibleName(text)
        form = QFormLayout()
        form.addRow("Server URL", self.server)
        form.addRow("Password", self.password)
        buttons = QHBoxLayout()
        buttons.addWidget(self.sync_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.forget_button)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.status)
        lay.addLayout(buttons)
        lay.addWidget(self.automatic)
        lay.addWidget(self.result)
        self.refresh()
        if not self.server.text():
            self.server.setText(os.environ.get("ENGRAM_SYNC_URL", ""))

    # what waits ------------------------------------------------------------------------------
    def refresh(self) -> None:
        try:
            st = sync_status_here(self.engram.db)
            server = sync_server(self.engram.db)
        except Exception as exc:  # a locked or damaged store: say so, keep the dialog usable
            self.status.setText(f"✖ could not read the sync state: {exc}")
            return
        self.forget_button.setEnabled(server is not None and not self.round.running())
        if st is not None and server is None:
            self.status.setText(
                "Not syncing with a server. "
                + describe_pending(st.pending).capitalize()
                + ": name a server and press Sync now to sync again."
            )
            return
        if st is None:
            self.status.setText(
                "Never synced. Name a PostgreSQL store (your own or a team's) and press Sync "
                "now: your agents keep using this computer's store, offline or not."
            )
            return
        if st.server and not self.server.text():
            self.server.setText(st.server)
        lines = [describe_pending(st.pending).capitalize() + "."]
        lines.append(f"Last sync: {st.last_round or 'never'}.")
        if st.last_problem:
            lines.append(f"Last problem: {st.last_problem}")
        self.status.setText(" ".join(lines))

    # the round --------------------------------------------------------------------------------
    @Slot()
    def start(self) -> None:
        url = self.server.text().strip()
        if not url.startswith(("postgresql://", "postgres://")):
            self.result.setText("✖ the server URL starts with postgresql://")
            return
        if self.password.text():
            ok, msg = save_password(url, self.password.text())
            if not ok:
                self.result.setText(f"✖ password not saved: {msg}")
                return
            self.password.clear()
        try:
            self._before = sync_server(self.engram.db)
        except Exception:
            self._before = None
        if not self.round.start(url):
            return
        self._cancelled = False
        self.sync_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.forget_button.setEnabled(False)
        self.result.setText("Syncing… (pushing this computer's changes, then pulling others')")

    @Slot()
    def cancel(self) -> None:
        self._cancelled = True
        self.round.cancel()  # safe: an interrupted round is picked up by the next one

    def _ended(self, report, text: str) -> None:
        if self._cancelled and report is None:
            # Cancel takes back the server the round named: the store keeps syncing with
            # the one before (or with none), and no automatic round tries the new one
            try:
                if sync_server(self.engram.db) != self._before:
                    stop_syncing(self.engram.db, back_to=self._before)
                    text += (
                        f" Cancelled: still syncing with {self._before}."
                        if self._before
                        else " Cancelled: this computer's memory does not sync with a server."
                    )
            except Exception as exc:
                text = f"{text} ✖ could not take back the server: {exc}"
        self._cancelled = False
        self.result.setText(text)
        self.sync_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.refresh()
        self.synced.emit()

    @Slot()
    def stop_syncing(self) -> None:
        """Stop syncing with the server: no rounds, automatic or not, until Sync now."""
        try:
            server = sync_server(self.engram.db)
            stop_syncing(self.engram.db)
        except Exception as exc:
            self.result.setText(f"✖ could not stop syncing: {exc}")
            return
        self.result.setText(
            f"Stopped syncing with {server}. What waits stays queued for a later Sync now."
        )
        self.refresh()
        self.synced.emit()

    def stop(self) -> None:
        """The dialog closes: a round still running is killed (it resumes next time)."""
        self.round.stop()


class SyncIndicator(QPushButton):
    """The status bar's "⇅ 3 to sync": shown only for a store that syncs, with what waits or
    the last round's problem; a click opens the dialog with Sync now."""

    def __init__(self, engram, runner, parent=None):
        super().__init__(parent)
        self.engram, self.runner = engram, runner
        self.setFlat(True)
        self.setObjectName("syncIndicator")
        self.hide()
        self._busy = False

    pending_counted = Signal(int)  # what waits to be pushed (automatic sync pushes it)

    def refresh(self) -> None:
        if self._busy:
            return
        db = self.engram.db
        try:
            if not store_syncs(db):  # most stores: no job, nothing shown
                self.hide()
                return
        except Exception:  # the store went away under us: nothing to say here
            return
        self._busy = True
        # queueing what changed is a write: the serial lane, after the user's own edits
        self.runner.start(
            "Checking what waits to sync",
            lambda p, c: sync_status_here(db),
            success=self._show,
            failure=lambda _msg: self._show(None),
            visible=False,
            serial=True,
        )

    def _show(self, st) -> None:
        self._busy = False
        if st is None:
            self.hide()
            return
        n = sum(st.pending.values())
        self.pending_counted.emit(n)
        if st.last_problem:
            self.setText(f"⇅ {n} to sync (offline)" if n else "⇅ sync: offline")
            self.setToolTip(
                f"Last sync problem: {st.last_problem}. {describe_pending(st.pending)}."
            )
        elif n:
            self.setText(f"⇅ {n} to sync")
            self.setToolTip(describe_pending(st.pending).capitalize() + f" to {st.server}.")
        else:
            self.setText("⇅ synced")
            self.setToolTip(
                f"Nothing waits; last sync {st.last_round or 'never'} with {st.server}."
            )
        self.show()

"""Once this computer's store syncs with a PostgreSQL store, the app keeps them in step
whenever the server answers, without anyone pressing Sync now:

- others' writes: the app LISTENs on the server, whose triggers NOTIFY on every write, and a
  round runs a moment after a notification (a burst of writes is one round);
- this computer's writes (the app's and the agents' hooks'): the status bar's count of what
  waits to be pushed starts a round a few seconds after it goes above zero;
- at start, a first round pulls what others wrote while the app was closed;
- offline: a round every few minutes finds out when the server is back, and the LISTEN is
  made (again) after the first round that reaches it.

A round is the child ``engram sync`` (ui/sync_round.py), one at a time; a reason to sync
during a round runs one more round after it. The rounds add no loop: a round that pushed
nothing writes nothing on the server, so it wakes no one.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QSettings, QTimer, Signal, Slot

from services import ChangeListener, sync_server
from ui.listening import Listening
from ui.sync_round import SyncRound

log = logging.getLogger(__name__)
SETTING = "sync/automatic"


def automatic_enabled() -> bool:
    return bool(QSettings().value(SETTING, True, type=bool))


def set_automatic(on: bool) -> None:
    QSettings().setValue(SETTING, bool(on))


class AutoSync(QObject):
    round_ended = Signal(object, str)  # as SyncRound.ended

    def __init__(
        self,
        engram,
        interval_ms: int = 5 * 60_000,
        push_delay_ms: int = 5_000,
        pull_delay_ms: int = 1_500,
        parent=None,
    ):
        super().__init__(parent)
        self.engram = engram
        self.server: str | None = None
        self.round = SyncRound(engram.config.data_dir, self)
        self.round.ended.connect(self._ended)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.sync_now)
        self.soon = QTimer(self)
        self.soon.setSingleShot(True)
        self.soon.timeout.connect(self.sync_now)
        self.push_delay_ms, self.pull_delay_ms = push_delay_ms, pull_delay_ms
        self.listening: Listening | None = None
        self._again = False

    @property
    def active(self) -> bool:
        return self.server is not None

    def start(self) -> bool:
        """Begin keeping the store in step (a store that never synced: nothing to do)."""
        if not automatic_enabled():
            return False
        try:
            server = sync_server(self.engram.db)
        except Exception as exc:  # a locked store: the next start (or Sync now) tries again
            log.warning("cannot read the sync state: %s", exc)
            return False
        if server is None:
            return False
        self.server = server
        self.timer.start()
        # a first round soon, which pulls what others wrote while the app was closed; the
        # LISTEN connects after it has reached the server, never on the way to the window (an
        # unreachable host would hold the GUI thread for the connect timeout)
        self.soon.start(self.push_delay_ms)
        return True

    def stop(self) -> None:
        self.server = None
        self.timer.stop()
        self.soon.stop()
        self._unlisten()
        self.round.stop()

    @Slot(int)
    def pending(self, n: int) -> None:
        """The status bar counted what waits to be pushed."""
        if self.active and n > 0 and not self.soon.isActive():
            self.soon.start(self.push_delay_ms)

    @Slot()
    def sync_now(self) -> None:
        if not self.active:
            return
        if self.round.running():
            self._again = True
            return
        assert self.server is not None
        self.round.start(self.server)

    def _ended(self, report, text: str) -> None:
        online = bool(report and report.get("online"))
        if online and self.listener is None and self.active:
            self._listen()
        self.round_ended.emit(report, text)
        if self._again and self.active:
            self._again = False
            self.soon.start(0)

    # the server's notifications -----------------------------------------------------------
    @property
    def listener(self):
        return self.listening.listener if self.listening is not None else None

    def _listen(self) -> None:
        assert self.server is not None
        try:
            listener = ChangeListener.for_url(self.server)
        except Exception as exc:  # offline: the periodic round finds out when it is back
            log.info("cannot LISTEN on %s: %s", self.server, exc)
            return
        self.listening = Listening(listener, self)
        self.listening.notified.connect(self._notified)
        self.listening.lost.connect(self._lost)

    def _unlisten(self) -> None:
        if self.listening is not None:
            self.listening.close()
            self.listening = None

    def _lost(self, why: str) -> None:  # listen again after a round reaches the server
        log.info("sync server notifications stopped: %s", why)
        self.listening = None

    def _notified(self, _tables) -> None:
        if not self.soon.isActive():
            self.soon.start(self.pull_delay_ms)

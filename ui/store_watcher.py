"""Notices writes made by other processes (an agent's hook running ``engram remember``,
another member's app on a team store).

Local store: SQLite's ``PRAGMA data_version`` changes when another connection commits;
polling it once a second is one tiny query, far cheaper than re-reading data, and works for
every writer. Team store: PostgreSQL LISTEN/NOTIFY: the server pushes a notification on its
socket and a QSocketNotifier wakes the watcher at once; the timer still polls the server's
write counters as a fallback (a dropped connection must not freeze the view).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ui.listening import Listening

log = logging.getLogger(__name__)


class StoreWatcher(QObject):
    changed = Signal()

    def __init__(self, engram, interval_ms: int = 1000, parent=None):
        super().__init__(parent)
        self.engram = engram
        self._last = self._version()
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)
        self.listening: Listening | None = None
        self._listen()

    def _listen(self) -> None:
        from services import ChangeListener

        try:
            listener = ChangeListener(self.engram)
        except Exception as exc:  # the poll still works; say why the push does not
            log.warning("cannot LISTEN for team-store changes: %s", exc)
            return
        if not listener.available:
            return
        self.listening = Listening(listener, self)
        self.listening.notified.connect(self._notified)
        self.listening.lost.connect(self._lost)

    @property
    def listener(self):
        return self.listening.listener if self.listening is not None else None

    def _version(self) -> int | None:
        try:
            return self.engram.data_version()
        except Exception as exc:  # a locked or vanished store must not spam dialogs
            log.warning("cannot read the store's data version: %s", exc)
            return None

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        if self.listening is not None:
            self.listening.close()
            self.listening = None

    def _lost(self, why: str) -> None:  # connection lost: fall back to polling
        log.warning("team-store notifications stopped: %s", why)
        self.stop()
        self.timer.start()

    def _notified(self, _tables) -> None:
        self._last = self._version()
        self.changed.emit()

    @Slot()
    def poll(self) -> bool:
        v = self._version()
        if v is not None and v != self._last:
            self._last = v
            self.changed.emit()
            return True
        return False

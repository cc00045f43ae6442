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

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal, Slot

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
        self.listener = None
        self.notifier: QSocketNotifier | None = None
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
        self.listener = listener
        self.notifier = QSocketNotifier(listener.fileno(), QSocketNotifier.Type.Read, self)
        self.notifier.activated.connect(self._notified)

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
        if self.notifier is not None:
            self.notifier.setEnabled(False)
            self.notifier = None
        if self.listener is not None:
            self.listener.close()
            self.listener = None

    @Slot()
    def _notified(self) -> None:
        if self.listener is None:
            return
        try:
            tables = self.listener.drain()
        except Exception as exc:  # connection lost: fall back to polling
            log.warning("team-store notifications stopped: %s", exc)
            self.stop()
            self.timer.start()
            return
        if tables:
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

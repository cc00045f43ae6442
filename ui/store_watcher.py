"""Notices writes made by other processes (an agent's hook running ``engram remember``).

SQLite's ``PRAGMA data_version`` changes when another connection commits; polling it once a
second is one tiny query, far cheaper than re-reading data, and works for every writer.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer, Signal, Slot

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

    @Slot()
    def poll(self) -> bool:
        v = self._version()
        if v is not None and v != self._last:
            self._last = v
            self.changed.emit()
            return True
        return False

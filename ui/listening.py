"""A PostgreSQL LISTEN wired into the Qt event loop: the server's NOTIFY wakes a
QSocketNotifier on the listener's own connection, at once, without polling. Used for the team
store the app works on (ui/store_watcher.py) and the server a local store syncs with
(ui/sync_auto.py)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QSocketNotifier, Signal, Slot

log = logging.getLogger(__name__)


class Listening(QObject):
    notified = Signal(list)  # the tables the server says changed
    lost = Signal(str)  # the connection went away (the caller falls back and says why)

    def __init__(self, listener, parent=None):
        """``listener``: a services ChangeListener that is ``available``."""
        super().__init__(parent)
        self.listener = listener
        self.notifier: QSocketNotifier | None = QSocketNotifier(
            listener.fileno(), QSocketNotifier.Type.Read, self
        )
        self.notifier.activated.connect(self._ready)

    def close(self) -> None:
        if self.notifier is not None:
            self.notifier.setEnabled(False)
            self.notifier.deleteLater()
            self.notifier = None
        if self.listener is not None:
            try:
                self.listener.close()
            except Exception:  # already closed by the server going away
                pass
            self.listener = None

    @Slot()
    def _ready(self) -> None:
        if self.listener is None:
            return
        try:
            tables = self.listener.drain()
        except Exception as exc:
            self.close()
            self.lost.emit(str(exc))
            return
        if tables:
            self.notified.emit(tables)

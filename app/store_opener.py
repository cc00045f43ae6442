"""Open the store off the GUI thread, after the window has painted.

The window is the first thing a user sees; what it shows comes from a store that can take
long to open (the ~300 ms of imports behind the tabs, a migration, a database locked by
another process for up to its 30 s busy timeout, a team store across the network). Here that
runs in a thread, so the window stays responsive (it can be moved, closed) meanwhile; the
result comes back to the GUI thread as a queued signal."""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class StoreOpener(QObject):
    opened = Signal(object)  # the Engram
    failed = Signal(str)  # one line saying why

    def __init__(self, parent=None):
        super().__init__(parent)
        self.engram = None  # also kept here: a close during the opening must close it
        self.error: str | None = None
        self._thread: threading.Thread | None = None

    def start(self, config) -> None:
        """Open the store of ``config`` (a StoreConfig) in the thread."""
        self._thread = threading.Thread(
            target=self._run, args=(config,), name="engram-open", daemon=True
        )
        self._thread.start()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the opening to end (the window was closed meanwhile); whether it did."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self, config) -> None:
        try:
            from models.identity import set_origin

            set_origin("app")  # provenance on every write the desktop app makes
            from ui.main_window import load_store_parts

            load_store_parts()  # the window's tabs and dialogs: imported here, not on the GUI
            from services import Engram

            # without the embedding model (2–3 s): the window loads it in a worker afterwards
            engram = Engram.open(config)
            try:
                engram.follow_changes("debounce")  # memory.md follows the window's edits
            except Exception:
                engram.close()
                raise
            # this thread's own connection (peewee: one per thread); the GUI thread opens its
            # own on first use, as every worker of the window does
            engram.db.close()
        except Exception as exc:  # any failure becomes the window's message, not a traceback
            log.exception("the store did not open")
            self.error = explain(exc, config.data_dir)
            self.failed.emit(self.error)
            return
        self.engram = engram
        self.opened.emit(engram)


def explain(exc: Exception, data_dir) -> str:
    """One line a user can act on (the traceback is in the log)."""
    if data_dir.exists() and not data_dir.is_dir():
        return f"{data_dir} is a file, not a folder: choose another data folder."
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror}{where} (data folder: {data_dir})."
    return f"{str(exc) or type(exc).__name__} (data folder: {data_dir})."

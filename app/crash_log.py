"""File logging and a last-resort handler for uncaught exceptions in the desktop app.

The log lives beside the store's data, in ``<data dir>/logs/engram.log`` (rotated, 1 MB × 3);
it records what happened and tracebacks, never memory text (services log ids and counts). An
uncaught exception on any thread is written there with its traceback and shown to the user
with the log's path, so a crash leaves something to attach to a bug report.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path

LOG_NAME = "engram.log"
log = logging.getLogger("engram")


def file_log_handler(data_dir: Path) -> logging.Handler:
    """A rotating handler on ``<data dir>/logs/engram.log`` (0600; the directory 0700)."""
    logs = Path(data_dir) / "logs"
    logs.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = logs / LOG_NAME
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=1 << 20, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s")
    )
    os.chmod(path, 0o600)
    return handler


def setup_file_logging(data_dir: Path, level: int = logging.INFO) -> Path:
    path = Path(data_dir) / "logs" / LOG_NAME
    root = logging.getLogger()
    if not any(getattr(h, "baseFilename", None) == str(path) for h in root.handlers):
        root.addHandler(file_log_handler(data_dir))
    root.setLevel(min(root.level or level, level))
    return path


def install_excepthook(log_path: Path, show: Callable[[str], None] | None = None) -> None:
    """Uncaught exceptions (GUI thread and worker threads) go to the log and, when ``show`` is
    given, to the user as one message naming the log file. The app keeps running where Qt
    lets it: a failed slot is a bug report, not a lost session."""

    def report(exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        log.critical("uncaught exception\n%s", text)
        sys.__stderr__ and sys.__stderr__.write(text)
        # a dialog can only be opened on the GUI thread; a worker's crash is in the log
        if show is not None and threading.current_thread() is threading.main_thread():
            try:
                show(
                    f"Engram hit an unexpected error ({exc_type.__name__}: {exc}).\n\n"
                    "What was written before the error stays written; the step that failed "
                    "may not have finished (check it before trying again). The details are "
                    f"in {log_path}; please attach that file to a bug report."
                )
            except Exception:  # the dialog itself must not recurse into this hook
                log.exception("could not show the crash dialog")

    sys.excepthook = report
    threading.excepthook = lambda a: report(a.exc_type, a.exc_value, a.exc_traceback)


def install_qt_message_handler() -> None:
    """Qt's own warnings (a bad stylesheet, a platform plugin problem) go to the same log."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    levels = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }
    qt_log = logging.getLogger("engram.qt")

    def handler(mode, context, message) -> None:
        qt_log.log(levels.get(mode, logging.WARNING), "%s", message)

    qInstallMessageHandler(handler)

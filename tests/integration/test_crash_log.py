"""A crash leaves a log a user can attach to a bug report (app/crash_log.py)."""

from __future__ import annotations

import logging
import sys
import threading

from app.crash_log import install_excepthook, setup_file_logging


def test_uncaught_exceptions_are_logged_with_their_traceback(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    shown: list[str] = []
    path = setup_file_logging(tmp_path / "store")
    try:
        install_excepthook(path, show=shown.append)
        try:
            raise RuntimeError("the compile button exploded")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())

        def worker():
            raise ValueError("a worker thread failed")

        t = threading.Thread(target=worker)
        t.start()
        t.join()
        for h in logging.getLogger().handlers:
            h.flush()
        text = path.read_text()
        assert "RuntimeError: the compile button exploded" in text
        assert "Traceback" in text and "ValueError: a worker thread failed" in text
        # the user is told once, for the GUI-thread crash, with the log's path
        assert len(shown) == 1 and str(path) in shown[0]
        assert (path.stat().st_mode & 0o777) == 0o600
    finally:
        root = logging.getLogger()
        for h in list(root.handlers):
            if getattr(h, "baseFilename", None) == str(path):
                root.removeHandler(h)
                h.close()

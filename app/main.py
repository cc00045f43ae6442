"""GUI entry point (``engram-gui``, ``engram gui``, ``make run``)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import cast

from app.commands.help_text import flag


def parse_args(argv):
    p = argparse.ArgumentParser(prog="engram-gui")
    p.add_argument("--data-dir")
    flag(p, "--demo-if-empty", help="seed a clearly-marked demo store when there are no agents yet")
    flag(p, "--version")
    flag(p, "--self-test", help="open a store, run a search, exit 0 (packaging smoke test)")
    flag(
        p,
        "--exit-after-first-paint",
        help="print {window_paint_ms} as JSON when the window first paints, then "
        "{window_paint_ms, first_paint_ms, rss_mb, facts} once the store's first page (or "
        "the Welcome page) is shown, then exit (benchmarks)",
    )
    flag(p, "--dark", help="use the dark palette")
    flag(p, "--light", help="use the light palette")
    flag(p, "--no-tray", help="do not show a tray icon")
    return p.parse_known_args(argv[1:])[0]


def rss_mb() -> float:
    """Resident memory now (Linux /proc; elsewhere the peak from getrusage)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (2**20 if sys.platform == "darwin" else 1024)


def main(argv: list[str] | None = None) -> int:
    t0 = time.perf_counter()
    argv = list(sys.argv if argv is None else argv)
    args = parse_args(argv)
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    if args.version:
        from app import __version__  # ~20 ms of package metadata: only when asked

        print(f"engram {__version__}")
        return 0
    if args.self_test:  # a throwaway store: never touches the user's own
        from app.selftest import run_self_test

        return run_self_test()
    return run_window(args, argv, t0)


def run_window(args, argv: list[str], t0: float) -> int:
    """The window comes first and the store second. Only PySide6 and the window's frame are
    imported before the first paint (``python -X importtime``); the log, the tabs, dialogs,
    services (peewee, numpy, markdown) and the store come after it, the store opening in a
    thread (app/store_opener.py), and attach to the same window. The embedding model loads
    later still, in the window's worker; the demo (``--demo-if-empty``) is seeded by the
    window in a worker too."""
    from PySide6.QtCore import QTimer

    from app.store_opener import StoreOpener

    bench = args.exit_after_first_paint
    app, win = _make_window(args, argv)
    opener = StoreOpener(parent=win)
    state: dict = {"daemon": None, "rc": 0, "window_ms": None}

    def ms() -> float:
        return round((time.perf_counter() - t0) * 1000, 1)

    def window_painted() -> None:
        state["window_ms"] = ms()
        if bench:
            _print_json({"window_paint_ms": state["window_ms"]})
        # the store's settings and the log (logging.handlers: ~8 ms of imports) come with
        # the store, not before the window: what can fail from here on is in the data dir's log
        from app.settings import store_config

        config = store_config(args.data_dir, semantic=False)
        _install_crash_log(config.data_dir, win)
        opener.start(config)

    def content_shown() -> None:
        tab = win.current_agent_tab()
        _print_json(
            {
                "window_paint_ms": state["window_ms"],
                "first_paint_ms": ms(),  # the store's first page (or the welcome) is shown
                "rss_mb": round(rss_mb(), 1),
                "facts": tab.model.total_count() if tab else 0,
            }
        )
        QTimer.singleShot(0, win.quit)

    def opened(engram) -> None:
        if not win.isVisible():  # closed while the store opened: closed below
            return
        if bench:
            win.first_page_painted.connect(content_shown)
        error = _attach(win, engram)
        if error is not None:
            failed(error)
            return
        if bench and win.current_agent_tab() is None:
            QTimer.singleShot(0, content_shown)  # the welcome page, painted with the frame
        if not bench:
            state["daemon"] = _serve_hooks(engram)

    def failed(message: str) -> None:
        state["rc"] = 1
        if bench or not win.isVisible():
            print(f"engram: could not open the store: {message}", file=sys.stderr, flush=True)
        else:
            win.open_failed(message)  # returns when the user has read it
        app.exit(1)

    opener.opened.connect(opened)
    opener.failed.connect(failed)
    win.window_painted.connect(window_painted)
    win.show()
    rc = app.exec()
    _close_down(win, opener, state["daemon"])
    return rc or state["rc"]


def _close_down(win, opener, daemon) -> None:
    """After the event loop: the hooks' server, the window's workers, then the store, also
    one the thread opened after the window was closed."""
    if daemon is not None:
        daemon.stop()
    win.shutdown()
    if opener.join(timeout=40):  # else a store still waits for a lock: the process ends
        engram = win.engram or opener.engram
        if engram is not None:
            engram.close(quick=True)  # a long recompile is owed to the next start


def _make_window(args, argv: list[str]):
    """The application and the window with no store yet: what the first paint shows."""
    from PySide6.QtWidgets import QApplication

    from ui.main_window import MainWindow
    from ui.theme import apply_theme, icon

    app = cast(QApplication, QApplication.instance() or QApplication(argv))
    app.setApplicationName("Engram")
    app.setApplicationDisplayName("Engram")
    app.setDesktopFileName("io.engram.Engram")  # packaging/engram.desktop installs under this id
    app.setWindowIcon(icon())
    dark = True if args.dark else False if args.light else MainWindow.remembered_dark()
    apply_theme(app, dark)
    bench = args.exit_after_first_paint
    win = MainWindow(
        None,
        use_tray=not (args.no_tray or bench),
        load_semantic=True,
        demo_if_empty=args.demo_if_empty and not bench,
    )
    return app, win


def _attach(win, engram) -> str | None:
    """Attach the opened store to the window; its first reads (the agents, the first page)
    are part of opening it, so their failure is said as the opening's: why, in one line."""
    try:
        win.attach(engram)
    except Exception as exc:
        import logging

        from app.store_opener import explain

        logging.getLogger(__name__).exception("the store did not open")
        return explain(exc, engram.config.data_dir)
    return None


def _print_json(fields: dict) -> None:
    import json

    print(json.dumps(fields), flush=True)


def _install_crash_log(data_dir, win) -> None:
    """Uncaught exceptions go to the data dir's log and to the user in a dialog; a data dir
    that cannot hold a log (a file, no permission) is the store's error to report, so no log
    file is no crash."""
    import logging

    from app.crash_log import (
        LOG_NAME,
        install_excepthook,
        install_qt_message_handler,
        setup_file_logging,
    )

    try:
        log_path = setup_file_logging(data_dir)
    except OSError as exc:
        logging.getLogger(__name__).warning("no log file in %s: %s", data_dir, exc)
        log_path = data_dir / "logs" / LOG_NAME
    install_excepthook(log_path, show=lambda text: _crash_dialog(win, text))
    install_qt_message_handler()


def _serve_hooks(engram):
    """While the app runs, agents' hooks and the CLI ask it (app/daemon_server.py) instead of
    each loading Engram; an `engram serve` already running keeps serving them instead."""
    import logging

    from app.daemon_server import serve
    from services.integrations.daemon import AlreadyRunning

    try:
        return serve(engram, keyword_only=True)  # the window loads the model itself
    except AlreadyRunning:
        return None
    except OSError as exc:  # a data dir path too long for a socket, a read-only dir
        logging.getLogger(__name__).warning("hooks will not reach the app: %s", exc)
        return None


def _crash_dialog(parent, text: str) -> None:
    from PySide6.QtWidgets import QMessageBox

    QMessageBox.critical(parent, "Engram", text)


if __name__ == "__main__":
    sys.exit(main())

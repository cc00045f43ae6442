"""GUI entry point (``engram-gui``, ``engram gui``, ``make run``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import cast


def parse_args(argv):
    p = argparse.ArgumentParser(prog="engram-gui")
    p.add_argument("--data-dir")
    p.add_argument(
        "--demo-if-empty",
        action="store_true",
        help="seed a clearly-marked demo store when there are no agents yet",
    )
    p.add_argument("--version", action="store_true")
    p.add_argument(
        "--self-test",
        action="store_true",
        help="open a store, run a search, exit 0 (packaging smoke test)",
    )
    p.add_argument(
        "--exit-after-first-paint",
        action="store_true",
        help="print {first_paint_ms, rss_mb, facts} as JSON once the fact "
        "browser's first page has painted, then exit (benchmarks)",
    )
    p.add_argument("--dark", action="store_true", help="use the dark palette")
    p.add_argument("--light", action="store_true", help="use the light palette")
    p.add_argument("--no-tray", action="store_true", help="do not show a tray icon")
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
    from models.identity import set_origin

    set_origin("app")  # provenance on every write the desktop app makes
    from app import __version__

    if args.version:
        print(f"engram {__version__}")
        return 0
    if args.self_test:  # a throwaway store: never touches the user's own
        from app.selftest import run_self_test

        return run_self_test()
    from app.crash_log import install_excepthook, install_qt_message_handler, setup_file_logging
    from app.settings import store_config
    from services import Engram

    config = store_config(args.data_dir, semantic=False)
    log_path = setup_file_logging(config.data_dir)
    install_excepthook(log_path)  # until the window exists: the log and stderr
    install_qt_message_handler()
    # the GUI opens the store without the embedding model (2–3 s) so the first page paints
    # at once; the window loads it in a worker (see MainWindow._load_semantic)
    # the demo (an empty store with --demo-if-empty) is seeded by the window, in a worker:
    # the window is there at once instead of after the 17 s the seeding takes
    engram = Engram.open(config)
    engram.follow_changes("debounce")  # memory.md follows the edits made in the window
    from PySide6.QtCore import QTimer
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
    win = MainWindow(
        engram,
        use_tray=not (args.no_tray or args.exit_after_first_paint),
        load_semantic=True,
        demo_if_empty=args.demo_if_empty and not args.exit_after_first_paint,
    )

    if args.exit_after_first_paint:

        def report():
            tab = win.current_agent_tab()
            print(
                json.dumps(
                    {
                        "first_paint_ms": round((time.perf_counter() - t0) * 1000, 1),
                        "rss_mb": round(rss_mb(), 1),
                        "facts": tab.model.total_count() if tab else 0,
                    }
                ),
                flush=True,
            )
            QTimer.singleShot(0, win.quit)

        if win.current_agent_tab() is None:
            QTimer.singleShot(0, report)
        else:
            win.first_page_painted.connect(report)
    install_excepthook(log_path, show=lambda text: _crash_dialog(win, text))
    win.show()
    daemon = None if args.exit_after_first_paint else _serve_hooks(engram)
    rc = app.exec()
    if daemon is not None:
        daemon.stop()
    win.shutdown()
    engram.close()
    return rc


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

"""GUI entry point (``engram-gui``, ``engram gui``, ``make run``)."""
from __future__ import annotations

import argparse
import os
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(prog="engram-gui")
    p.add_argument("--data-dir")
    p.add_argument("--demo-if-empty", action="store_true",
                   help="seed a clearly-marked demo store when there are no agents yet")
    p.add_argument("--version", action="store_true")
    p.add_argument("--self-test", action="store_true",
                   help="open a store, run a search, exit 0 (packaging smoke test)")
    return p.parse_known_args(argv[1:])[0]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv if argv is None else argv)
    args = parse_args(argv)
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    from app import __version__

    if args.version:
        print(f"engram {__version__}")
        return 0
    from app.settings import store_config
    from services.engram import Engram

    engram = Engram.open(store_config(args.data_dir))
    if args.demo_if_empty and not engram.agents():
        from services.demo import seed_demo

        seed_demo(engram)
    from PySide6.QtWidgets import QApplication, QListWidget

    app = QApplication(argv)
    w = QListWidget()
    w.setWindowTitle("Engram")
    for a in engram.agents():
        w.addItem(f"{a.slug} — {a.fact_count} facts")
    w.resize(600, 400)
    w.show()
    rc = app.exec()
    engram.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())

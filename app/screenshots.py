"""Screenshots of every view: ``python -m app.screenshots OUTDIR [--data-dir D] [--dark]``.

Seeds a demo store when the data dir has no agents, opens the real window and grabs each
view with ``QWidget.grab()`` (works under Xvfb and offscreen). PNGs are for looking at, not
for committing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path


def _settle(app, runner, ms: int = 300) -> None:
    from PySide6.QtCore import QDeadlineTimer, QEventLoop

    runner.wait_idle(60000)
    deadline = QDeadlineTimer(ms)
    while not deadline.hasExpired():
        app.processEvents(QEventLoop.AllEvents, 20)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.screenshots")
    p.add_argument("outdir")
    p.add_argument("--data-dir")
    p.add_argument("--dark", action="store_true")
    p.add_argument("--scale", default=None, help="QT_SCALE_FACTOR, e.g. 2 for 200%%")
    args = p.parse_args(argv)
    if args.scale:
        os.environ["QT_SCALE_FACTOR"] = args.scale
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    data_dir = Path(args.data_dir or Path(tempfile.gettempdir()) / "engram-screenshots")

    from PySide6.QtWidgets import QApplication

    from app.settings import store_config
    from services import Engram, seed_demo
    from ui.main_window import MainWindow
    from ui.settings_dialog import SettingsDialog
    from ui.theme import apply_theme, icon

    engram = Engram.open(store_config(data_dir))
    if not engram.agents():
        seed_demo(engram)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setWindowIcon(icon())
    apply_theme(app, args.dark)
    win = MainWindow(engram, use_tray=False)
    win.resize(1360, 860)
    win.show()
    suffix = "-dark" if args.dark else ""
    shots = []

    def shot(name, widget=None):
        _settle(app, win.runner)
        path = out / f"{name}{suffix}.png"
        (widget or win).grab().save(str(path))
        shots.append(path)

    tab = win.current_agent_tab()
    tab.table.selectRow(0)
    shot("01-facts")
    tab.search.query.setText("database migration")
    tab.search.run_now()
    _settle(app, win.runner)
    tab.search.table.selectRow(0)
    shot("02-search")
    tab.search.query.clear()
    tab.filter_bar.category.setCurrentText("rule")
    shot("03-filtered")
    tab.filter_bar.clear()
    tab.show_view("Timeline")
    shot("04-timeline")
    win.tray.compile(tab.memory.slug)
    _settle(app, win.runner)
    tab.show_view("Compiled")
    tab.compiled.reload()
    shot("05-compiled")
    pane = tab.compiled.panes["memory"]
    pane.views.setCurrentIndex(1)
    for i in range(pane.lines.count()):
        if pane.facts_of_line(i):
            pane.lines.setCurrentRow(i)
            break
    shot("06-compiled-sources")
    tab.show_view("Statistics")
    shot("07-statistics")
    tab.show_view("Facts")
    win.tabs.setCurrentIndex(0)
    win.all_tab.search.query.setText("prefers")
    win.all_tab.search.run_now()
    _settle(app, win.runner)
    win.all_tab.search.table.selectRow(0)
    shot("08-all-agents")
    dlg = SettingsDialog(engram, win)
    dlg.show()
    shot("09-settings", dlg)
    dlg.close()
    win.engram_menu.popup(win.mapToGlobal(win.rect().center()))
    shot("10-engram-menu", win.engram_menu)
    win.engram_menu.close()
    win.quit()
    win.shutdown()
    engram.close()
    for s in shots:
        print(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())

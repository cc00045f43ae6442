"""Screenshots of every view: ``python -m app.screenshots OUTDIR [--data-dir D] [--dark]``.

Seeds a demo store when the data dir has no agents, opens the real window and grabs each
view with ``QWidget.grab()`` (works under Xvfb and offscreen); dialogs that run modally are
grabbed once up and then cancelled. Names end in ``-<size>-<light|dark>.png``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import cast


def _settle(app, runner, ms: int = 300) -> None:
    from PySide6.QtCore import QDeadlineTimer, QEventLoop

    runner.wait_idle(60000)
    deadline = QDeadlineTimer(ms)
    while not deadline.hasExpired():
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)


def _review_candidates(engram) -> None:
    """A few memories waiting for review, so the Review view has something to show."""
    from services import NewFact, review_metadata

    slug = engram.agents()[0].slug
    engram.agent(slug).remember_many(
        [
            NewFact(
                text,
                status="pending",
                source="session",
                metadata=review_metadata(reason, conf, source="session"),
            )
            for text, reason, conf in (
                ("Maybe prefers Poetry over uv for older projects", "low-confidence", 0.42),
                ("Phone number of the on-call engineer is on the wiki", "personal-data", 0.9),
                ("Might move the staging cluster to Hetzner next quarter", "low-confidence", 0.35),
            )
        ],
        near_duplicate=None,
    )


def _insights(app, win, engram, shot, width: int, height: int) -> None:
    """View → Insights, each window at the window's size: agents' reads first (what their
    MCP get_context and prompt hook do), a compile, one duplicate and one forget."""
    from services import ForgetScope, ForgetService, NewFact
    from services.search.context import build_context

    for i, a in enumerate(engram.agents(with_counts=False)):
        m = engram.agent(a.slug)
        build_context(m, "how do we deploy and test?", reader="mcp get_context")
        if i == 0:
            build_context(m, "which database?", reader="hook context")
            m.remember_many(
                [NewFact("Before every commit, run the test suite.", category="env")],
                near_duplicate=None,
            )
    win.tray.act_compile_all.trigger()
    _settle(app, win.runner, 300)
    if not ForgetService(engram).receipts():
        first = engram.agents(with_counts=False)[0].slug
        ForgetService(engram).execute(ForgetScope(agent=first, matching="Hetzner"))
    for key, name in (
        ("load", "23-what-agents-load"),
        ("health", "24-memory-health"),
        ("receipts", "25-forget-receipt-picture"),
        ("reads", "26-read-log-pause"),
    ):
        view = win.insights.show(key)
        view.resize(width, height)
        shot(name, view)
        view.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.screenshots")
    p.add_argument("outdir")
    p.add_argument("--data-dir")
    p.add_argument("--dark", action="store_true")
    p.add_argument("--scale", default=None, help="QT_SCALE_FACTOR, e.g. 2 for 200%%")
    p.add_argument("--size", default="1400x900", help="window size, e.g. 900x600")
    args = p.parse_args(argv)
    if args.scale:
        os.environ["QT_SCALE_FACTOR"] = args.scale
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    data_dir = Path(args.data_dir or Path(tempfile.gettempdir()) / "engram-screenshots")

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.settings import store_config
    from services import Engram, seed_demo
    from ui.main_window import MainWindow
    from ui.settings_dialog import SettingsDialog
    from ui.theme import apply_theme, icon

    # never the user's remembered window state
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    width, height = (int(x) for x in args.size.lower().split("x"))
    engram = Engram.open(store_config(data_dir))
    if not engram.agents():
        seed_demo(engram)
        _review_candidates(engram)
    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv[:1]))
    app.setWindowIcon(icon())
    apply_theme(app, args.dark)
    suffix = f"-{args.size}-{'dark' if args.dark else 'light'}"
    win = MainWindow(engram, use_tray=False)
    win.resize(width, height)
    win.show()
    shots = []

    def shot(name, widget=None):
        _settle(app, win.runner)
        path = out / f"{name}{suffix}.png"
        (widget or win).grab().save(str(path))
        shots.append(path)

    def shot_modal(name, open_it, answer=None):
        """A dialog that runs modally (exec): grabbed once it is up, then answered
        (``answer(box)``; default: Esc, which never changes anything)."""
        from PySide6.QtCore import QTimer

        def grab():
            box = app.activeModalWidget()
            if box is None:
                QTimer.singleShot(50, grab)
                return
            _settle(app, win.runner, 200)
            path = out / f"{name}{suffix}.png"
            box.grab().save(str(path))
            shots.append(path)
            (answer or (lambda b: b.reject()))(box)

        QTimer.singleShot(0, grab)
        open_it()
        _settle(app, win.runner)

    tab = win.current_agent_tab()
    assert tab is not None, "the demo store has agents"
    tab.table.selectRow(0)
    shot("01-facts")
    tab.select_ids([tab.model.id_at(r) for r in range(3)], current=tab.model.id_at(0))
    tab.delete_selected(confirm=False)
    shot("01b-deleted-undo")
    win.act_undo.trigger()
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
    tab.show_view("Review")
    shot("11-review")
    tab.show_view("Archived")
    tab.archived.table.selectRow(0)
    shot("12-archived")
    tab.show_view("Facts")
    gc = win.lifecycle_ctl.gc_preview()
    _settle(app, win.runner, 600)
    shot("13-gc-preview", gc)
    gc.reject()
    from ui.forget_dialog import ForgetDialog

    fd = ForgetDialog(engram, win.runner, tab.memory.slug, [], win)
    fd.resize(min(900, width - 40), min(620, height - 40))
    fd.show()
    fd.matching.setText("PostgreSQL")
    fd.preview()
    _settle(app, win.runner, 600)
    shot("14-forget-preview-reasons", fd)
    fd.close()
    tab.views.setCurrentWidget(tab.entities)
    _settle(app, win.runner, 300)
    shot("16-entities")
    tab.show_view("Facts")
    tab.table.selectRow(1)
    _settle(app, win.runner)
    ed = tab.editor.content
    ed.setPlainText(ed.toPlainText() + " (edited, not saved)")
    shot("17-unsaved-edit")
    shot_modal("18-unsaved-ask", lambda: tab.table.selectRow(3))
    tab.editor.revert()
    shot_modal("19-remove-agent-confirm", win.act_remove_agent.trigger)
    shot_modal("20-new-agent", win.act_add_agent.trigger)
    shot_modal("21-shortcuts-f1", win.menus.show_shortcuts)
    pv = win.privacy_ctl.open_privacy()
    shot("15-privacy", pv)
    pv.close()
    _insights(app, win, engram, shot, width, height)
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
    # the trash: an agent removed (the same step as File → Remove agent → Yes)
    victim = list(win.agent_tabs)[-1]
    engram.trash_agent(victim)
    win.agents_ctl.sync_agents()
    trash = win.agents_ctl.open_trash()
    shot("22-trash", trash)
    trash.restore_selected()
    _settle(app, win.runner)
    trash.close()
    win.quit()
    win.shutdown()
    engram.close()
    # one store per process (the models bind one database): the empty one comes last
    empty = Engram.open(store_config(Path(tempfile.mkdtemp())))
    welcome = MainWindow(empty, use_tray=False)
    welcome.resize(width, height)
    welcome.show()
    _settle(app, welcome.runner)
    shots.append(out / f"00-welcome{suffix}.png")
    welcome.grab().save(str(shots[-1]))
    welcome.shutdown()
    empty.close()
    for s in shots:
        print(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Background jobs: compile from the tray controller, cancel a running job, close the window
while a job runs, and the PySide6 refcount bug the app depends on being absent."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu
from tests_gui_helpers import open_tab

from services.ingest.pipeline import NewFact
from ui import workers


def test_compile_from_tray_action_updates_menu_and_view(window, seeded, qtbot):
    from services.lifecycle.compile import latest_layers

    tab = open_tab(window, "claude")
    tab.show_view("Compiled")
    assert "Nothing compiled yet" in tab.compiled.notice.text()
    menu = QMenu()
    window.tray.populate(menu)
    texts = [a.text() for a in menu.actions()]
    assert "Compile now (all agents)" in texts and "Last compile: never (this session)" in texts
    with qtbot.waitSignal(window.tray.compiled, timeout=60000) as sig:
        window.tray.act_compile_all.trigger()
    assert "failed" not in sig.args[0] and "claude" in sig.args[0]
    layers = latest_layers(seeded)
    assert set(layers) == {"today", "week", "longterm", "memory"}
    # the menu, rebuilt on open, reports the result
    window.tray.populate(menu)
    last = [a.text() for a in menu.actions() if a.text().startswith("Last compile")][0]
    assert "claude" in last and "never" not in last
    # the compiled view shows memory.md with its token meter and provenance
    pane = tab.compiled.panes["memory"]
    assert pane.meter.value() == layers["memory"].tokens > 0
    assert f"/ {layers['memory'].budget:,} tokens" in pane.meter.format()
    row = next(i for i in range(pane.lines.count()) if pane.facts_of_line(i))
    pane.lines.setCurrentRow(row)
    fid = pane.facts_of_line(row)[0]
    assert pane.sources.item(0).text().startswith(f"#{fid} ")
    assert (
        "Prefers PostgreSQL" in tab.compiled.panes["memory"].rendered.toPlainText()
        or pane.lines.count() > 1
    )
    # a second compile gives a diff with the previous one
    seeded.remember(
        "Always pin the Python version in CI", category="rule", importance=0.9, pinned=True
    )
    with qtbot.waitSignal(window.tray.compiled, timeout=60000):
        tab.compiled.compile_btn.click()
    diff = tab.compiled.panes["memory"].diff.toPlainText()
    assert "+" in diff and "Always pin the Python version in CI" in diff


def test_cancel_a_running_job_from_the_jobs_bar(window, agent, qtbot):
    """A job storing facts in batches; Cancel (the jobs bar button) stops it between batches
    and what was stored before stays stored."""
    batches = []

    def op(progress, cancelled):
        for b in range(1000):
            if cancelled():
                return b
            agent.remember_many(
                [NewFact(f"Batch {b} note {i} about ticket {b * 10 + i}") for i in range(5)],
                near_duplicate=None,
            )
            batches.append(b)
            progress(b + 1, 1000, f"batch {b + 1}")
        return 1000

    job = window.runner.start("Bulk import", op)
    assert window.jobs.isVisible() and window.jobs.label.text() == "Bulk import"
    # the bar follows the worker's progress signals (queued to the GUI thread)
    qtbot.waitUntil(lambda: window.jobs.bar.value() >= 2, timeout=30000)
    assert window.jobs.bar.maximum() == 1000
    with qtbot.waitSignal(
        window.runner.job_finished, timeout=30000, check_params_cb=lambda i, outcome, m: i == job
    ) as sig:
        window.jobs.cancel_btn.click()
    assert sig.args[1] == "cancelled"
    # the end state stays on screen until dismissed (a cancelled job used to say nothing)
    assert window.jobs.isVisible() and window.jobs.end_state() == "Bulk import: cancelled"
    assert window.jobs.log[-1][1:3] == ("Bulk import", "cancelled")
    window.jobs.dismiss_btn.click()
    assert not window.jobs.isVisible()
    # the store watcher may have queued a re-read of the agents after the last batch
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)
    assert 2 <= len(batches) < 1000
    assert agent.facts.count() == 5 * len(batches)
    assert all(not w.isRunning() for w in workers.LIVE)


def test_closing_the_window_cancels_running_jobs(engram, agent, qtbot):
    from ui.main_window import MainWindow

    w = MainWindow(engram, use_tray=False)
    qtbot.addWidget(w)
    w.show()
    steps = []

    def op(progress, cancelled):
        for i in range(10_000):
            if cancelled():
                return "stopped"
            progress(i, 10_000, "working")
            steps.append(i)
            agent.facts.count()
        return "finished"

    w.runner.start("Long job", op)
    qtbot.waitUntil(lambda: len(steps) > 5, timeout=10000)
    w.close()  # no tray here: closing quits, and must join the worker first
    assert not w.runner.is_busy()
    assert all(not t.isRunning() for t in workers.LIVE)
    assert len(steps) < 10_000
    assert not w.watcher.timer.isActive()


def test_failed_job_reports_the_message(window, qtbot):
    from services.errors import InvalidInput

    got = []

    def op(progress, cancelled):
        raise InvalidInput("importance must be between 0 and 1")

    with qtbot.waitSignal(
        window.runner.job_finished, timeout=10000, check_params_cb=lambda i, outcome, m: m != ""
    ) as sig:
        window.runner.start("Bad", op, failure=got.append)
    assert sig.args[1] == "failed" and got == ["importance must be between 0 and 1"]


def test_signal_emit_keeps_refcounts():
    """PySide6 6.12.0 drops a reference to True on every Signal.emit() and crashes Python 3.11
    after a few hundred emits; pyproject pins it out. This guards against it coming back."""

    class Emitter(QObject):
        sig = Signal(int)

    e = Emitter()
    before = sys.getrefcount(True)
    for i in range(200):
        e.sig.emit(i)
    assert sys.getrefcount(True) >= before - 5


def test_without_a_tray_the_actions_live_in_the_window_menu(engram, agent, qtbot):
    from PySide6.QtWidgets import QApplication, QSystemTrayIcon

    from ui.main_window import MainWindow

    assert not QSystemTrayIcon.isSystemTrayAvailable()  # offscreen has no tray host
    w = MainWindow(engram, use_tray=True)
    qtbot.addWidget(w)
    w.show()
    assert not w.has_tray and QApplication.instance().quitOnLastWindowClosed()
    assert "closing the window quits" in w.statusBar().currentMessage()
    w.engram_menu.aboutToShow.emit()  # rebuilt on open, like the tray's menu
    texts = [a.text() for a in w.engram_menu.actions()]
    assert texts[0] == "Show/Hide Engram" and "Quit Engram" in texts
    sub = next(a.menu() for a in w.engram_menu.actions() if a.text() == "Compile one agent")
    one = [a for a in sub.actions() if a.data() == "claude"]
    assert one, [a.text() for a in sub.actions()]
    with qtbot.waitSignal(w.tray.compiled, timeout=60000) as sig:
        one[0].trigger()
    assert sig.args[0].startswith("claude:")


def test_every_main_action_has_a_unique_shortcut(window):
    actions = [
        window.act_add_agent,
        window.act_rename_agent,
        window.act_remove_agent,
        window.act_import,
        window.act_reindex,
        window.act_settings,
        window.act_undo,
        window.act_redo,
        window.act_find,
        window.act_pin,
        window.act_unpin,
        window.act_recat,
        window.act_delete,
        window.act_forget,
        window.act_cancel,
        window.tray.act_compile_all,
        window.tray.act_gc,
        window.tray.act_quit,
        window.act_dark,
    ]
    keys = [a.shortcut().toString() for a in actions]
    assert all(keys), [a.text() for a, k in zip(actions, keys) if not k]
    assert len(set(keys)) == len(keys), keys


def test_model_loads_after_first_paint_and_writes_wait_for_it(engram, agent, qtbot):
    """The app opens the store without the model and loads it in the serial lane: a delete
    made meanwhile must still remove the fact's vector (no deleted memory comes back)."""
    from tests_gui_helpers import wait_write

    from services.config import StoreConfig
    from services.engram import Engram
    from ui.main_window import MainWindow

    fid = agent.remember("The VPN config lives in the ops vault").fact_id
    data_dir = engram.config.data_dir
    engram.close()
    lazy = Engram.open(StoreConfig(data_dir=data_dir, semantic=False))
    try:
        assert not lazy.semantic_enabled
        w = MainWindow(lazy, use_tray=False, load_semantic=True)
        qtbot.addWidget(w)
        w.show()
        tab = w.agent_tabs["claude"]
        assert tab.model.row_of(fid) is not None  # the first page needs no model
        tab.table.selectRow(tab.model.row_of(fid))
        with (
            qtbot.waitSignal(w.semantic_ready, timeout=60000) as ready,
            wait_write(qtbot, tab, timeout=60000),
        ):
            tab.delete_selected()
            assert not tab.search.mode_buttons["semantic"].isEnabled()
        assert ready.args == [True] and lazy.semantic_enabled
        assert tab.search.mode_buttons["semantic"].isEnabled()
        got = lazy.index.query(agent.agent_id, lazy.embedder.embed_one("VPN config vault"), k=5)
        assert fid not in [i for i, _ in got], "the delete waited for the index and removed it"
        w.close()
    finally:
        lazy.close()


def test_import_from_the_file_menu_runs_in_a_worker(window, agent, qtbot, tmp_path):
    from tests_gui_helpers import open_tab

    src = tmp_path / "MEMORY.md"
    src.write_text(
        "User prefers Fish shell\n§\nThe build server is called hopper\n", encoding="utf-8"
    )
    tab = open_tab(window, "claude")
    with qtbot.waitSignal(
        window.runner.job_finished,
        timeout=60000,
        check_params_cb=lambda i, outcome, m: outcome != "" and window.jobs.current is None,
    ):
        job = window.imports_ctl.import_files(str(src))
        assert job and window.jobs.label.text() == "Importing into claude"
    assert "Imported 2 fact(s)" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: tab.model.rowCount() == 2, timeout=10000)
    assert {tab.model.fact_at(r).content for r in range(2)} == {
        "User prefers Fish shell",
        "The build server is called hopper",
    }


def test_import_of_a_bad_file_says_why(window, agent, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox
    from tests_gui_helpers import open_tab

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: shown.append(a[2]))
    open_tab(window, "claude")
    bad = tmp_path / "photo.jpg"
    bad.write_bytes(b"\xff\xd8\xff")
    with qtbot.waitSignal(
        window.runner.job_finished,
        timeout=30000,
        check_params_cb=lambda i, outcome, m: outcome == "failed",
    ) as sig:
        window.imports_ctl.import_files(str(bad))
    assert "not a format Engram can import" in sig.args[2] and shown == [sig.args[2]]


def test_dark_palette_toggle(window, qtbot):
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    before = app.palette()
    try:
        window.act_dark.setChecked(True)
        window.act_dark.trigger()  # trigger toggles: back to light
        window.act_dark.trigger()  # and to dark
        assert window.act_dark.isChecked()
        assert app.palette().color(QPalette.Window).lightness() < 80
        assert app.palette().color(QPalette.WindowText).lightness() > 200
    finally:
        app.setPalette(before)


def test_gc_and_reindex_run_as_jobs(window, seeded, qtbot):
    from tests_gui_helpers import open_tab

    open_tab(window, "claude")
    window.tray.act_gc.trigger()  # a preview first, nothing runs yet
    dlg = window.lifecycle_ctl.gc_dialog
    qtbot.waitUntil(lambda: dlg.plans is not None, timeout=60000)
    assert dlg.cancel_btn.isDefault() and not dlg.run_btn.isDefault()
    with qtbot.waitSignal(window.tray.gc_done, timeout=60000) as sig:
        dlg.run_btn.click()
    assert sig.args[0].startswith("GC done for 1 agent(s): ")
    assert window.tray.last_gc is not None
    seeded.engram.index.drop(seeded.agent_id)  # vectors lost: semantic search finds nothing
    assert seeded.search("relational database", k=3, mode="semantic", touch=False) == []
    with qtbot.waitSignal(
        window.runner.job_finished,
        timeout=60000,
        check_params_cb=lambda i, outcome, m: window.jobs.current is None,
    ):
        window.act_reindex.trigger()
    assert window.statusBar().currentMessage() == f"Re-indexed {seeded.facts.count()} fact(s)"
    hits = seeded.search("relational database", k=3, mode="semantic", touch=False)
    assert hits and hits[0].fact.content.startswith("Prefers PostgreSQL")

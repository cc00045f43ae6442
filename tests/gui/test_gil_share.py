"""Issue 36: the window's stalls at 100k facts were Python's full garbage collections, run in
whichever worker thread allocated while it read or wrote tens of thousands of rows: 100-350
ms each with the GIL held, so the window could not paint (docs/speed.md, gui_scale). While
the window is open a full collection waits until its jobs are quiet; a job here keeps as
many objects alive as a worker reading a 100k store does."""

from __future__ import annotations

import gc

from PySide6.QtTest import QSignalSpy


def test_no_full_collection_while_a_job_runs_one_when_quiet_and_settings_back_at_close(
    window, qtbot
):
    full: list[int] = []

    def seen(phase, info):
        if phase == "stop" and info["generation"] == 2:
            full.append(1)

    def op(progress, cancelled):
        # rows as a worker holds them (a dict and a list each, all alive to the end)
        rows = [{"id": i, "tags": [i]} for i in range(150_000)]
        return len(rows)

    gc.callbacks.append(seen)
    try:
        done = QSignalSpy(window.runner.job_finished)
        before = window.runner.collector.collections
        window.runner.start("Reading every row", op, visible=False)
        qtbot.waitUntil(lambda: done.count() == 1, timeout=120000)
        assert full == [], "no full collection held the GIL while the job ran"
        # the jobs are quiet: the garbage they left is collected then
        qtbot.waitUntil(lambda: window.runner.collector.collections > before, timeout=10000)
        assert full, "a full collection ran once the window's jobs were quiet"
    finally:
        gc.callbacks.remove(seen)
    assert gc.get_threshold()[2] > 10**6
    window.shutdown()
    assert gc.get_threshold()[2] < 10**6, "the process's own GC settings are back"

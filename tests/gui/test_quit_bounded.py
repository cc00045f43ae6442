"""Issue 23: quitting the window is bounded. A read still running when the window closes
(a count or a GC plan over a 100k-fact store takes seconds) is stopped mid-statement instead
of being waited for, and an edit made just before quitting still reaches the disk."""

from __future__ import annotations

import time

from PySide6.QtTest import QSignalSpy
from shiboken6 import isValid
from tests_gui_helpers import open_tab

from models import Fact

# A read SQLite needs tens of seconds for: a stand-in for counting or planning over a store
# much larger than a test can build. Uninterrupted, the close would wait for it.
LONG_READ = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 400000000) "
    "SELECT count(*) FROM c"
)


def test_quit_with_a_long_read_running_returns_at_once_and_keeps_the_edit(
    window, seeded, engram, qtbot
):
    tab = open_tab(window, "claude")
    fid = next(f.id for f in seeded.list() if not f.pinned)
    started = QSignalSpy(window.runner.job_started)
    db = engram.db
    jid = window.runner.start(
        "Counting a big store",
        lambda p, c: db.execute_sql(LONG_READ).fetchone(),
        visible=False,
        interruptible=True,
    )
    reader = window.runner._jobs[jid].worker
    qtbot.waitUntil(lambda: reader.isRunning(), timeout=5000)
    qtbot.wait(300)  # the statement is under way
    tab.select_ids([fid], current=fid)
    window.act_pin.trigger()  # Edit → Pin, then quit at once (the write is in flight)
    assert started.count() >= 2
    t = time.perf_counter()
    window.close()
    took = time.perf_counter() - t
    assert took < 3.0, f"closing the window took {took:.1f} s"
    assert not (isValid(reader) and reader.isRunning()), "the read must have stopped"
    assert Fact.get_by_id(fid).pinned, "the pin made before quitting must be on disk"


def test_quit_while_the_gc_preview_plans_changes_nothing(window, seeded, engram, qtbot):
    before = sorted((f.id, f.status, f.importance) for f in seeded.list(limit=1000))
    window.tray.act_gc.trigger()  # Engram → Run GC: the preview's dry run starts in a worker
    t = time.perf_counter()
    window.close()
    assert time.perf_counter() - t < 3.0
    assert not [w for w in window.runner._threads if isValid(w) and w.isRunning()]
    after = sorted((f.id, f.status, f.importance) for f in seeded.list(limit=1000))
    assert after == before, "a preview stopped by the quit must not change a fact"


def test_edits_queued_behind_a_write_reach_the_disk_when_quitting(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    ids = [f.id for f in seeded.list() if not f.pinned][:3]
    for fid in ids:  # Edit → Pin three times, faster than the writes finish
        tab.select_ids([fid], current=fid)
        window.act_pin.trigger()
    window.close()
    assert [Fact.get_by_id(i).pinned for i in ids] == [True, True, True]

"""The GUI at 100k facts (issue 23): the GC preview (Engram → Run GC until the dialog lists
the plan), the GC run (its button until ``gc_done``), the Archived view after it and its
Restore all (issue 36: each with its longest stall), quitting the window while a background
job runs, Try the demo → the first demo tab, and the fact browser driven from the keyboard:
selecting a row (Down until its details and history show), typing a search a key at a time
(~120 ms apart; results after the last key), 20× PageDown and dragging the scrollbar to the
oldest fact, each with the GUI thread's longest stall (a 5 ms heartbeat timer: a stall is a gap between its ticks less 5 ms). Old (a tree given by ``--old``, e.g. the
previous main from ``git archive``) and new side by side in one run, each in a process of its
own on its own copy of the store, with the load average next to each figure.

    python -m bench.gui_scale [--facts 100000] [--old DIR] [--store DIR]

The store is built once with ``bench/synth.py`` through the bulk path (keyword only: the GC
and quit paths do not touch vectors), then copied for each tree (a GC run changes it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLUG = "bench"


def build(store: Path, n: int) -> None:
    from bench.synth import Generator
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.bulk import bulk_remember
    from services.ingest.pipeline import NewFact

    gen = Generator(11)

    def items():
        for i in range(n):
            s, cat, day = gen.fact(i)
            yield NewFact(
                s, category=cat, event_date=day, source="bench", source_ref=f"s/{i // 50}"
            )

    e = Engram.open(StoreConfig(data_dir=store, semantic=False))
    bulk_remember(e.agent(SLUG, create=True), items())
    e.close()
    age(store / "engram.db")


def age(db: Path) -> None:
    """Make the bulk store look used over time, as a real one at this size is: facts learned
    on their event dates (so decay, TTLs and caps have work), one ``create`` audit event per
    fact (what ``remember`` writes) instead of one bulk range, half of them short-term."""
    import sqlite3

    con = sqlite3.connect(db)
    with con:
        con.execute(
            "UPDATE fact SET created_at = event_date || ' 12:00:00' WHERE event_date IS NOT NULL"
        )
        con.execute(
            "UPDATE fact SET metadata = json_set(coalesce(metadata, '{}'), '$.tier', "
            "'short') WHERE id % 2 = 0"
        )
        con.execute("DELETE FROM audit_event WHERE action = 'bulk-import'")
        con.execute(
            "INSERT INTO audit_event (agent_id, fact_id, action, after, actor, created_at) "
            "SELECT agent_id, id, 'create', json_object('content', content, 'category', "
            "category, 'metadata', json(metadata), 'tags', tags), 'user', created_at FROM fact"
        )
    con.close()


def supersede(db: Path) -> None:
    """For the browser rows: one fact in three replaced by the next one, as a correction
    does, so half the listed facts have a history of two versions (the query that walks it
    is the one that picked the wrong index)."""
    import sqlite3

    con = sqlite3.connect(db)
    with con:
        con.execute(
            "UPDATE fact SET status = 'superseded', superseded_by_id = id + 1 "
            "WHERE id % 3 = 0 AND superseded_by_id IS NULL "
            "AND id + 1 IN (SELECT id FROM fact WHERE status = 'active')"
        )
    con.close()


def fill_vectors(store: Path) -> None:
    """Vectors for every fact, as ``scale.py`` makes them: noisy copies of 300 real
    embeddings (the real model embedding 100k texts would take an hour here), so the
    hybrid search's HNSW query works on a 100k-vector index."""
    # here, not at the top: the old tree's child imports this file with its own bench/
    import numpy as np

    from bench.synth import noisy_vectors
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(StoreConfig(data_dir=store, semantic=True))
    m = e.agent(SLUG)
    sql = "SELECT id FROM fact WHERE agent_id = ? ORDER BY id"
    ids = [i for (i,) in e.db.execute_sql(sql, (m.agent_id,)).fetchall()]
    sql = "SELECT content FROM fact WHERE agent_id = ? ORDER BY random() LIMIT 300"
    base = e.embedder.embed([r[0] for r in e.db.execute_sql(sql, (m.agent_id,)).fetchall()])
    rng = np.random.default_rng(11)
    noisy_vectors(e.index, m.agent_id, ids, base, rng)
    e.close()


def _drop_index(db: Path, name: str) -> None:
    import sqlite3

    con = sqlite3.connect(db)
    with con:
        con.execute(f"DROP INDEX IF EXISTS {name}")
    con.close()


def _load() -> float:
    return round(os.getloadavg()[0], 1)


def _queued_s() -> float:
    """This thread's time spent runnable but waiting for a CPU (Linux schedstat), 0 elsewhere."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class Heartbeat:
    """A timer ticking every ``ms`` on the GUI thread: whatever blocks the thread (a query,
    a repaint waiting on the GIL) shows as a gap between two ticks. Each gap is split into
    the GUI thread's own CPU time, its wait in the kernel's run queue (the machine's load:
    other processes on the cores) and the rest, which is mostly waiting for the GIL."""

    def __init__(self, ms: int = 5):
        from PySide6.QtCore import Qt, QTimer

        self.ms = ms
        self.timer = QTimer()
        self.timer.setTimerType(Qt.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self.gaps: list[float] = []
        self.busy: list[float] = []  # the GUI thread's own CPU time in each gap
        self.queued: list[float] = []  # its run-queue wait in each gap
        self.last = 0.0
        self.last_cpu = 0.0
        self.last_queue = 0.0

    def _tick(self) -> None:
        now, cpu, queue = time.perf_counter(), time.thread_time(), _queued_s()
        self.gaps.append(now - self.last)
        self.busy.append(cpu - self.last_cpu)
        self.queued.append(queue - self.last_queue)
        self.last, self.last_cpu, self.last_queue = now, cpu, queue

    def start(self) -> None:
        self.gaps, self.busy, self.queued = [], [], []
        self.last, self.last_cpu = time.perf_counter(), time.thread_time()
        self.last_queue = _queued_s()
        self.timer.start(self.ms)

    def busy_ms(self) -> float:
        """The most CPU the GUI thread itself spent between two ticks (after ``stop``): the
        part of a stall that is the window's own work, not waiting for the CPU or the GIL on
        a loaded machine."""
        return round(max(self.busy, default=0.0) * 1000, 1)

    def held_ms(self) -> float:
        """The longest stall less the GUI thread's run-queue wait in it: its own work and
        its wait for the GIL, what the process can change (the load cannot be)."""
        held = (g - q for g, q in zip(self.gaps, self.queued, strict=True))
        return round(max(0.0, max(held, default=0.0) * 1000 - self.ms), 1)

    def stop(self) -> tuple[float, float]:
        """(max, p95) stall in ms since ``start``."""
        self._tick()  # a stall still going on when the interaction ended counts too
        self.timer.stop()
        stalls = sorted(max(0.0, g * 1000 - self.ms) for g in self.gaps)
        return round(stalls[-1], 1), round(stalls[int(0.95 * (len(stalls) - 1))], 1)


def _until(cond, timeout_s=900.0, every_ms: int = 2) -> float:
    """Run the event loop (blocking in it, as the app does: a busy processEvents loop
    would take the GIL from the worker) until ``cond()`` holds."""
    from PySide6.QtCore import QEventLoop, QTimer

    t = time.perf_counter()
    loop = QEventLoop()
    timer = QTimer()

    def check():
        if cond() or time.perf_counter() - t > timeout_s:
            loop.quit()

    timer.timeout.connect(check)
    timer.start(every_ms)
    if not cond():
        loop.exec()
    timer.stop()
    return time.perf_counter() - t


def _pause(ms: float) -> None:
    end = time.perf_counter() + ms / 1000
    _until(lambda: time.perf_counter() >= end)


def _shown(tab, row: int) -> bool:
    """The fact at ``row`` is in the editor with its history listed."""
    want = tab.model.id_at(row)
    ed = tab.editor
    return ed.fact is not None and ed.fact.id == want and ed.history.topLevelItemCount() > 0


def ui_select(tab, hb: Heartbeat, n: int = 10) -> dict:
    """Down, ``n`` times ~150 ms apart: ms until the next fact and its history show."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    table = tab.table
    table.setFocus()
    table.selectRow(0)
    _until(lambda: _shown(tab, 0), 60)
    times, stalls, how = [], [], "Down"
    for i in range(1, n + 1):
        _pause(150)
        hb.start()
        t = time.perf_counter()
        QTest.keyClick(table, Qt.Key_Down)
        if table.currentIndex().row() != i:  # a tree whose window shortcut takes Down
            table.setFocus()
            rect = table.visualRect(tab.model.index(i, 0))
            QTest.mouseClick(table.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
            how = "click"
        _until(lambda i=i: _shown(tab, i), 20)
        times.append((time.perf_counter() - t) * 1000)
        _pause(20)
        stalls.append(hb.stop()[0])
    times.sort()
    return {
        "select_ms": round(times[len(times) // 2], 1),
        "select_max_ms": round(times[-1], 1),
        "select_stall_ms": max(stalls),
        "select_by": how,
    }


SEARCHES = ("flaky test retry", "postgres migration")


def ui_search(tab, hb: Heartbeat) -> dict:
    """Each query typed a key at a time ~120 ms apart: ms from the last key until its results
    are shown, and the GUI thread's stalls over the typing and the wait."""
    from PySide6.QtTest import QTest

    sp = tab.search
    after, maxes, p95s = [], [], []
    for text in SEARCHES:
        sp.query.setFocus()
        sp.query.clear()
        _pause(200)
        ready: list[float] = []
        typed = [False]

        def landed(_n, ready=ready, typed=typed):
            # the first results once the last key's debounce has fired: the final query's
            # (an older query's answer is dropped by the panel's generation check)
            if typed[0] and not sp._debounce.isActive():
                ready.append(time.perf_counter())

        sp.results_ready.connect(landed)
        hb.start()
        for j, ch in enumerate(text):
            if j:
                _pause(120)
            QTest.keyClick(sp.query, ch)
        typed[0] = True
        t = time.perf_counter()
        _until(lambda ready=ready: bool(ready), 120)
        after.append(((ready[0] if ready else time.perf_counter()) - t) * 1000)
        _pause(50)
        mx, p95 = hb.stop()
        maxes.append(mx)
        p95s.append(p95)
        sp.results_ready.disconnect(landed)
    sp.query.clear()
    _pause(200)
    return {
        "search_ms": round(max(after), 1),
        "search_stall_ms": max(maxes),
        "search_stall_p95_ms": max(p95s),
    }


def ui_pagedown(tab, hb: Heartbeat, n: int = 20) -> dict:
    """PageDown ``n`` times at a key-repeat pace (30 ms): seconds until the last page's
    current fact is in the editor, and the longest stall."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    table = tab.table
    table.setFocus()
    table.selectRow(0)
    _until(lambda: _shown(tab, 0), 60)
    _pause(200)
    hb.start()
    t = time.perf_counter()
    for _ in range(n):
        QTest.keyClick(table, Qt.Key_PageDown)
        _pause(30)
    _until(lambda: _shown(tab, table.currentIndex().row()), 120)
    total = time.perf_counter() - t
    mx, p95 = hb.stop()
    return {
        "pgdn_s": round(total, 2),
        "pgdn_row": table.currentIndex().row(),
        "pgdn_stall_ms": mx,
        "pgdn_stall_p95_ms": p95,
    }


def _drag(bar, pos: int) -> None:
    # a user's drag: press the thumb, move it, release
    bar.setSliderDown(True)
    bar.setSliderPosition(pos)
    bar.setSliderDown(False)


def ui_drag(tab, hb: Heartbeat) -> dict:
    """The scrollbar dragged to its bottom (the list then reads every id, to the oldest
    fact), then to three places in between: seconds until the oldest fact is listed and
    scrolled to, and the longest stall over all of it (rows painted before they were read)."""
    table, model = tab.table, tab.model
    bar = table.verticalScrollBar()
    total = model.total_count()
    hb.start()
    t = time.perf_counter()
    _drag(bar, bar.maximum())
    _until(lambda: model.rowCount() >= total and bar.value() == bar.maximum(), 60)
    took = time.perf_counter() - t
    if model.rowCount() < total:
        hb.stop()
        raise RuntimeError(f"the drag listed {model.rowCount()} of {total} facts in 60 s")
    for frac in (0.5, 0.25, 0.75):
        _pause(150)
        _drag(bar, int(bar.maximum() * frac))
    _pause(150)
    mx, p95 = hb.stop()
    return {"drag_s": round(took, 2), "drag_rows": model.rowCount(), "drag_stall_ms": mx}


def child_ui(store: Path, vectors: bool = False) -> dict:
    """The fact browser over ``store`` driven from the keyboard; a row the tree cannot drive
    (its widgets differ) is left out and printed as "–". ``vectors``: the store has them;
    the model loads in a worker as in the app, and the search is hybrid."""
    from PySide6.QtWidgets import QApplication

    from services.config import StoreConfig
    from services.engram import Engram
    from ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    app.setQuitOnLastWindowClosed(False)
    e = Engram.open(StoreConfig(data_dir=store, semantic=False))
    win = MainWindow(e, use_tray=False, load_semantic=vectors)
    win.resize(1400, 900)
    win.show()
    tab = win.agent_tabs[SLUG]
    win.tabs.setCurrentWidget(tab)
    win.activateWindow()  # keys reach the focused table only in the active window
    _until(lambda: win.isActiveWindow(), 5)
    _until(lambda: not win.runner.is_busy(), 120)
    out: dict = {"search_mode": tab.search.mode if e.semantic_enabled else "keyword"}
    hb = Heartbeat()
    rows = (
        ("select", ui_select),
        ("search", ui_search),
        ("pgdn", ui_pagedown),
        ("drag", ui_drag),
    )
    for key, fn in rows:
        out[key + "_load"] = _load()
        try:
            out.update(fn(tab, hb))
        except Exception as exc:  # an older tree without the widget: "–", not a failure
            out[key + "_error"] = f"{type(exc).__name__}: {exc}"
        _until(lambda: not win.runner.is_busy(), 60)
    return out


def child(store: Path, demo: bool) -> dict:
    """In the tree on PYTHONPATH: the window over ``store``, driven as a user would."""
    from PySide6.QtWidgets import QApplication

    from services.config import StoreConfig
    from services.engram import Engram
    from ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    app.setQuitOnLastWindowClosed(False)  # the quit row closes the window itself

    def until(cond, timeout_s=900.0) -> float:
        return _until(cond, timeout_s, every_ms=10)

    out: dict = {}
    e = Engram.open(StoreConfig(data_dir=store, semantic=False))
    if hasattr(e, "follow_changes"):  # as app/main.py (older trees had no such step)
        e.follow_changes("debounce")  # memory.md follows the window's edits
    # the demo as the app runs it: the store opened without the model, loaded in a worker
    win = MainWindow(e, use_tray=False, load_semantic=demo)
    win.show()
    until(lambda: not win.runner.is_busy(), 120)
    if demo:
        out["demo_load"] = _load()
        t = time.perf_counter()
        win.startup_ctl.seed_demo()
        until(lambda: any(s.startswith("demo-") for s in win.agent_tabs), 600)
        out["demo_s"] = round(time.perf_counter() - t, 2)
    else:
        out["preview_load"] = _load()
        hb = Heartbeat()
        hb.start()
        t = time.perf_counter()
        win.tray.act_gc.trigger()
        dlg = win.lifecycle_ctl.gc_dialog
        until(lambda: dlg.plans is not None)
        out["preview_s"] = round(time.perf_counter() - t, 2)
        _pause(300)  # the listed plan painted
        out["preview_stall_ms"] = hb.stop()[0]
        out["preview_busy_ms"] = hb.busy_ms()
        out["preview_held_ms"] = hb.held_ms()
        out["archived"] = sum(
            1 for r, _c in dlg.plans.values() for a in r.actions if a.kind in ("expire", "evict")
        )
        done: list = []
        win.tray.gc_done.connect(done.append)
        out["run_load"] = _load()
        t = time.perf_counter()
        dlg.run_btn.click()
        until(lambda: bool(done))
        out["run_s"] = round(time.perf_counter() - t, 2)
        out["run_said"] = done[0] if done else "no answer"
        until(lambda: not win.runner.is_busy(), 120)
        out.update(archived_rows(win, hb))
        # quit right after Restore all (its reloads still running), with the preview
        # started again (a read over the whole store): memory.md's recompile for the
        # restored facts is due
        win.tray.act_gc.trigger()
        until(lambda: bool(win.runner.running()), 10)
        out["quit_load"] = _load()
        t = time.perf_counter()
        win._quitting = True
        win.close()
        out["quit_s"] = round(time.perf_counter() - t, 2)  # the window is gone
        # then, with no window, the store closes as app/main.py closes it
        try:
            e.close(quick=True)  # a long recompile owed to the next start
        except TypeError:  # an older tree: memory.md recompiled before the process ends
            e.close()
        out["quit_store_s"] = round(time.perf_counter() - t, 2)
        out["quit_owed"] = (store / "compile-owed.json").exists()
    return out


def archived_rows(win, hb: Heartbeat) -> dict:
    """After the GC: the agent's Archived view opened (count, runs and first page listed),
    scrolled to the end of what it lists, then Restore all (answered Yes) until every fact
    is back, each with the GUI thread's longest stall; the row checks the restored count."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    tab = win.agent_tabs[SLUG]
    win.tabs.setCurrentWidget(tab)
    _pause(200)
    out: dict = {"archived_load": _load()}
    view = tab.archived
    if not hasattr(view, "is_loading"):  # an older tree: the view loads on the GUI thread
        view.is_loading = lambda: False
    hb.start()
    t = time.perf_counter()
    tab.show_view("Archived")
    _until(lambda: not view.is_loading() and view.total > 0, 300)
    out["archived_s"] = round(time.perf_counter() - t, 2)
    view.table.setFocus()
    QTest.keyClick(view.table, Qt.Key_End, Qt.ControlModifier)
    _pause(500)
    _until(lambda: not view.is_loading(), 60)
    out["archived_stall_ms"] = hb.stop()[0]
    out["archived_busy_ms"] = hb.busy_ms()
    out["archived_held_ms"] = hb.held_ms()
    out["archived_total"] = view.total
    view._ask = lambda _text: True  # the confirmation, answered Yes
    got: list = []
    view.restored.connect(got.append)
    out["restore_load"] = _load()
    hb.start()
    t = time.perf_counter()
    view.all_btn.click()
    _until(lambda: bool(got), 900)
    out["restore_s"] = round(time.perf_counter() - t, 2)
    _pause(300)
    out["restore_stall_ms"] = hb.stop()[0]
    out["restore_busy_ms"] = hb.busy_ms()
    out["restore_held_ms"] = hb.held_ms()
    out["restored"] = len(got[0]) if got else 0
    if out["restored"] != out["archived_total"]:
        out["restore_error"] = f"restored {out['restored']} of {out['archived_total']}"
    return out


def _run_child(
    root: Path, store: Path, demo: bool, ui: bool = False, vectors: bool = False
) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root), QT_QPA_PLATFORM="offscreen")
    env["ANONYMIZED_TELEMETRY"] = "False"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(store)]
    if demo:
        cmd.append("--demo")
    if ui:
        cmd.append("--ui")
    if vectors:
        cmd.append("--vectors")
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=1800)
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1]}


def run(
    facts: int,
    old: Path | None,
    store: Path | None,
    work: Path,
    parts: frozenset = frozenset({"ui", "gc", "demo"}),
    vectors: bool = False,
    rounds: int = 1,
) -> dict:
    base = store or work / f"s{facts}"
    if not (base / "engram.db").exists():
        build(base, facts)
    ui_base = base
    if vectors and "ui" in parts:  # once: the vectors are copied with the store
        ui_base = work / f"s{facts}-vectors"
        if not (ui_base / "engram.db").exists():
            shutil.rmtree(ui_base, ignore_errors=True)
            shutil.copytree(base, ui_base)
            t = time.perf_counter()
            fill_vectors(ui_base)
            print(f"vectors filled in {time.perf_counter() - t:.0f} s", flush=True)
    res: dict = {}
    rounds_of: dict[str, list[dict]] = {"old": [], "new": []}
    trees = [(n, r) for n, r in (("old", old), ("new", ROOT)) if r is not None]
    # old and new interleaved, round after round: a load change hits both alike
    for round_no in range(rounds):
        for name, root in trees if round_no % 2 == 0 else trees[::-1]:
            res = {name: {}}
            _one_tree(res, name, root, base, ui_base, work, parts, vectors)
            rounds_of[name].append(res[name])
    res = {name: _median(rs) for name, rs in rounds_of.items() if rs}
    if rounds > 1:
        res["rounds"] = rounds
    _finish(res, facts, parts, vectors)
    return res


def _median(rounds: list[dict]) -> dict:
    """Each figure's median over the rounds; text and error entries from the last round."""
    out = dict(rounds[-1])
    for k in out:
        vals = [r[k] for r in rounds if isinstance(r.get(k), (int, float))]
        if vals and len(vals) == len(rounds) and not isinstance(out[k], bool):
            vals.sort()
            mid = len(vals) // 2
            out[k] = vals[mid] if len(vals) % 2 else round((vals[mid - 1] + vals[mid]) / 2, 2)
    return out


def _one_tree(res, name, root, base, ui_base, work, parts, vectors) -> None:
    """One tree's children on fresh copies of the store; its figures into ``res[name]``."""
    copy = work / f"copy-{name}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(base, copy)
    res[name] = {}
    if "ui" in parts:  # on a copy of its own: the GC rows keep their store
        ui_copy = work / f"ui-{name}"
        shutil.rmtree(ui_copy, ignore_errors=True)
        shutil.copytree(ui_base, ui_copy)
        supersede(ui_copy / "engram.db")
        schema = root / "models" / "schema.py"
        if "fact_agent_superseded" not in schema.read_text(encoding="utf-8"):
            # the store as that tree leaves it: without migration 9's history index
            _drop_index(ui_copy / "engram.db", "fact_agent_superseded")
        res[name].update(_run_child(root, ui_copy, demo=False, ui=True, vectors=vectors))
    if "gc" in parts:
        res[name].update(_run_child(root, copy, demo=False))
    if "demo" in parts:
        demo_dir = work / f"demo-{name}"
        shutil.rmtree(demo_dir, ignore_errors=True)
        res[name].update(_run_child(root, demo_dir, demo=True))
    print(name, json.dumps(res[name]), flush=True)


def _finish(res: dict, facts: int, parts: frozenset, vectors: bool) -> None:
    table(res)
    out = ROOT / "bench" / "results" / "gui_scale.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    head = {"facts": facts, "parts": sorted(parts), "vectors": vectors}
    out.write_text(json.dumps({**head, **res}, indent=2) + "\n")
    print(f"written {out}")


def _cell(d: dict, key: str, load: str) -> str:
    if key not in d:
        return "–"
    v = d[key]
    return (
        f"{v:.2f} ({d.get(load + '_load', '?')})"
        if key.endswith("_s")
        else f"{v:g} ({d.get(load + '_load', '?')})"
    )


ROWS = [  # label, key, the load recorded for it
    ("GC preview s", "preview_s", "preview"),
    ("GC preview: stall ms", "preview_stall_ms", "preview"),
    ("GC preview: GUI ms", "preview_busy_ms", "preview"),
    ("GC preview: held ms", "preview_held_ms", "preview"),
    ("GC run s", "run_s", "run"),
    ("Archived listed s", "archived_s", "archived"),
    ("Archived: stall ms", "archived_stall_ms", "archived"),
    ("Archived: GUI ms", "archived_busy_ms", "archived"),
    ("Archived: held ms", "archived_held_ms", "archived"),
    ("Restore all s", "restore_s", "restore"),
    ("Restore all: stall ms", "restore_stall_ms", "restore"),
    ("Restore all: GUI ms", "restore_busy_ms", "restore"),
    ("Restore all: held ms", "restore_held_ms", "restore"),
    ("quit s", "quit_s", "quit"),
    ("quit: store closed s", "quit_store_s", "quit"),
    ("demo tab s", "demo_s", "demo"),
    ("select row ms (p50)", "select_ms", "select"),
    ("select row ms (max)", "select_max_ms", "select"),
    ("select: stall ms", "select_stall_ms", "select"),
    ("search: results ms", "search_ms", "search"),
    ("search: stall max ms", "search_stall_ms", "search"),
    ("search: stall p95 ms", "search_stall_p95_ms", "search"),
    ("20× PageDown s", "pgdn_s", "pgdn"),
    ("PageDown: stall ms", "pgdn_stall_ms", "pgdn"),
    ("drag to oldest s", "drag_s", "drag"),
    ("drag: stall ms", "drag_stall_ms", "drag"),
]


def table(res: dict) -> None:
    o, n = res.get("old", {}), res.get("new", {})
    print(f"{'figure':<22} {'old (load)':>16} {'new (load)':>16} {'old/new':>8}")
    for label, k, load in ROWS:
        if k not in o and k not in n:
            continue
        ratio = f"{o[k] / max(n[k], 0.01):.1f}×" if k in o and k in n else ""
        print(f"{label:<22} {_cell(o, k, load):>16} {_cell(n, k, load):>16} {ratio:>8}")
    for name, d in (("old", o), ("new", n)):
        for k, v in d.items():
            if k.endswith("_error"):
                print(f"{name}: {k[:-6]} could not be driven: {v}")
    for name, d in (("old", o), ("new", n)):
        if "quit_store_s" in d:
            owed = " (its recompile owed to the next start)" if d.get("quit_owed") else ""
            print(f"{name}: quit until the store closed {d['quit_store_s']} s{owed}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--old", type=Path)
    ap.add_argument("--store", type=Path)
    ap.add_argument("--work", type=Path, default=Path("/tmp/engram-gui-scale"))
    ap.add_argument("--child", type=Path)
    ap.add_argument("--demo", action="store_true")
    ap.add_argument("--ui", action="store_true")
    ap.add_argument(
        "--vectors",
        action="store_true",
        help="browser rows with a vector per fact and the model loaded (hybrid search)",
    )
    ap.add_argument("--rounds", type=int, default=1, help="old/new interleaved, medians")
    ap.add_argument(
        "--parts", default="ui,gc,demo", help="which rows: ui (select/search/PageDown), gc, demo"
    )
    a = ap.parse_args(argv)
    if a.child:
        res = child_ui(a.child, a.vectors) if a.ui else child(a.child, a.demo)
        print(json.dumps(res), flush=True)
        os._exit(0)  # the window is gone; do not wait for Qt's teardown
    a.work.mkdir(parents=True, exist_ok=True)
    run(a.facts, a.old, a.store, a.work, frozenset(a.parts.split(",")), a.vectors, a.rounds)


if __name__ == "__main__":
    main()

"""The GUI at 100k facts (issue 23): the GC preview (Engram → Run GC until the dialog lists
the plan), the GC run (its button until ``gc_done``), quitting the window while a background
job runs, and Try the demo → the first demo tab. Old (a tree given by ``--old``, e.g. the
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


def _load() -> float:
    return round(os.getloadavg()[0], 1)


def child(store: Path, demo: bool) -> dict:
    """In the tree on PYTHONPATH: the window over ``store``, driven as a user would."""
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from services.config import StoreConfig
    from services.engram import Engram
    from ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    app.setQuitOnLastWindowClosed(False)  # the quit row closes the window itself

    def until(cond, timeout_s=900.0) -> float:
        """Run the event loop (blocking in it, as the app does: a busy processEvents loop
        would take the GIL from the worker) until ``cond()`` holds."""
        t = time.perf_counter()
        loop = QEventLoop()
        timer = QTimer()

        def check():
            if cond() or time.perf_counter() - t > timeout_s:
                loop.quit()

        timer.timeout.connect(check)
        timer.start(10)
        if not cond():
            loop.exec()
        timer.stop()
        return time.perf_counter() - t

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
        win.seed_demo()
        until(lambda: any(s.startswith("demo-") for s in win.agent_tabs), 600)
        out["demo_s"] = round(time.perf_counter() - t, 2)
    else:
        out["preview_load"] = _load()
        t = time.perf_counter()
        win.tray.act_gc.trigger()
        dlg = win.gc_dialog
        until(lambda: dlg.plans is not None)
        out["preview_s"] = round(time.perf_counter() - t, 2)
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
        # quit with a job running: the preview again (a read over the whole store)
        until(lambda: not win.runner.is_busy(), 120)
        win.tray.act_gc.trigger()
        until(lambda: bool(win.runner.running()), 10)
        out["quit_load"] = _load()
        t = time.perf_counter()
        win._quitting = True
        win.close()
        out["quit_s"] = round(time.perf_counter() - t, 2)  # the window is gone
        # then, with no window, the store closes: memory.md catches up with the GC's changes
        e.close()
        out["quit_store_s"] = round(time.perf_counter() - t, 2)
    return out


def _run_child(root: Path, store: Path, demo: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root), QT_QPA_PLATFORM="offscreen")
    env["ANONYMIZED_TELEMETRY"] = "False"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(store)]
    if demo:
        cmd.append("--demo")
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=1800)
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1]}


def run(facts: int, old: Path | None, store: Path | None, work: Path) -> dict:
    base = store or work / f"s{facts}"
    if not (base / "engram.db").exists():
        build(base, facts)
    res: dict = {}
    for name, root in (("old", old), ("new", ROOT)):
        if root is None:
            continue
        copy = work / f"copy-{name}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(base, copy)
        res[name] = _run_child(root, copy, demo=False)
        demo_dir = work / f"demo-{name}"
        shutil.rmtree(demo_dir, ignore_errors=True)
        res[name].update(_run_child(root, demo_dir, demo=True))
        print(name, json.dumps(res[name]), flush=True)
    table(res)
    return res


def _cell(d: dict, key: str) -> str:
    return f"{d[key + '_s']:.2f} ({d[key + '_load']})" if key + "_s" in d else "–"


def table(res: dict) -> None:
    rows = [("GC preview", "preview"), ("GC run", "run"), ("quit", "quit"), ("demo tab", "demo")]
    o, n = res.get("old", {}), res.get("new", {})
    print(f"{'figure':<12} {'old s (load)':>16} {'new s (load)':>16} {'old/new':>8}")
    for label, key in rows:
        k = key + "_s"
        ratio = f"{o[k] / max(n[k], 0.01):.1f}×" if k in o and k in n else ""
        print(f"{label:<12} {_cell(o, key):>16} {_cell(n, key):>16} {ratio:>8}")
    for name, d in (("old", o), ("new", n)):
        if "quit_store_s" in d:
            print(f"{name}: quit until the store closed (memory.md compiled) {d['quit_store_s']} s")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--old", type=Path)
    ap.add_argument("--store", type=Path)
    ap.add_argument("--work", type=Path, default=Path("/tmp/engram-gui-scale"))
    ap.add_argument("--child", type=Path)
    ap.add_argument("--demo", action="store_true")
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.child, a.demo)), flush=True)
        os._exit(0)  # the window is gone; do not wait for Qt's teardown
    a.work.mkdir(parents=True, exist_ok=True)
    run(a.facts, a.old, a.store, a.work)


if __name__ == "__main__":
    main()

"""Writes and forget, old against new (issue #33, the write half): ``python -m bench.speed_write
[--quick] [--old DIR]``. ``bench/speed.py`` calls the row functions; each returns rows
``(name, old figure, new figure, result check)`` and takes old and new in rounds, one after
the other, so load drifts onto both sides alike (the load average is printed in each figure).

- ``import_rows``: `engram import` of a folder of rule files (10 rules a file), the command's
  wall and CPU, facts/s; checked: every fact stored and a keyword recall right after the
  command finds a rule; for new, the vector backlog then drains (`verify` passes).
- ``forget_deleted_rows``: forgetting a fact deleted long ago (no row, no history event left):
  checked: raw bytes of its text left in the data dir after the forget (old: Chroma's log).
- ``hook_rows``: the UserPromptSubmit hook, p50/p95 wall: old in-process, new answered by
  `engram serve`, new in-process (``ENGRAM_NO_DAEMON``); checked: the daemon and the
  in-process hook print the same bytes for every prompt.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import speed_daemon
from bench.speed import ROOT, ensure_old, env_for, load, timed
from bench.speed import cli as _cmd

Row = tuple[str, str, str, str]
# "old" for these rows: main before this work (the import of rule files did not exist at
# bench.speed's older main); `git archive` into a temp dir, as bench.speed does
BASE = "3e4adf9"
BASE_DIR = Path(tempfile.gettempdir()) / "engram-old-write"


def ensure_base(path: Path = BASE_DIR) -> Path:
    return ensure_old(BASE, path)


# the import's store step alone, in a child on ``root`` (no interpreter start, no compile):
# how the CLI runs it there (old: with the model; new: without it for a large import)
STORE_STEP = """
import sys, time
from pathlib import Path
from services.config import StoreConfig
from services.engram import Engram
from services.interop.importers.service import import_into, parse_source
data, proj = Path(sys.argv[1]), Path(sys.argv[2])
parsed = parse_source(proj)
try:
    from services.ingest.bulk import BULK_IMPORT_MIN
    semantic = len(parsed.facts) < BULK_IMPORT_MIN
except ImportError:
    semantic = True
with Engram.open(StoreConfig(data_dir=data, semantic=semantic)) as e:
    m = e.agent("rules", create=True)
    t = time.perf_counter()
    rep = import_into(m, proj)
    print(rep.added, round(time.perf_counter() - t, 3))
"""


def _store_step(root: Path, work: Path, proj: Path) -> tuple[int, float]:
    data = work / f"step-{root.name}-{time.time_ns()}"
    p = subprocess.run(
        [sys.executable, "-c", STORE_STEP, str(data), str(proj)],
        capture_output=True,
        text=True,
        env=env_for(root, ENGRAM_NO_DAEMON="1"),
        cwd=root,
        timeout=3600,
    )
    shutil.rmtree(data, ignore_errors=True)
    added, secs = p.stdout.strip().splitlines()[-1].split()
    return int(added), float(secs)


def _timed(cmd: list[str], env: dict, cwd: Path, stdin: str = "") -> tuple[float, float, str]:
    """(wall s, CPU s of the child, its stdout and stderr) of one command."""
    wall, cpu, p = timed(cmd, env, stdin, cwd, timeout=1800)
    return wall, cpu, p.stdout + p.stderr


def rule_folder(root: Path, files: int) -> tuple[int, str]:
    """``files`` rule files of 10 distinct rules; (facts, one rule's unique words)."""
    from bench.synth import Generator

    d = root / ".clinerules"
    d.mkdir(parents=True, exist_ok=True)
    gen = Generator(3)
    k = 0
    for f in range(files):
        lines = [f"# Rules {f}", ""]
        for _ in range(10):
            lines.append("- " + (f"Vendor the Quillbrook{f} parser" if k == 7 else gen.fact(k)[0]))
            k += 1
        (d / f"r{f:03d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return k, "Quillbrook0 parser"


def _import_once(root: Path, work: Path, proj: Path, facts: int, needle: str) -> dict:
    data = work / f"imp-{root.name}-{time.time_ns()}"
    env = env_for(root, ENGRAM_INIT="1")
    # the store step first: the command leaves a child embedding behind it
    added, step_s = _store_step(root, work, proj)
    wall, cpu, out = _timed(_cmd(root, data, "import", "--agent", "rules", str(proj)), env, root)
    _, _, found = _timed(
        _cmd(root, data, "recall", "--agent", "rules", "--mode", "keyword", needle, "--json"),
        env_for(root, ENGRAM_NO_DAEMON="1"),
        root,
    )
    try:
        hit = any(needle in h["content"] for h in json.loads(found))
    except ValueError:
        hit = False
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "facts_per_s": round(facts / wall),
        "store_per_s": round(added / step_s),
        "stored": f"added {added}," in out,
        "searchable": hit,
        "data": data,
        "load": load(),
    }


def _drained(data: Path, timeout: float = 900) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(p.name.startswith(("vector-backlog", "link-backlog")) for p in data.iterdir()):
            return True
        time.sleep(2)
    return False


def import_rows(old: Path, new: Path, work: Path, files: int, rounds: int) -> list[Row]:
    proj = work / "rules-proj"
    facts, needle = rule_folder(proj, files)
    got: dict[str, list[dict]] = {"old": [], "new": []}
    for _ in range(rounds):
        for side, root in (("old", old), ("new", new)):
            got[side].append(_import_once(root, work, proj, facts, needle))
    last = got["new"][-1]
    t = time.perf_counter()
    drained = _drained(last["data"])
    behind = round(time.perf_counter() - t)
    ok = (
        drained
        and _timed(_cmd(new, last["data"], "verify"), env_for(new), new)[2].find("inconsistenc") < 0
    )

    def fig(side: str, key: str, unit: str) -> str:
        runs = got[side]
        v = statistics.median(r[key] for r in runs)
        return f"{v} {unit} (load {runs[-1]['load']})"

    check = (
        f"stored all: old {all(r['stored'] for r in got['old'])}, new "
        f"{all(r['stored'] for r in got['new'])}; keyword recall right after: old "
        f"{all(r['searchable'] for r in got['old'])}, new "
        f"{all(r['searchable'] for r in got['new'])}; new's backlog drained "
        f"{drained} ({behind} s more), verify ok {ok}"
    )
    for side in got:
        for r in got[side]:
            shutil.rmtree(r.pop("data"), ignore_errors=True)
    name = f"`engram import` {files} rule files ({facts:,} facts)"
    return [
        (f"{name}: store step facts/s (in-process)", fig("old", "store_per_s", "/s"), fig("new", "store_per_s", "/s"), check),
        (f"{name}: facts/s (command wall)", fig("old", "facts_per_s", "/s"), fig("new", "facts_per_s", "/s"), check),
        (f"{name}: wall", fig("old", "wall_s", "s"), fig("new", "wall_s", "s"), check),
        (f"{name}: CPU", fig("old", "cpu_s", "s"), fig("new", "cpu_s", "s"), check),
    ]  # fmt: skip


# forget 1 % of a store with vectors (bench/speed_child.py builds it: noisy copies of real
# embeddings), then what is left: the forgotten facts' vectors anywhere in Chroma's files,
# and a kept fact's vector still found by its own query
FORGET_STEP = """
import json, resource, sys, time
from pathlib import Path
import numpy as np
def cpu():  # this process's threads (Chroma's included) and its scan children
    return sum(r.ru_utime + r.ru_stime for r in (
        resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))
from services.config import StoreConfig
from services.engram import Engram
from services.forget.service import ForgetScope, ForgetService
from services.forget.raw_scan import vector_hits
data = Path(sys.argv[1])
with Engram.open(StoreConfig(data_dir=data, semantic=True)) as e:
    m = e.agent("speed")
    n = max(1, m.facts.count() // 100)
    ids = [i for (i,) in e.db.execute_sql(
        "SELECT id FROM fact WHERE agent_id = ? ORDER BY id LIMIT ? OFFSET 7", (m.agent_id, n))]
    gone = e.index.vectors(m.agent_id, ids)
    kept = max(ids) + 5
    kv = e.index.vectors(m.agent_id, [kept])[kept]
    t, c = time.perf_counter(), cpu()
    ForgetService(e).execute(ForgetScope(agent="speed", fact_ids=tuple(ids), rule=False))
    secs, cpus = time.perf_counter() - t, cpu() - c
    top = [i for i, _ in e.index.query(m.agent_id, kv, k=5)]
    chroma = Path(e.config.vector_location)
left = len({k for *_, k in vector_hits(chroma, np.stack(list(gone.values())))})
print(json.dumps({"s": round(secs, 2), "cpu": round(cpus, 2), "forgot": len(ids), "left": left, "kept": kept in top}))
"""


def _forget_once(root: Path, data: Path) -> dict:
    p = subprocess.run(
        [sys.executable, "-c", FORGET_STEP, str(data)],
        capture_output=True,
        text=True,
        env=env_for(root, ENGRAM_NO_DAEMON="1"),
        cwd=root,
        timeout=3600,
    )
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"s": "failed", "error": p.stderr.strip()[-300:], "load": load()}
    return json.loads(lines[-1]) | {"load": load()}


def forget_rows(
    old: Path, new: Path, work: Path, size: int, rounds: int, built: Path | None = None
) -> list[Row]:
    """``built``: a store ``bench/speed_child.py build`` made before (a 100k store takes
    minutes to build), copied for each run and left as it was."""
    from bench.speed import child

    given = built is not None
    if built is None:
        built = work / f"forget-{size}"
        child(old, "build", built, size, 1)
    got: dict[str, list[dict]] = {"old": [], "new": []}
    for r in range(rounds):
        for side, root in (("old", old), ("new", new)):
            copy = work / f"forget-{side}-{r}"
            shutil.copytree(built, copy)
            got[side].append(_forget_once(root, copy))
            shutil.rmtree(copy, ignore_errors=True)
    if not given:
        shutil.rmtree(built, ignore_errors=True)

    def fig(side: str) -> str:
        runs = got[side]
        ok = [x for x in runs if isinstance(x.get("s"), float)]
        if not ok:
            return f"failed (load {runs[-1]['load']})"
        wall = round(statistics.median(x["s"] for x in ok), 2)
        cpu = round(statistics.median(x.get("cpu", 0.0) for x in ok), 2)
        return f"{wall} s / CPU {cpu} s (load {runs[-1]['load']})"

    check = "; ".join(
        f"{side}: forgot {x.get('forgot')}, their vectors left in Chroma's files {x.get('left')}, "
        f"a kept fact found by its own vector {x.get('kept')}"
        for side in got
        for x in got[side][-1:]
    )
    return [(f"forget 1 % @{size:,} with vectors", fig("old"), fig("new"), check)]


PET = "My secret pet is named Quetzalcoatlus Borogove"


def _forget_deleted_once(root: Path, work: Path) -> dict:
    data = work / f"fd-{root.name}-{time.time_ns()}"
    env = env_for(root, ENGRAM_INIT="1", ENGRAM_NO_DAEMON="1")
    for words in (
        ["remember", "--agent", "a", "--create-agent", "Prefers pnpm over npm"],
        ["remember", "--agent", "a", PET],
    ):
        _timed(_cmd(root, data, *words), env, root)
    out = _timed(_cmd(root, data, "list", "--agent", "a", "--json"), env, root)[2]
    fid = max(f["id"] for f in json.loads(out[out.index("[") :]))
    _timed(_cmd(root, data, "delete", str(fid), "--yes"), env, root)
    con = sqlite3.connect(data / "engram.db")
    with con:  # long ago: no history event names it any more
        con.execute("DELETE FROM audit_event WHERE fact_id = ?", (fid,))
    con.close()
    forget = ["forget", "--agent", "a", "--matching", "Borogove", "--yes"]
    wall, cpu, _ = _timed(_cmd(root, data, *forget), env, root)
    left = [
        str(p.relative_to(data))
        for p in data.rglob("*")
        if p.is_file() and b"borogove" in p.read_bytes().lower()
    ]
    shutil.rmtree(data, ignore_errors=True)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "left": left, "load": load()}


def forget_deleted_rows(old: Path, new: Path, work: Path, rounds: int) -> list[Row]:
    got: dict[str, list[dict]] = {"old": [], "new": []}
    for _ in range(rounds):
        for side, root in (("old", old), ("new", new)):
            got[side].append(_forget_deleted_once(root, work))
    o, n = got["old"][-1], got["new"][-1]
    check = f"files still holding the text: old {o['left'] or 'none'}, new {n['left'] or 'none'}"
    med = {s: statistics.median(r["wall_s"] for r in got[s]) for s in got}
    return [
        (
            "forget of a fact deleted long ago (no history left)",
            f"{med['old']} s (load {o['load']})",
            f"{med['new']} s (load {n['load']})",
            check,
        )
    ]


PROMPTS = [
    "how do we deploy the release on friday?",
    "which colour scheme do I like for code editors?",
    "who reviews the billing changes?",
    "what database runs in staging?",
]


def _hook_store(root: Path, data: Path) -> None:
    from bench.synth import Generator

    env = env_for(root, ENGRAM_INIT="1", ENGRAM_NO_DAEMON="1")
    gen = Generator(9)
    lines = ["# Facts", ""] + [f"- {gen.fact(i)[0]}" for i in range(300)]
    lines += [
        "- I prefer dark mode in every editor",
        "- Sam reviews every pull request that touches billing",
        "- The staging database runs PostgreSQL 16 on a Hetzner box",
        "- Deploys go out on Thursdays after the standup",
    ]
    src = data.parent / f"{data.name}-facts" / "AGENTS.md"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _timed(_cmd(root, data, "import", "--agent", "speed", str(src)), env, root)


def _hook(root: Path, data: Path, prompt: str, daemon: bool) -> tuple[float, str]:
    env = env_for(root) if daemon else env_for(root, ENGRAM_NO_DAEMON="1")
    words = ["hook-run", "claude-code-context", "--agent", "speed"]
    wall, _, out = _timed(_cmd(root, data, *words), env, root, json.dumps({"prompt": prompt}))
    return wall, out


def hook_rows(old: Path, new: Path, work: Path, reps: int) -> list[Row]:

    # built by old (new migrates a store forward; old refuses one new has written): old
    # runs on its own copy
    data, old_data, twin = work / "hook", work / "hook-old", work / "hook-twin"
    _hook_store(old, data)
    shutil.copytree(data, old_data)
    # each hook counts as a use of the facts it injects (a write): the in-process side runs
    # on its own copy, through the same prompts, so both sides answer from the same state
    shutil.copytree(data, twin)
    times: dict[str, list[float]] = {"old": [], "daemon": [], "alone": []}
    same = 0
    with speed_daemon.serving(new, data):
        for i in range(reps):
            prompt = PROMPTS[i % len(PROMPTS)]
            times["old"].append(_hook(old, old_data, prompt, daemon=False)[0])
            w, by_daemon = _hook(new, data, prompt, daemon=True)
            times["daemon"].append(w)
            w, alone = _hook(new, twin, prompt, daemon=False)
            times["alone"].append(w)
            same += by_daemon == alone and "<engram-memory" in by_daemon
    check = f"daemon and in-process context byte-identical for {same}/{reps} prompts"
    lo = f"(load {load()})"
    return [
        ("UserPromptSubmit hook, new behind `engram serve`", f"{speed_daemon.pcts(times['old'])} {lo}", f"{speed_daemon.pcts(times['daemon'])} {lo}", check),
        ("UserPromptSubmit hook, new in-process (no daemon)", f"{speed_daemon.pcts(times['old'])} {lo}", f"{speed_daemon.pcts(times['alone'])} {lo}", check),
    ]  # fmt: skip


def run(quick: bool = True, old_dir: Path | None = None) -> list[Row]:
    old = ensure_base(old_dir) if old_dir else ensure_base()
    work = Path(tempfile.mkdtemp(prefix="engram-speed-write-"))
    rows: list[Row] = []
    try:
        files, rounds = (100, 1) if quick else (400, 2)
        for part in (
            lambda: import_rows(old, ROOT, work, files, rounds),
            lambda: forget_rows(old, ROOT, work, 10_000, rounds + 1),
            lambda: forget_deleted_rows(old, ROOT, work, 1 if quick else 3),
            lambda: hook_rows(old, ROOT, work, 8 if quick else 20),
            lambda: speed_daemon.autostart_rows(old, ROOT, work, 8 if quick else 20),
            lambda: speed_daemon.mcp_rows(ROOT, work, 3 if quick else 5),
        ):
            for row in part():
                rows.append(row)
                print("| " + " | ".join(row) + " |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


if __name__ == "__main__":
    import argparse

    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    ap = argparse.ArgumentParser(prog="python -m bench.speed_write")
    ap.add_argument("--quick", action="store_true", help="1,000 facts, fewer rounds")
    ap.add_argument("--old", help=f"the old tree (default: main at {BASE}, git archive)")
    parts = ("import", "forget", "deleted", "hook", "autostart", "mcp")
    ap.add_argument("--only", choices=parts, help="one part")
    ap.add_argument("--files", type=int, help="--only import: rule files (10 facts each)")
    ap.add_argument("--rounds", type=int, help="--only import/forget: rounds")
    ap.add_argument("--size", type=int, default=10_000, help="--only forget: facts in the store")
    ap.add_argument("--built", help="--only forget: a store speed_child.py built (reused)")
    a = ap.parse_args()
    print("| figure | old | new | result check |\n|---|---|---|---|", flush=True)
    if a.only:
        o = ensure_base(Path(a.old)) if a.old else ensure_base()
        w = Path(tempfile.mkdtemp(prefix="engram-speed-write-"))
        f, r = (100, 1) if a.quick else (400, 2)
        f, r = a.files or f, a.rounds or r
        fn = {
            "import": lambda: import_rows(o, ROOT, w, f, r),
            "forget": lambda: forget_rows(
                o, ROOT, w, a.size, a.rounds or 2, Path(a.built) if a.built else None
            ),
            "deleted": lambda: forget_deleted_rows(o, ROOT, w, 1),
            "hook": lambda: hook_rows(o, ROOT, w, 8 if a.quick else 20),
            "autostart": lambda: speed_daemon.autostart_rows(o, ROOT, w, 8 if a.quick else 20),
            "mcp": lambda: speed_daemon.mcp_rows(ROOT, w, 3 if a.quick else 5),
        }[a.only]
        for row in fn():
            print("| " + " | ".join(row) + " |", flush=True)
        shutil.rmtree(w, ignore_errors=True)
    else:
        run(a.quick, Path(a.old) if a.old else None)

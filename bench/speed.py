"""``python -m bench speed [--quick]``: this tree against the previous main, side by side.

The machine these run on is shared and loaded, so absolute times drift by 2-3x between runs;
what counts is the ratio of two figures taken in the same run, one right after the other, with
the load average printed next to each. "old" is the main at commit ``93e7099`` (before issue
23), extracted once with ``git archive 93e7099 | tar -x -C /tmp/engram-old`` (no worktree, no
checkout of this repo is touched) and run from a subprocess with ``PYTHONPATH`` there; "new"
is this checkout. Both use the same venv, the same stores and the same queries.

Rows (the issue's table):
- MCP: process start → ``initialize`` answered (wall, and the server's CPU then), and the
  tools listed; the server as agents start it (``engram mcp --agent A``, model on).
- CLI: ``recall --mode keyword`` and ``remember`` on a 10k store (wall and CPU).
- Hook: Claude Code's ``UserPromptSubmit`` (``hook-run claude-code-context``), p50/p95 wall;
  new with ``engram serve`` running (and without, for the fall-back).
- App: start → the window painted, and → the store's content shown, on an empty store,
  against a bare PySide6 window.
- Search: keyword and hybrid p50/p95 (10k quick; 100k with vectors and 1M keyword-only full).
- Writes: ``remember_many`` rate and compile on the 10k store; forget 1 %.

What was chosen and why is in the README's *Performance* section and in the module docstrings
it names (``services/search/keyword_sqlite.py`` for the 1M keyword path).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OLD_COMMIT = "93e7099"
OLD_DIR = Path(tempfile.gettempdir()) / "engram-old"
CHILD = Path(__file__).resolve().parent / "speed_child.py"


def ensure_old(path: Path = OLD_DIR) -> Path:
    if not (path / "services" / "engram.py").exists():
        path.mkdir(parents=True, exist_ok=True)
        arch = subprocess.run(
            ["git", "-C", str(ROOT), "archive", OLD_COMMIT], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(path)], input=arch.stdout, check=True)
    return path


def load() -> float:
    return round(os.getloadavg()[0], 1)


def env_for(root: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("ENGRAM_HOME", "ENGRAM_NO_DAEMON")}
    env.update(PYTHONPATH=str(root), ANONYMIZED_TELEMETRY="False", QT_QPA_PLATFORM="offscreen")
    env.update(extra)
    return env


def child(
    root: Path, step: str, data: Path, *args, timeout: float = 3600, slug: str = "speed"
) -> dict:
    p = subprocess.run(
        [sys.executable, str(CHILD), str(root), step, str(data), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env_for(root, ENGRAM_SPEED_SLUG=slug),
        cwd=str(root),
    )
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode or not lines:
        return {"error": (p.stderr or p.stdout).strip().splitlines()[-1:]}
    return json.loads(lines[-1]) | {"load": load()}


def timed(cmd: list[str], env: dict, stdin: str = "", cwd: Path = ROOT) -> tuple[float, float]:
    """(wall s, CPU s of the child) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def cli(root: Path, data: Path, *words: str) -> list[str]:
    return [sys.executable, "-m", "app.cli", "--data-dir", str(data), *words]


# rows ------------------------------------------------------------------------------------
def mcp_start(root: Path, data: Path) -> dict:
    """Spawn the server as an agent does; time until ``initialize`` and ``tools/list`` answer."""
    t = time.perf_counter()
    p = subprocess.Popen(
        cli(root, data, "mcp", "--agent", "speed"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env_for(root),
        cwd=str(root),
    )
    assert p.stdin is not None and p.stdout is not None

    def send(obj):
        p.stdin.write((json.dumps(obj) + "\n").encode())
        p.stdin.flush()

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"},
                },
            }
        )
        p.stdout.readline()
        init = time.perf_counter() - t
        with open(f"/proc/{p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        p.stdout.readline()
        tools = time.perf_counter() - t
    finally:
        p.kill()
        p.wait()
    return {"init_s": round(init, 3), "init_cpu_s": round(cpu, 2), "tools_s": round(tools, 3)}


def median_of(fn, n: int) -> dict:
    runs = [fn() for _ in range(n)]
    return {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]} | {"load": load()}


def cli_rows(root: Path, data: Path, reps: int) -> dict:
    env = env_for(root)
    out = {}
    for name, words in (
        ("recall_kw", ["recall", "--agent", "speed", "--mode", "keyword", "deploy release"]),
        ("remember", ["remember", "--agent", "speed", "Speed bench fact {i}"]),
    ):
        walls, cpus = [], []
        for i in range(reps):
            w = [x.format(i=f"{root.name}-{i}-{time.time_ns()}") for x in words]
            wall, cpu = timed(cli(root, data, *w), env, cwd=root)
            walls.append(wall)
            cpus.append(cpu)
        out[name] = {
            "wall_s": round(statistics.median(walls), 3),
            "cpu_s": round(statistics.median(cpus), 3),
            "load": load(),
        }
    return out


def hook_row(root: Path, data: Path, reps: int) -> dict:
    env = env_for(root)
    hook = json.dumps({"prompt": "how do we deploy the release on friday?"})
    walls = []
    for _ in range(reps):
        walls.append(
            timed(
                cli(root, data, "hook-run", "claude-code-context", "--agent", "speed"),
                env,
                hook,
                root,
            )[0]
        )
    walls.sort()
    return {
        "p50_ms": round(1000 * walls[len(walls) // 2]),
        "p95_ms": round(1000 * walls[min(len(walls) - 1, int(0.95 * len(walls)))]),
        "load": load(),
    }


def with_daemon(root: Path, data: Path, fn):
    p = subprocess.Popen(
        cli(root, data, "serve"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env_for(root),
        cwd=str(root),
    )
    try:
        sys.path.insert(0, str(ROOT))
        from services.integrations.daemon import request

        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            st = request(data, {"op": "ping"}, timeout=5)
            if st and not st.get("warming_up"):
                break
            time.sleep(0.3)
        return fn()
    finally:
        p.terminate()
        p.wait(timeout=30)


BARE = """
import json, sys
from PySide6.QtWidgets import QApplication, QMainWindow
from PySide6.QtCore import QTimer
class W(QMainWindow):  # painted as the app's window is timed: after its first paint event
    done = False
    def paintEvent(self, ev):
        super().paintEvent(ev)
        if not self.done:
            self.done = True
            QTimer.singleShot(0, painted)
app = QApplication(sys.argv); w = W(); w.resize(1200, 800)
def painted():
    print(json.dumps({"painted": True}), flush=True); app.quit()
w.show(); app.exec()
"""


def until_painted(cmd: list[str], env: dict, cwd: Path = ROOT) -> tuple[float, float]:
    """Process start → the first JSON line on stdout (the window painted), and → the line
    with ``first_paint_ms`` (the store's first page shown; a tree that paints the window
    with its content prints one line, so both times are that line's). Not the exit: quitting
    waits for background work, which is the quit row's business, not the window's."""
    t = time.perf_counter()
    p = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=str(cwd), text=True
    )
    assert p.stdout is not None
    window = float("nan")
    try:
        for out in p.stdout:
            if not out.startswith("{"):
                continue
            if window != window:  # the first line
                window = time.perf_counter() - t
            if "first_paint_ms" in out or "painted" in out:
                return window, time.perf_counter() - t
        return window, float("nan")
    finally:
        p.kill()
        p.wait()


def start_env(root: Path) -> dict:
    """As an installed app starts: from compiled bytecode. This machine's environment sets
    PYTHONDONTWRITEBYTECODE, which would time compiling every module of the tree on every
    start (the app's hundreds, the bare window's none); the bytecode goes to a cache outside
    the tree instead, and a first start that fills it is not counted."""
    env = env_for(root, PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "engram-bench-pyc"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def app_row(root: Path, reps: int) -> dict:
    """Start → the window painted, and → the store's content shown, on an empty store (the
    Welcome page; the median of ``reps`` starts)."""
    env = start_env(root)
    windows, contents = [], []
    for i in range(reps + 1):
        with tempfile.TemporaryDirectory(prefix="engram-app-") as d:
            cmd = [sys.executable, "-m", "app.main", "--data-dir", d, "--exit-after-first-paint"]
            w, c = until_painted(cmd, env, root)
        if i:  # the first start fills the bytecode cache
            windows.append(w)
            contents.append(c)
    return {
        "first_paint_s": round(statistics.median(windows), 3),  # the window
        "content_s": round(statistics.median(contents), 3),
        "load": load(),
    }


def bare_row(reps: int) -> dict:
    env = start_env(ROOT)
    walls = [until_painted([sys.executable, "-c", BARE], env)[0] for _ in range(reps + 1)][1:]
    return {"first_paint_s": round(statistics.median(walls), 3), "load": load()}


def app_compare(old: Path, new: Path, reps: int) -> dict:
    """The bare window, the old and the new app, one start of each in turn per repetition:
    a load that changes during the row weighs on all three alike (the ratio is the figure)."""
    runs: dict[str, list[dict]] = {"bare": [], "old": [], "new": []}
    for _ in range(reps):
        runs["bare"].append(bare_row(1))
        runs["old"].append(app_row(old, 1))
        runs["new"].append(app_row(new, 1))

    def median(rows: list[dict]) -> dict:
        keys = [k for k in rows[0] if k != "load"]
        return {k: round(statistics.median(r[k] for r in rows), 3) for k in keys} | {"load": load()}

    return {k: median(v) for k, v in runs.items()}


def app_lines(old: dict, new: dict, bare: dict) -> list[str]:
    """The app rows: the old and new tree, each also as a multiple of a bare PySide6 window
    timed in the same run (the issue's aim: the window ≤ 1.3× bare)."""
    b = bare["first_paint_s"]

    def times_bare(row: dict, key: str) -> str:
        v = row.get(key)
        return f"{v / b:.2f}x bare" if isinstance(v, float) and b else "-"

    return [
        line(
            "app start → window painted, empty store",
            "s",
            old,
            new,
            "first_paint_s",
            f"; old {times_bare(old, 'first_paint_s')}, new {times_bare(new, 'first_paint_s')}"
            f" (a bare PySide6 window: {b} s)",
        ),
        line(
            "app start → store content shown (Welcome), empty store",
            "s",
            old,
            new,
            "content_s",
            f"; old {times_bare(old, 'content_s')}, new {times_bare(new, 'content_s')}",
        ),
    ]


# the run -------------------------------------------------------------------------------
def ratio(old, new) -> str:
    try:
        return f"{old / new:.2f}x" if new else "-"
    except TypeError:
        return "-"


def line(
    name: str, unit: str, old: dict, new: dict, key: str, extra: str = "", rate: bool = False
) -> str:
    """A table row; the ratio is how many times faster new is (old/new for times, new/old
    for rates)."""
    o, n = old.get(key), new.get(key)
    r = ratio(n, o) if rate else ratio(o, n)
    return (
        f"| {name} | {o} {unit} (load {old.get('load')}) | {n} {unit} (load {new.get('load')}) "
        f"| {r} faster{extra} |"
    )


def run(quick: bool, work: Path, old_dir: Path | None = None) -> dict:
    old = ensure_old(old_dir or OLD_DIR)
    new = ROOT
    reps = 3 if quick else 7
    res: dict = {"quick": quick, "old": f"{OLD_COMMIT} at {old}", "rows": {}}
    rows: list[str] = [
        "| figure | old (main 93e7099) | new (this tree) | old/new |",
        "|---|---|---|---|",
    ]

    def emit(text: str) -> None:
        rows.append(text)
        print(text, flush=True)

    print("\n".join(rows), flush=True)
    s10 = work / "s10k"
    res["build_10k"] = child(old, "build", s10, 10_000, 1)

    o, n = (
        median_of(lambda: mcp_start(old, s10), reps),
        median_of(lambda: mcp_start(new, s10), reps),
    )
    res["rows"]["mcp"] = {"old": o, "new": n}
    emit(line("MCP start → initialize, wall", "s", o, n, "init_s"))
    emit(line("MCP start → initialize, server CPU", "s", o, n, "init_cpu_s"))
    emit(line("MCP start → tools listed, wall", "s", o, n, "tools_s"))

    o, n = cli_rows(old, s10, reps), cli_rows(new, s10, reps)
    res["rows"]["cli"] = {"old": o, "new": n}
    for k, label in (("recall_kw", "`recall --mode keyword`"), ("remember", "`remember`")):
        emit(line(f"CLI {label} @10k, CPU", "s", o[k], n[k], "cpu_s"))
        emit(line(f"CLI {label} @10k, wall", "s", o[k], n[k], "wall_s"))

    hooks = 10 if quick else 30
    o = hook_row(old, s10, hooks)
    n_fallback = hook_row(new, s10, hooks)
    n = with_daemon(new, s10, lambda: hook_row(new, s10, hooks))
    res["rows"]["hook"] = {"old": o, "new_daemon": n, "new_no_daemon": n_fallback}
    emit(line("UserPromptSubmit hook p50 (new: `engram serve` up)", "ms", o, n, "p50_ms"))
    emit(line("UserPromptSubmit hook p95 (new: `engram serve` up)", "ms", o, n, "p95_ms"))
    emit(line("UserPromptSubmit hook p95, no daemon", "ms", o, n_fallback, "p95_ms"))

    apps = app_compare(old, new, reps)
    bare, o, n = apps["bare"], apps["old"], apps["new"]
    res["rows"]["app"] = {"old": o, "new": n, "bare_pyside6": bare}
    for text in app_lines(o, n, bare):
        emit(text)

    sizes = [(10_000, s10, True)]
    if not quick:
        sizes += [(100_000, work / "s100k", True), (1_000_000, work / "s1m", False)]
    for size, data, vec in sizes:
        if size != 10_000:
            res[f"build_{size}"] = child(old, "build", data, size, int(vec))
        q = 100 if quick else 300
        o, n = child(old, "search", data, q, int(vec)), child(new, "search", data, q, int(vec))
        res["rows"][f"search_{size}"] = {"old": o, "new": n}
        for key in ("keyword_p50_ms", "keyword_p95_ms") + (
            ("hybrid_p50_ms", "hybrid_p95_ms") if vec else ()
        ):
            emit(line(f"{key.replace('_ms', '')} @{size:,}", "ms", o, n, key))

    o, n = child(old, "writes", s10, 500), child(new, "writes", s10, 500)
    res["rows"]["writes"] = {"old": o, "new": n}
    emit(line("remember_many @10k", "facts/s", o, n, "remember_many_per_s", rate=True))
    emit(line("compile @10k", "s", o, n, "compile_s"))

    for size, data, vec in sizes:
        fo, fn = work / f"f-old-{size}", work / f"f-new-{size}"
        shutil.copytree(data, fo)
        shutil.copytree(data, fn)
        o, n = child(old, "forget", fo), child(new, "forget", fn)
        shutil.rmtree(fo, ignore_errors=True)
        shutil.rmtree(fn, ignore_errors=True)
        res["rows"][f"forget_{size}"] = {"old": o, "new": n}
        emit(
            line(
                f"forget 1 % @{size:,}{' with vectors' if vec else ''}", "s", o, n, "forget_1pct_s"
            )
        )
    for text in gui_rows(old, work, quick, res):
        emit(text)
    res["table"] = rows
    return res


def gui_rows(old: Path, work: Path, quick: bool, res: dict) -> list[str]:
    """The window over a large store (``bench/gui_scale.py``: select a row, type a search,
    20× PageDown, drag to the oldest; GC preview, run, quit and the demo in the full run),
    old and new side by side, as table rows of this report."""
    from bench import gui_scale

    facts, parts = (10_000, {"ui"}) if quick else (100_000, {"ui", "gc", "demo"})
    g = gui_scale.run(facts, old, None, work / "gui", frozenset(parts))
    res["rows"][f"gui_{facts}"] = g
    o, n = g.get("old", {}), g.get("new", {})
    out = []
    for label, key, load in gui_scale.ROWS:
        if key not in o and key not in n:
            continue
        unit = "s" if key.endswith("_s") else "ms"
        name = f"app @{facts:,}: " + re.sub(r" (ms|s)(?= \(|$)", "", label)
        was, now = ({key: d.get(key, "–"), "load": d.get(f"{load}_load")} for d in (o, n))
        out.append(line(name, unit, was, now, key))
    return out


def keyword_only(
    store: Path,
    slug: str,
    queries: int = 300,
    old_dir: Path | None = None,
    hybrid: bool = False,
) -> dict:
    """Old vs new search on an existing store (e.g. a 1M-fact one left by ``python -m bench
    scale --keep``), without building anything: keyword, and hybrid too with ``hybrid`` (the
    store needs vectors, e.g. ``python -m bench scale-step --vectors``)."""
    old = ensure_old(old_dir or OLD_DIR)
    flag = 1 if hybrid else 0
    o = child(old, "search", store, queries, flag, slug=slug)
    n = child(ROOT, "search", store, queries, flag, slug=slug)
    size = f"{store.name}"
    keys = ["keyword_p50_ms", "keyword_p95_ms"] + (
        ["hybrid_p50_ms", "hybrid_p95_ms"] if hybrid else []
    )
    for key in keys:
        print(line(f"{key.replace('_ms', '')} ({size})", "ms", o, n, key), flush=True)
    return {"old": o, "new": n}

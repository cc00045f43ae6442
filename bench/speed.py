"""``python -m bench speed [--quick] [--old REF]``: an old tree against this one, in rounds.

The machine is shared and loaded, so absolute times drift 2-3x between runs; what counts is
the ratio of two figures taken side by side. Every row therefore runs in rounds, old then new
then new then old (the order flips each round so a load that rises or falls weighs on both),
and prints the load average next to each side. "old" is a git ref (default: the merge-base
with ``main``, or ``HEAD~1`` on main itself), extracted with ``git archive`` into
``/tmp/engram-old-<sha>`` (no worktree is touched) and run with ``PYTHONPATH`` there; "new" is
this checkout. Both use the same venv, copies of the same store and the same queries.

Every row also checks what the user gets, because a speed-up that changes the answer is not
one: keyword search is compared with exhaustive BM25 (top-10 identical, score mass), the
first MCP recall reports its pipeline, each command's output is checked.

A row is a ``Row`` (below). Another module adds rows by exposing
``rows(rounds: int, quick: bool, **ctx) -> list[Row]`` (``bench/speed_write.py``: forget,
bulk ingest, the hook daemon); ``ctx`` holds ``old`` and ``new`` (the two trees' roots),
``work`` (a scratch dir) and ``store`` (the 10k store; copy it before writing), and only the
names its signature takes are passed. It uses ``rounds_of`` to interleave.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.integration.mcp_client import initialize

ROOT = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).resolve().parent / "speed_child.py"


@dataclass
class Row:
    """One line of the report.

    ``old``/``new``: the figure of each tree (a median over rounds, or the percentile the name
    says), None when it could not be taken; ``unit``: "ms", "s", "facts/s"...; ``higher``: True
    when more is better (rates); ``load``: the 1-minute load average while each side ran;
    ``check``: what the result check found for each side, never empty ("top-10 = exhaustive
    100/100", "pipeline hybrid", "ok", "FAILED: ...")."""

    name: str
    unit: str
    old: float | None
    new: float | None
    load: tuple[float, float]
    check: str
    higher: bool = False

    def line(self) -> str:
        o, n = self.old, self.new
        try:
            r = (n / o if self.higher else o / n) if o and n else None
        except TypeError:
            r = None
        ratio = f"{r:.2f}x" if r is not None else "-"
        return (
            f"| {self.name} | {_fmt(o)} {self.unit} (load {self.load[0]}) "
            f"| {_fmt(n)} {self.unit} (load {self.load[1]}) | {ratio} | {self.check} |"
        )


def _fmt(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def rounds_of(n: int, old: Callable[[], dict], new: Callable[[], dict]):
    """Run ``old`` and ``new`` ``n`` times each, interleaved (old-new, new-old, ...): (old's
    results, new's results, (old's mean load, new's mean load))."""
    res: dict[str, list] = {"old": [], "new": []}
    loads: dict[str, list] = {"old": [], "new": []}
    for i in range(n):
        pair = [("old", old), ("new", new)]
        for side, fn in pair[::-1] if i % 2 else pair:
            res[side].append(fn())
            loads[side].append(load())
    return res["old"], res["new"], (_mean(loads["old"]), _mean(loads["new"]))


def _mean(xs: list[float]) -> float:
    return round(sum(xs) / len(xs), 1) if xs else 0.0


def _median(rows: list[dict], key: str) -> float | None:
    xs = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
    return round(statistics.median(xs), 4) if xs else None


def old_ref(ref: str | None = None) -> str:
    """The commit to compare with: ``ref``, else the merge-base with ``main``, else HEAD~1."""
    git = ["git", "-C", str(ROOT)]

    def sha(r: str) -> str:
        return subprocess.run(
            [*git, "rev-parse", "--short", r], capture_output=True, text=True, check=True
        ).stdout.strip()

    if ref:
        return sha(ref)
    head = sha("HEAD")
    base = subprocess.run([*git, "merge-base", "HEAD", "main"], capture_output=True, text=True)
    if base.returncode == 0 and sha(base.stdout.strip()) != head:
        return sha(base.stdout.strip())
    return sha("HEAD~1")


def ensure_old(ref: str, path: Path | None = None) -> Path:
    """The tree of commit REF (`git archive`) in PATH (a temp dir named for it), once."""
    path = path or Path(tempfile.gettempdir()) / f"engram-old-{ref}"
    if not (path / "services" / "engram.py").exists():
        path.mkdir(parents=True, exist_ok=True)
        arch = subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True
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


def timed(
    cmd: list[str], env: dict, stdin: str = "", cwd: Path = ROOT, timeout: float = 300
) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall s, CPU s of the child, the finished process) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p


def cli(root: Path, data: Path, *words: str) -> list[str]:
    return [sys.executable, "-m", "app.cli", "--data-dir", str(data), *words]


def _mcp_server(root: Path, data: Path) -> tuple[subprocess.Popen, Callable[[dict], None]]:
    """`engram mcp` spawned as an agent spawns it, and a function that sends it one message."""
    p = subprocess.Popen(
        cli(root, data, "mcp", "--agent", "speed"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env_for(root),
        cwd=str(root),
    )
    assert p.stdin is not None and p.stdout is not None
    stdin = p.stdin

    def send(obj: dict) -> None:
        stdin.write((json.dumps(obj) + "\n").encode())
        stdin.flush()

    return p, send


# rows ------------------------------------------------------------------------------------
def mcp_start(root: Path, data: Path) -> dict:
    """Spawn the server as an agent does; time until ``initialize`` and ``tools/list`` answer."""
    t = time.perf_counter()
    p, send = _mcp_server(root, data)
    try:
        send(initialize("bench"))
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


def first_recall(p: subprocess.Popen, send: Callable[[dict], None]) -> dict:
    """An agent's first moves on a spawned MCP server: the handshake, then one `recall`; its
    answer (empty when the server closed its output first)."""
    send(initialize("bench"))
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    args = {"query": "how do we deploy the release", "k": 5}
    call = {"name": "recall", "arguments": args}
    send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
    for raw in p.stdout:
        msg = json.loads(raw)
        if msg.get("id") == 3:
            return msg
    return {}


def mcp_first_recall(root: Path, data: Path) -> dict:
    """Spawn the server with the model on (no ``--keyword``), as agents start it, and call
    ``recall`` at once: the time to its answer, and the pipeline that answered."""
    t = time.perf_counter()
    p, send = _mcp_server(root, data)
    killer = threading.Timer(180, p.kill)  # a hung server ends the row, not the run
    killer.start()
    try:
        answer = first_recall(p, send)
        wall = time.perf_counter() - t
    finally:
        killer.cancel()
        p.kill()
        p.wait()
    try:
        out = json.loads(answer["result"]["content"][0]["text"])
        pipeline, hits = out.get("pipeline", "?"), len(out.get("hits", []))
    except (KeyError, IndexError, ValueError):
        pipeline, hits = "no answer", 0
    return {"recall_s": round(wall, 3), "pipeline": pipeline, "hits": hits}


def mcp_rows(old: Path, new: Path, stores: dict, rounds: int) -> list[Row]:
    o, n, ld = rounds_of(
        rounds, lambda: mcp_start(old, stores["old"]), lambda: mcp_start(new, stores["new"])
    )
    ok = "tools listed" if all(r.get("tools_s") for r in o + n) else "FAILED: no tool list"
    out = [
        Row(label, "s", _median(o, key), _median(n, key), ld, ok)
        for label, key in (
            ("MCP start → `initialize`, wall", "init_s"),
            ("MCP start → `initialize`, server CPU", "init_cpu_s"),
            ("MCP start → tools listed, wall", "tools_s"),
        )
    ]
    o, n, ld = rounds_of(
        rounds,
        lambda: mcp_first_recall(old, stores["old"]),
        lambda: mcp_first_recall(new, stores["new"]),
    )

    def check(rs: list[dict]) -> str:
        hybrid = sum(r["pipeline"].startswith("hybrid") for r in rs)
        return f"{hybrid}/{len(rs)} hybrid ({', '.join(sorted({r['pipeline'] for r in rs}))})"

    out.append(
        Row(
            "MCP start → first `recall` answered (model on), wall",
            "s",
            _median(o, "recall_s"),
            _median(n, "recall_s"),
            ld,
            f"old {check(o)}; new {check(n)}",
        )
    )
    return out


def _fact_ids(data: Path, n: int) -> list[int]:
    with sqlite3.connect(f"file:{data / 'engram.db'}?mode=ro", uri=True) as db:
        return [r[0] for r in db.execute("SELECT id FROM fact ORDER BY id LIMIT ?", (n,))]


# (label, command words, what the output must show); {id} is a fact of the store
CLI_ROWS = (
    (
        "`recall --mode keyword`",
        ["recall", "--agent", "speed", "--mode", "keyword", "deploy release"],
        "hit",
    ),
    ("`pin`", ["pin", "{id}"], "id"),
    ("`edit --importance`", ["edit", "{id}", "--importance", "0.8"], "id"),
    ("`delete --yes`", ["delete", "{id}", "--yes"], "id"),
    ("`recall --agent typo` (unknown agent)", ["recall", "--agent", "typo", "deploy"], "no agent"),
)


def _cli_check(kind: str, fid: int, p: subprocess.CompletedProcess) -> bool:
    if kind == "hit":
        return p.returncode == 0 and "[speed]" in p.stdout
    if kind == "id":
        return p.returncode == 0 and p.stdout.strip() == str(fid)
    return p.returncode != 0 and "no agent 'typo'" in p.stderr


def cli_rows(old: Path, new: Path, stores: dict, rounds: int) -> list[Row]:
    """Each command once per side per round, on its own fact (a delete takes its fact away)."""
    ids = {side: iter(_fact_ids(stores[side], 200)[50:]) for side in ("old", "new")}
    out = []
    for label, words, kind in CLI_ROWS:

        def one(side: str, root: Path, words=words, kind=kind) -> dict:
            fid = next(ids[side])
            cmd = cli(root, stores[side], *[w.format(id=fid) for w in words])
            wall, cpu, p = timed(cmd, env_for(root), cwd=root)
            return {"wall_s": wall, "cpu_s": cpu, "ok": _cli_check(kind, fid, p)}

        o, n, ld = rounds_of(rounds, lambda: one("old", old), lambda: one("new", new))
        check = f"output right: old {sum(r['ok'] for r in o)}/{len(o)}, new {sum(r['ok'] for r in n)}/{len(n)}"
        out.append(
            Row(f"CLI {label} @10k, CPU", "s", _median(o, "cpu_s"), _median(n, "cpu_s"), ld, check)
        )
        out.append(
            Row(
                f"CLI {label} @10k, wall",
                "s",
                _median(o, "wall_s"),
                _median(n, "wall_s"),
                ld,
                check,
            )
        )
    return out


def hook_rows(old: Path, new: Path, stores: dict, rounds: int, reps: int) -> list[Row]:
    """Claude Code's ``UserPromptSubmit`` hook, in-process on both sides (no daemon: the
    daemon's rows are ``bench/speed_write.py``'s)."""
    hook = json.dumps({"prompt": "how do we deploy the release on friday?"})

    def batch(side: str, root: Path) -> dict:
        walls, ok = [], 0
        for _ in range(reps):
            cmd = cli(root, stores[side], "hook-run", "claude-code-context", "--agent", "speed")
            wall, _, p = timed(cmd, env_for(root, ENGRAM_NO_DAEMON="1"), hook, root)
            walls.append(wall)
            ok += p.returncode == 0 and "deploy" in p.stdout.lower()
        return {"walls": walls, "ok": ok}

    o, n, ld = rounds_of(rounds, lambda: batch("old", old), lambda: batch("new", new))
    ow = sorted(w for r in o for w in r["walls"])
    nw = sorted(w for r in n for w in r["walls"])
    check = (
        f"context names the deploy facts: old {sum(r['ok'] for r in o)}/{len(ow)}, "
        f"new {sum(r['ok'] for r in n)}/{len(nw)}"
    )
    return [
        Row(f"`UserPromptSubmit` hook {p}, no daemon", "ms", _pct(ow, q), _pct(nw, q), ld, check)
        for p, q in (("p50", 50), ("p95", 95))
    ]


def _pct(xs: list[float], p: float, scale: float = 1000.0) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return round(scale * xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))], 2)


def search_rows(
    old: Path,
    new: Path,
    stores: dict,
    rounds: int,
    queries: int,
    size: int,
    vectors: bool,
    slug: str = "speed",
) -> list[Row]:
    """Keyword (and hybrid) p50/p95 over ``rounds`` × ``queries`` queries per side (a child
    process per round and side, each with its own queries), every answer checked."""
    done = {"old": 0, "new": 0}

    def one(side: str, root: Path) -> dict:
        seed = 5 + done[side]  # round i: the same queries on both sides
        done[side] += 1
        return child(root, "search", stores[side], queries, int(vectors), seed, slug=slug)

    o, n, ld = rounds_of(rounds, lambda: one("old", old), lambda: one("new", new))
    out = []
    for mode in ("keyword", "hybrid") if vectors else ("keyword",):
        ol = [x / 1000 for r in o for x in r.get(f"{mode}_ms", [])]
        nl = [x / 1000 for r in n for x in r.get(f"{mode}_ms", [])]
        if mode == "keyword":
            check = "top-10 = exhaustive BM25: " + "; ".join(
                f"{side} {sum(r.get('top10_identical', 0) for r in rs)}/"
                f"{sum(r.get('queries', 0) for r in rs)} (mass "
                f"{_mean([r.get('top10_mass', 0) for r in rs]):.3f})"
                for side, rs in (("old", o), ("new", n))
            )
        else:
            check = "answers with vectors: " + "; ".join(
                f"{side} {sum(r.get('hybrid_with_vectors', 0) for r in rs)}/"
                f"{sum(r.get('queries', 0) for r in rs)}"
                for side, rs in (("old", o), ("new", n))
            )
        if any("error" in r for r in o + n):
            check += "; FAILED: " + " ".join(str(r["error"]) for r in o + n if "error" in r)
        for p in (50, 95):
            out.append(Row(f"{mode} p{p} @{size:,}", "ms", _pct(ol, p), _pct(nl, p), ld, check))
    return out


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


def app_rows(old: Path, new: Path, rounds: int) -> list[Row]:
    """Start → window painted and → content shown, empty store: a bare PySide6 window, the
    old and the new app, one start of each in turn per round."""
    bare: list[dict] = []

    def with_bare(root: Path) -> dict:
        bare.append(bare_row(1))
        return app_row(root, 1)

    o, n, ld = rounds_of(rounds, lambda: with_bare(old), lambda: with_bare(new))
    b = _median(bare, "first_paint_s") or 0.0
    ok = (
        "painted"
        if all(r.get("first_paint_s") == r.get("first_paint_s") for r in o + n)
        else "FAILED"
    )

    def times(rs: list[dict], key: str) -> str:
        v = _median(rs, key)
        return f"{v / b:.2f}x" if v and b else "-"

    return [
        Row(
            label,
            "s",
            _median(o, key),
            _median(n, key),
            ld,
            f"{ok}; bare PySide6 window {b} s: old {times(o, key)}, new {times(n, key)}",
        )
        for label, key in (
            ("app start → window painted, empty store", "first_paint_s"),
            ("app start → store content shown (Welcome)", "content_s"),
        )
    ]


def extra_rows(rounds: int, quick: bool, **ctx) -> list:
    """Rows other modules add (see the module docstring); none when the module is absent.
    ``bench/speed_write.py`` as first written exposes ``run(quick, old_dir)`` instead, which
    prints its own rows and returns them as ``(name, old, new, check)`` strings: taken too."""
    try:
        from bench import speed_write  # type: ignore[attr-defined]
    except ImportError:
        return []
    fn = getattr(speed_write, "rows", None)
    if fn is not None:
        return list(fn(**_accepted(fn, dict(ctx, rounds=rounds, quick=quick))))
    fn = getattr(speed_write, "run", None)
    if fn is None:
        return []
    return list(fn(**_accepted(fn, {"quick": quick, "old_dir": ctx.get("old")})))


def _accepted(fn: Callable, kw: dict) -> dict:
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return kw
    return {k: v for k, v in kw.items() if k in params}


# the run -------------------------------------------------------------------------------
HEADER = ["| figure | old | new | old/new | result check |", "|---|---|---|---|---|"]


def run(quick: bool, work: Path, ref: str | None = None) -> dict:
    t0 = time.monotonic()
    sha = old_ref(ref)
    old, new = ensure_old(sha), ROOT
    rounds = 3 if quick else 7
    res: dict = {"quick": quick, "old": f"{sha} at {old}", "rounds": rounds, "rows": []}
    print(f"old = {sha}, new = this tree ({ROOT}); {rounds} rounds", flush=True)
    print("\n".join(HEADER), flush=True)

    def emit(rows: list) -> None:
        for r in rows:
            if isinstance(r, Row):
                res["rows"].append(asdict(r))
                print(r.line(), flush=True)
            else:  # (name, old, new, check) strings, printed by the module that made them
                res["rows"].append(dict(zip(("name", "old", "new", "check"), r, strict=False)))

    base = work / "s10k"
    res["build_10k"] = child(old, "build", base, 10_000, 1)  # the old tree writes, both read
    stores = {side: work / f"s10k-{side}" for side in ("old", "new")}
    for d in stores.values():
        shutil.copytree(base, d)
    emit(mcp_rows(old, new, stores, rounds))
    emit(cli_rows(old, new, stores, rounds))
    emit(hook_rows(old, new, stores, rounds, 3 if quick else 10))
    emit(app_rows(old, new, rounds))
    emit(search_rows(old, new, stores, rounds, 40 if quick else 150, 10_000, True))
    if not quick:
        for size, vec in ((100_000, True), (1_000_000, False)):
            big = work / f"s{size}"
            res[f"build_{size}"] = child(old, "build", big, size, int(vec))
            pair = {"old": big, "new": big}  # read-only: search never writes (touch=False)
            emit(search_rows(old, new, pair, rounds, 60, size, vec))
            shutil.rmtree(big, ignore_errors=True)
    emit(extra_rows(rounds, quick, old=old, new=new, work=work, store=base))
    if not quick:
        emit(gui_rows(old, work, quick, res))
    res["minutes"] = round((time.monotonic() - t0) / 60, 1)
    print(f"({res['minutes']} min)", flush=True)
    return res


def gui_rows(old: Path, work: Path, quick: bool, res: dict) -> list[Row]:
    """The window over a large store (``bench/gui_scale.py``: select a row, type a search,
    20× PageDown, drag to the oldest; GC preview, run, quit and the demo in the full run),
    old and new as that module runs them (one after the other, not in rounds)."""
    from bench import gui_scale

    facts, parts = (10_000, {"ui"}) if quick else (100_000, {"ui", "gc", "demo"})
    g = gui_scale.run(facts, old, None, work / "gui", frozenset(parts))
    res[f"gui_{facts}"] = g
    o, n = g.get("old", {}), g.get("new", {})
    out = []
    for label, key, load_key in gui_scale.ROWS:
        if key not in o and key not in n:
            continue
        unit = "s" if key.endswith("_s") else "ms"
        name = f"app @{facts:,}: " + re.sub(r" (ms|s)(?= \(|$)", "", label)
        vals = [d.get(key) if isinstance(d.get(key), (int, float)) else None for d in (o, n)]
        loads = tuple(d.get(f"{load_key}_load") or 0.0 for d in (o, n))
        out.append(Row(name, unit, vals[0], vals[1], loads, "driven as a user does (keys)"))
    return out


def keyword_only(
    store: Path,
    slug: str,
    queries: int = 300,
    ref: str | None = None,
    hybrid: bool = False,
    rounds: int = 3,
) -> dict:
    """Old vs new search on an existing store (e.g. a 1M-fact one left by ``python -m bench
    scale --keep``), without building anything: keyword, and hybrid too with ``hybrid`` (the
    store needs vectors). Both sides read the same store: it must be one both trees open."""
    sha = old_ref(ref)
    old = ensure_old(sha)
    print(f"old = {sha}; {store}", flush=True)
    print("\n".join(HEADER), flush=True)
    both = {"old": store, "new": store}
    rows = search_rows(old, ROOT, both, rounds, queries // rounds, _size(store), hybrid, slug)
    for r in rows:
        print(r.line(), flush=True)
    return {"old": sha, "store": str(store), "rows": [asdict(r) for r in rows]}


def _size(store: Path) -> int:
    with sqlite3.connect(f"file:{store / 'engram.db'}?mode=ro", uri=True) as db:
        return db.execute("SELECT count(*) FROM fact").fetchone()[0]

"""The resident daemon without a service manager (issue #33): ``python -m bench.speed_write
--only autostart|mcp`` (``speed_write.run`` calls both).

- ``autostart_rows``: the UserPromptSubmit hook after `engram hooks install claude-code`
  alone, on a home where no service manager runs (a container, CI): the command the install
  wrote into settings.json, run as Claude Code runs it. Old (main before this work) answers
  every prompt in-process; new starts the daemon on the first prompt (answered in-process,
  reported apart) and the daemon answers the rest. Old and new alternate prompt by prompt.
  Checked: new's block equals, byte for byte, the in-process hook's on a twin store through
  the same prompts.
- ``mcp_rows``: spawn → the first `recall` answered, a bare MCP SDK server (one tool, no
  store) against `engram mcp` with `engram serve` running on its store and `engram mcp` alone
  (it loads the model), in rounds. Checked: the hits with and without the daemon are equal.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from bench.speed import cli, env_for, first_recall, load

Row = tuple[str, str, str, str]
PROMPTS = [
    "which theme do I like in my editor?",
    "who reviews the billing changes?",
    "what database runs in staging?",
    "when do deploys go out?",
]
BARE = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("bare")

@server.tool(name="recall")
def recall(query: str, k: int = 5) -> dict:
    return {"hits": []}

server.run("stdio")
"""


def pcts(xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return f"p50 {round(1000 * statistics.median(xs))} / p95 {round(1000 * p95)} ms"


def _run_hook(command: str, env: dict, prompt: str) -> tuple[float, str]:
    t = time.perf_counter()
    p = subprocess.run(
        ["bash", "-c", command],
        input=json.dumps({"prompt": prompt, "session_id": "bench"}),
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    return time.perf_counter() - t, p.stdout


def _installed_hook(root: Path, data: Path, home: Path) -> str:
    """`engram hooks install claude-code` on ``home``: the prompt hook's command it wrote."""
    env = env_for(root, HOME=str(home), ENGRAM_NO_DAEMON="1")
    words = ["hooks", "install", "claude-code", "--agent", "speed", "--home", str(home)]
    words += ["--with-context", "--yes"]
    p = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(data), *words],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=600,
    )
    if p.returncode:
        raise RuntimeError(f"hooks install failed: {p.stderr}")
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    [group] = settings["hooks"]["UserPromptSubmit"]
    return group["hooks"][0]["command"]


def _stop_daemon(data: Path) -> None:
    from services.integrations.daemon import request

    pid = (request(data, {"op": "ping"}, timeout=5) or {}).get("pid")
    if pid:
        os.kill(int(pid), signal.SIGTERM)
        deadline = time.monotonic() + 60
        while request(data, {"op": "ping"}, timeout=2) and time.monotonic() < deadline:
            time.sleep(0.3)


def autostart_rows(old: Path, new: Path, work: Path, reps: int) -> list[Row]:
    from bench.speed_write import _hook_store

    data, old_data, twin = work / "auto", work / "auto-old", work / "auto-twin"
    _hook_store(old, data)
    shutil.copytree(data, old_data)
    shutil.copytree(data, twin)
    home = work / "auto-home"
    home.mkdir()
    new_cmd = _installed_hook(new, data, home)
    twin_cmd = new_cmd.replace(str(data), str(twin))
    old_cmd = new_cmd.replace(str(data), str(old_data)).replace(str(new), str(old))
    # the user's environment: no ENGRAM_NO_DAEMON, the auto-start on, the source trees' roots
    auto = env_for(new, HOME=str(home))
    auto.pop("ENGRAM_DAEMON_AUTOSTART", None)
    alone = env_for(new, HOME=str(home), ENGRAM_NO_DAEMON="1")
    old_env = env_for(old, HOME=str(home), ENGRAM_NO_DAEMON="1")
    times: dict[str, list[float]] = {"old": [], "new": []}
    first_new = first_old = 0.0
    same = 0
    try:
        for i in range(reps + 1):
            prompt = PROMPTS[i % len(PROMPTS)]
            wo, _ = _run_hook(old_cmd, old_env, prompt)
            wn, out = _run_hook(new_cmd, auto, prompt)
            if i == 0:
                first_old, first_new = wo, wn
            else:
                times["old"].append(wo)
                times["new"].append(wn)
            same += out == _run_hook(twin_cmd, alone, prompt)[1] and "<engram-memory" in out
    finally:
        _stop_daemon(data)
    check = f"blocks byte-identical to the in-process hook on a twin store for {same}/{reps + 1}"
    lo = f"(load {load()})"
    return [
        ("UserPromptSubmit hook after `hooks install` alone (no service manager), prompts 2…", f"{pcts(times['old'])} {lo}", f"{pcts(times['new'])} {lo}", check),
        ("… its first prompt (new: starts the daemon, answers in-process)", f"{round(1000 * first_old)} ms", f"{round(1000 * first_new)} ms {lo}", check),
    ]  # fmt: skip


def _first_call(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float, list]:
    """Spawn → the first `recall` answered: (wall s, the server's CPU s, the hits' texts)."""
    t = time.perf_counter()
    p = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=env, cwd=cwd,
    )  # fmt: skip
    assert p.stdin is not None and p.stdout is not None

    def send(obj: dict) -> None:
        p.stdin.write((json.dumps(obj) + "\n").encode())
        p.stdin.flush()

    try:
        answer = first_recall(p, send)
        wall = time.perf_counter() - t
        with open(f"/proc/{p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    finally:
        p.kill()
        p.wait()
    try:
        out = json.loads(answer["result"]["content"][0]["text"])
        hits = [h["content"] for h in out.get("hits", [])]
    except (KeyError, IndexError, ValueError):
        hits = ["no answer"]
    return wall, cpu, hits


@contextlib.contextmanager
def serving(root: Path, data: Path) -> Iterator[None]:
    """`engram serve` of the checkout ROOT on DATA, up with its model loaded; stopped after."""
    from services.integrations.daemon import request

    serve = subprocess.Popen(
        cli(root, data, "serve"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env_for(root),
        cwd=root,
    )
    try:
        deadline = time.monotonic() + 300
        while not (request(data, {"op": "ping"}) or {}).get("semantic"):
            if serve.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("engram serve did not come up")
            time.sleep(0.5)
        yield
    finally:
        serve.terminate()
        serve.wait(timeout=60)


def mcp_rows(new: Path, work: Path, rounds: int) -> list[Row]:
    from bench.speed_write import _hook_store

    data, twin, kw = work / "mcp", work / "mcp-twin", work / "mcp-kw"
    _hook_store(new, data)
    shutil.copytree(data, twin)
    shutil.copytree(data, kw)
    res: dict[str, list[tuple[float, float]]] = {"bare": [], "daemon": [], "alone": [], "kw": []}
    same = 0
    mcp = ["-m", "app.cli", "--data-dir"]
    with serving(new, data):
        for _ in range(rounds):
            w, c, _h = _first_call([sys.executable, "-c", BARE], env_for(new), new)
            res["bare"].append((w, c))
            cmd = [sys.executable, *mcp, str(data), "mcp", "--agent", "speed"]
            w, c, by_daemon = _first_call(cmd, env_for(new), new)
            res["daemon"].append((w, c))
            cmd = [sys.executable, *mcp, str(twin), "mcp", "--agent", "speed"]
            w, c, alone = _first_call(cmd, env_for(new, ENGRAM_NO_DAEMON="1"), new)
            res["alone"].append((w, c))
            # the floor: Engram's own start with no model anywhere (keyword answers)
            cmd = [sys.executable, *mcp, str(kw), "mcp", "--agent", "speed", "--keyword-only"]
            w, c, _h = _first_call(cmd, env_for(new, ENGRAM_NO_DAEMON="1"), new)
            res["kw"].append((w, c))
            same += by_daemon == alone and bool(alone) and alone != ["no answer"]

    def fig(side: str) -> str:
        w = statistics.median(x[0] for x in res[side])
        c = statistics.median(x[1] for x in res[side])
        return f"{w:.2f} s wall / {c:.2f} s CPU"

    ratio = statistics.median(x[0] for x in res["daemon"]) / statistics.median(
        x[0] for x in res["bare"]
    )
    check = f"hits with and without the daemon equal in {same}/{rounds} rounds"
    lo = f"(load {load()})"
    return [
        ("MCP spawn → first `recall`: bare SDK server vs `engram mcp` with `engram serve` running", f"{fig('bare')} {lo}", f"{fig('daemon')} ({ratio:.2f}× bare)", check),
        ("… `engram mcp` alone (loads the model itself)", f"{fig('bare')}", f"{fig('alone')} {lo}", check),
        ("… `engram mcp --keyword-only` alone (no model anywhere: Engram's own start)", f"{fig('bare')}", f"{fig('kw')} {lo}", "keyword answers: the floor of the daemon's row"),
    ]  # fmt: skip

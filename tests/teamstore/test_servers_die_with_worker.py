"""A pytest worker killed with -9 (a timeout, a user's Ctrl-\\) takes its PostgreSQL and
``chroma run`` with it: no orphan keeps a port, memory or a temp dir (tests/teamstore/reaper.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.teamstore import servers

ROOT = Path(__file__).resolve().parents[2]

# what an xdist worker does with the session fixtures: start both servers, then keep running
WORKER = """
import json, sys, time
from tests.teamstore.servers import start_chroma, start_postgres
pg, chroma = start_postgres(), start_chroma()
con = pg.admin()
con.cursor().execute("SELECT 1")  # a backend process of the postmaster, in its group
print(json.dumps({"pids": [pg.proc.pid, chroma.proc.pid], "roots": [str(pg.root), str(chroma.root)],
                  "ports": [pg.port, chroma.port]}), flush=True)
time.sleep(600)
"""


def _procs() -> dict[int, tuple[int, str, str]]:
    """pid → (parent pid, state, start time) of every process, from /proc."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            out[int(entry.name)] = (int(fields[1]), fields[0], fields[19])
    return out


def _tree(root: int) -> dict[int, str]:
    """The server and its descendants (PostgreSQL's backends are group leaders of their own,
    so a process group is not enough), each with its start time against pid reuse."""
    procs = _procs()
    found, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in procs:
            found[pid] = procs[pid][2]
            todo += [p for p, (ppid, _, _) in procs.items() if ppid == pid]
    return found


def _alive(tree: dict[int, str]) -> list[int]:
    procs = _procs()
    return [p for p, t in tree.items() if p in procs and procs[p][2] == t and procs[p][1] != "Z"]


def _gone(tree: dict[int, str], roots: list[str], limit: float = 30) -> tuple[list, list]:
    """Wait (up to a limit generous for a loaded 2-core machine) for the servers to go."""
    deadline = time.monotonic() + limit
    while True:
        alive = _alive(tree)
        left = [r for r in roots if Path(r).exists()]
        if (not alive and not left) or time.monotonic() > deadline:
            return alive, left
        time.sleep(0.2)


def test_servers_die_with_a_worker_killed_with_sigkill():
    if servers.opted_out():
        pytest.skip(f"team-store servers skipped ({servers.SKIP_ENV} is set)")
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = worker.stdout.readline()
        assert line, worker.stderr.read()
        started = json.loads(line)
        postmaster, chroma = started["pids"]
        tree = {**_tree(postmaster), **_tree(chroma)}
        assert postmaster in tree and chroma in tree, "the servers were not running"
        assert len(_tree(postmaster)) > 3, "PostgreSQL runs a backend per connection and helpers"

        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(10)

        alive, left = _gone(tree, started["roots"])
        assert alive == [], f"server processes outlived their worker: {alive}"
        assert left == [], f"the servers' temp dirs were left behind: {left}"
        for port in started["ports"]:
            with servers.socket.socket() as s:
                assert s.connect_ex(("127.0.0.1", port)) != 0, f"port {port} still answers"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)

"""A prompt hook that finds no daemon starts one (no service manager: a container, WSL, CI, a
user who stopped it), and the next prompt is answered by it with the same bytes.

The real CLI run as Claude Code runs the hook (`hook-run claude-code-context`, the prompt's
JSON on stdin), a real detached daemon process, the real store, Chroma and model. The suite
turns the auto-start off (tests/conftest.py); these tests turn it back on and stop every
daemon they started (checked by its pid).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.processes import engram_in, start_engram

FACTS = [
    "I prefer dark mode in every editor",
    "Sam reviews every pull request that touches billing",
    "The staging database runs PostgreSQL 16",
]
PROMPTS = ["which theme do I like in my editor?", "who reviews the billing changes?"]


# the suite turns the auto-start off; these tests are about it
_DROP = ("ENGRAM_DAEMON_AUTOSTART",)


def engram(data: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    return engram_in(data, *args, stdin=stdin, timeout=240, drop=_DROP, **env)


def hook(data: Path, prompt: str, **env) -> subprocess.CompletedProcess:
    """The prompt hook as `hooks install` writes it, with -v: who answered goes to stderr."""
    words = ("-v", "hook-run", "claude-code-context", "--agent", "claude", "--budget", "300")
    r = engram(data, *words, stdin=json.dumps({"prompt": prompt}), **env)
    assert r.returncode == 0, r.stderr
    return r


def _ping(data: Path) -> dict | None:
    from services.integrations.daemon import request

    return request(data, {"op": "ping"}, timeout=5)


def _alive(pid: int) -> bool:
    """Running, not a zombie: the daemon is nobody's child once its hook exits."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no procfs
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _wait_serving(data: Path, pid: int) -> dict:
    deadline = time.monotonic() + 180
    while True:
        st = _ping(data)
        if st and st.get("pid") == pid and st.get("semantic"):
            return st
        assert _alive(pid), (data / "logs" / "daemon.log").read_text()
        assert time.monotonic() < deadline, "the started daemon never served"
        time.sleep(0.3)


@pytest.fixture
def stores(tmp_path_factory) -> tuple[Path, Path]:
    """Twin stores (short paths: Unix socket paths are limited to ~104 bytes). Each hook
    counts as a use of the facts it injects, a write: the in-process side runs the same
    prompts on its own twin so both answer from the same state."""
    data = Path(tmp_path_factory.mktemp("a")) / "s"
    assert engram(data, "agent", "add", "claude").returncode == 0
    for fact in FACTS:
        r = engram(data, "remember", "--agent", "claude", fact, ENGRAM_NO_DAEMON="1")
        assert r.returncode == 0, r.stderr
    twin = Path(tmp_path_factory.mktemp("b")) / "s"
    shutil.copytree(data, twin)
    return data, twin


@pytest.fixture
def started():
    """Pids of daemons a test started: stopped after it, and checked gone."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in pids if _alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"daemons still running after SIGTERM: {left}"


def test_a_hook_with_no_daemon_starts_one_and_the_next_prompt_is_answered_by_it(stores, started):
    data, twin = stores
    first = hook(data, PROMPTS[0])
    got = re.search(r"no resident daemon answered: started one \(pid (\d+)\)", first.stderr)
    assert got, first.stderr
    pid = int(got.group(1))
    started.append(pid)
    assert FACTS[0] in first.stdout  # this prompt was answered in-process, with memory
    assert _wait_serving(data, pid)["pid"] == pid
    log = (data / "logs" / "daemon.log").read_text()
    assert f"pid {pid}; stops after 30 min without a request" in log

    second = hook(data, PROMPTS[1])
    assert f"answered by the resident daemon (pid {pid})" in second.stderr
    assert FACTS[1] in second.stdout

    # the same bytes as the in-process hook on the twin store, prompt for prompt
    alone = [hook(twin, p, ENGRAM_NO_DAEMON="1").stdout for p in PROMPTS]
    assert [first.stdout, second.stdout] == alone
    assert not (twin / "engram.sock").exists()  # ENGRAM_NO_DAEMON: nothing started

    # a second start while it serves: no second daemon, from a hook or by hand
    from app.daemon_autostart import start

    assert start(data) is None
    r = engram(data, "serve", "--keyword-only")
    assert r.returncode == 1 and "already serves" in r.stderr

    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while _alive(pid):
        assert time.monotonic() < deadline, "the daemon did not stop on SIGTERM"
        time.sleep(0.2)
    assert not (data / "engram.sock").exists() and _ping(data) is None


@pytest.mark.parametrize("how", ["setting", "environment"])
def test_the_auto_start_can_be_turned_off(stores, started, how):
    data, _ = stores
    env = {}
    if how == "setting":
        (data / "settings.json").write_text(json.dumps({"daemon": {"autostart": False}}))
    else:
        env["ENGRAM_DAEMON_AUTOSTART"] = "0"
    r = hook(data, PROMPTS[0], **env)
    assert "no resident daemon answered: none started" in r.stderr
    assert FACTS[0] in r.stdout
    assert not (data / "engram.sock").exists() and _ping(data) is None


def test_a_started_daemon_stops_after_its_idle_time(stores):
    data, _ = stores
    words = ["serve", "--keyword-only", "--idle-exit", "0.05"]  # 3 s without a request
    proc = start_engram(data, *words, drop=_DROP)
    try:
        _, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "idle for 0.05 min, stopping" in err
    assert not (data / "engram.sock").exists()


def test_the_user_service_waits_for_a_hook_started_daemon_instead_of_failing(stores):
    """The unit's `serve --wait-for-lock`: while a daemon a hook started holds the store's
    lock, the service's daemon waits (no exit 1, no restart every 5 s), then serves once
    that one has stopped."""
    from services.integrations.daemon import hold_lock

    data, _ = stores
    held = hold_lock(data)  # what a hook-started daemon holds while it serves
    assert held is not None
    words = ["serve", "--keyword-only", "--wait-for-lock"]
    proc = start_engram(data, *words, drop=_DROP)
    try:
        time.sleep(3)
        assert proc.poll() is None, proc.stderr.read()  # waiting, not failed
        assert _ping(data) is None
        os.close(held)  # the other daemon idles out
        deadline = time.monotonic() + 120
        while (_ping(data) or {}).get("pid") != proc.pid:
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the waiting daemon never served"
            time.sleep(0.3)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert proc.returncode == 0

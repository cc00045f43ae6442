"""Test servers die with the pytest worker that started them, even a worker killed with -9.

A worker killed by the timeout or by hand runs no fixture teardown, and an orphaned
PostgreSQL or ``chroma run`` kept its port, its memory and its temp dir until reboot; on a
2-core machine a few of those slow every later run. Two guards:

* the server is started in its own session with ``PR_SET_PDEATHSIG`` (SIGKILL), so the kernel
  kills it the moment the worker thread that started it is gone;
* a small watchdog process (``python -m tests.teamstore.reaper WORKER PGID ROOT``), detached
  from the worker, polls the worker's pid; when it disappears it kills the server's whole
  process group (PostgreSQL's backends, chroma's children) and removes the server's temp dir.
  When the group ends first (a normal stop, a pause) the watchdog just exits.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

PR_SET_PDEATHSIG = 1
POLL = 0.3


def die_with_parent(parent: int):
    """A ``preexec_fn``: the child gets SIGKILL when ``parent`` (the worker) dies. It runs
    after Popen's setuid, and the setting is kept across exec (it is cleared only by a change
    of credentials, which is why the server is no longer started through ``runuser``)."""

    def arm() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the worker died before the signal was armed
            os._exit(1)

    return arm


def spawn(
    cmd: list[str], log, root: Path, user: str | None = None, env: dict | None = None
) -> subprocess.Popen:
    """Start a server that dies with this process, and its watchdog."""
    ids: dict = {"env": env}
    if user:
        import pwd

        entry = pwd.getpwnam(user)
        # initdb/postgres refuse to run as root; extra_groups=[] drops root's groups
        ids = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    proc = subprocess.Popen(
        cmd,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=die_with_parent(os.getpid()),
        **ids,
    )
    watch(proc.pid, root)
    return proc


def watch(pgid: int, root: Path) -> subprocess.Popen:
    here = Path(__file__).resolve().parents[2]
    return subprocess.Popen(
        [sys.executable, "-m", "tests.teamstore.reaper", str(os.getpid()), str(pgid), str(root)],
        cwd=here,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a signal to the worker's group must not reach it
    )


def _alive(pid: int) -> bool:
    """A live process (a killed worker its parent has not reaped yet is a zombie: gone)."""
    return _answers(os.kill, pid) and _state(pid) != "Z"


def _group_alive(pgid: int) -> bool:
    return _answers(os.killpg, pgid)


def _answers(send, target: int) -> bool:
    try:
        send(target, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # there, but another user's
        return True
    return True


def _state(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[0]


def main(worker: int, pgid: int, root: str) -> None:
    while _alive(worker):
        if not _group_alive(pgid):
            if _alive(worker):  # stopped or paused by the worker: its dir is its own
                return
            break  # the kernel's PDEATHSIG was quicker than this poll
        time.sleep(POLL)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])

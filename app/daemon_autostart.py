"""A prompt hook that finds no resident daemon starts one, so the next prompt is fast without
a service manager (a container, WSL, CI, a user who stopped the user service).

Standard library only: this runs on the hook's path before any of Engram is imported. The
daemon is started detached (its own session, stdin closed, stdout and stderr appended to
``<data dir>/logs/daemon.log``), so the agent never waits on it; the prompt that started it is
answered in-process as before. The data dir's daemon lock is taken here and handed to the
child, which holds it while it serves: two prompts at once start one daemon. A daemon started
this way exits after ``idle_minutes`` without a request (a service manager's never does).

Off with ``ENGRAM_DAEMON_AUTOSTART=0`` in the environment, or in ``<data dir>/settings.json``:
``{"daemon": {"autostart": false}}``; ``"idle_minutes"`` there sets the idle time.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ENV_SWITCH = "ENGRAM_DAEMON_AUTOSTART"
LOCK_FD_ENV = "ENGRAM_SERVE_LOCK_FD"  # the lock's descriptor, inherited by the daemon
LOG_NAME = "daemon.log"
IDLE_MINUTES = 30.0
OFF = ("0", "off", "false", "no")


def _settings(data_dir: Path) -> dict:
    try:
        data = json.loads((data_dir / "settings.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    section = data.get("daemon") if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def enabled(data_dir: Path) -> bool:
    if os.environ.get(ENV_SWITCH, "").strip().lower() in OFF:
        return False
    return _settings(data_dir).get("autostart", True) is not False


def idle_minutes(data_dir: Path) -> float:
    value = _settings(data_dir).get("idle_minutes")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return IDLE_MINUTES


def serve_argv(data_dir: Path) -> list[str]:
    if getattr(sys, "frozen", False):
        words = [sys.executable]
    else:
        words = [sys.executable, "-m", "app.cli"]
    minutes = idle_minutes(data_dir)
    return [*words, "--data-dir", str(data_dir), "serve", "--idle-exit", f"{minutes:g}"]


def start(data_dir: Path) -> int | None:
    """The pid of the daemon started for ``data_dir``; None when none was (switched off, no
    such store, another one serves or is starting, the path is too long for a socket)."""
    from services.integrations.daemon import MAX_PATH, hold_lock, socket_path

    data_dir = Path(os.path.abspath(data_dir))
    if not data_dir.is_dir() or not enabled(data_dir):
        return None
    if len(os.fsencode(socket_path(data_dir))) > MAX_PATH:
        return None
    fd = hold_lock(data_dir)
    if fd is None:
        return None
    import subprocess

    try:
        logs = data_dir / "logs"
        logs.mkdir(mode=0o700, exist_ok=True)
        out = os.open(logs / LOG_NAME, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            proc = subprocess.Popen(
                serve_argv(data_dir),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,  # not in the agent's process group, not its child
                pass_fds=(fd,),
                env={**os.environ, LOCK_FD_ENV: str(fd)},
                cwd=Path(__file__).resolve().parents[1],  # where `app` imports from
            )
        finally:
            os.close(out)
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        os.close(fd)  # the child's copy keeps the lock
    return proc.pid

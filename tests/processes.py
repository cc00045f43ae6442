"""Engram run as a process of its own, as a user's shell or an agent's hook runs it: from the
checkout, with Chroma's telemetry off. Importing this module marks a test module `subprocess`
(tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_engram(
    module: str, *args: str, timeout: float | None = 120, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGS…` (app.cli or app.main), its output as text."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False", **env},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# what the suite sets for in-process runs and a user's shell does not have
SUITE_ONLY = ("ENGRAM_NO_DAEMON", "ENGRAM_HOME")


def user_env(*drop: str, **extra: str) -> dict[str, str]:
    """The environment of an Engram process a user or a hook starts: the suite's own settings
    (and ``drop``) removed, the checkout importable."""
    gone = (*SUITE_ONLY, *drop)
    env = {k: v for k, v in os.environ.items() if k not in gone}
    env.update(PYTHONPATH=str(ROOT), ANONYMIZED_TELEMETRY="False", **extra)
    return env


def engram_in(
    data: Path,
    *args: str,
    stdin: str = "",
    timeout: float = 180,
    drop: tuple[str, ...] = (),
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """`engram --data-dir DATA ARGS…` as a user's shell runs it, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(data), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=user_env(*drop, **env),
        cwd=ROOT,
        timeout=timeout,
    )


def start_engram(
    data: Path,
    *args: str,
    module: str = "app.cli",
    drop: tuple[str, ...] = (),
    stderr: int = subprocess.PIPE,
    **env: str,
) -> subprocess.Popen[str]:
    """`engram --data-dir DATA ARGS…` (a daemon, the app) left running; by default its stderr
    piped, as text, for the test's message when it dies (pass DEVNULL for a process the test
    does not read: a full pipe would block it). The caller stops it."""
    return subprocess.Popen(
        [sys.executable, "-m", module, "--data-dir", str(data), *args],
        env=user_env(*drop, **env),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
    )

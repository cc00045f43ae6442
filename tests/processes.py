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

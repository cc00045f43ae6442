"""GUI start-up: process start → first painted fact-browser page, and RSS then, measured by
the app itself (``python -m app.main --exit-after-first-paint``, offscreen)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run(data_dir: Path, timeout: float = 300) -> dict:
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ANONYMIZED_TELEMETRY="False")
    cmd = [
        sys.executable,
        "-m",
        "app.main",
        "--data-dir",
        str(data_dir),
        "--exit-after-first-paint",
    ]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=root, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"no first paint within {timeout:.0f} s"}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    err = (p.stderr or "").strip().splitlines()
    return {"error": "n/a: the app printed no first-paint line" + (f" ({err[-1]})" if err else "")}

"""The invariant harness (tests/harness), run longer than CI: many more random sequences,
a fresh random seed each run. CI runs the same files with a fixed budget and seed.

    python -m bench harness [--examples 5000] [--all]

``--examples`` is the total, split over the harness files; ``--all`` also runs the rules still in
``KNOWN_OPEN`` (what the harness catches before their fixes land)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "harness").glob("test_harness_*.py")
)


def run(examples: int = 5000, every_rule: bool = False, workers: int = 2) -> dict:
    per_file = -(-examples // len(FILES))
    env = dict(os.environ)
    env.update(
        ENGRAM_HARNESS_EXAMPLES=str(per_file),
        ENGRAM_HARNESS_RANDOM="1",  # a new seed each run: bench explores, CI reproduces
        ENGRAM_HARNESS_SHRINK="1",  # a failure is shrunk to its shortest sequence
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        QT_QPA_PLATFORM="offscreen",
    )
    if every_rule:
        env["ENGRAM_HARNESS_ALL"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "timeout=0"]
    if workers > 1:
        cmd += ["-n", str(workers), "--dist", "loadfile"]
    t0 = time.perf_counter()
    proc = subprocess.run([*cmd, *FILES], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = round(time.perf_counter() - t0, 1)
    tail = proc.stdout[-4000:]
    passed = re.search(r"(\d+) passed", tail)
    failed = re.search(r"(\d+) failed", tail)
    return {
        "files": FILES,
        "examples_per_file": per_file,
        "sequences": per_file * len(FILES),
        "every_rule": every_rule,
        "seconds": seconds,
        "passed": int(passed.group(1)) if passed else 0,
        "failed": int(failed.group(1)) if failed else 0,
        "returncode": proc.returncode,
        "violations": [
            ln for ln in proc.stdout.splitlines() if "Violation:" in ln or ln.startswith("E    ")
        ][:80],
    }


def table(r: dict) -> str:
    state = "0 violations" if r["returncode"] == 0 else f"{r['failed']} file(s) with violations"
    lines = [
        f"invariant harness: {r['sequences']} random sequences ({r['examples_per_file']} per file, "
        f"{len(r['files'])} files) in {r['seconds']} s: {state}"
    ]
    lines += r["violations"]
    return "\n".join(lines)

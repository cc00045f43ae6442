"""The ui/ type-check ratchet (run by ``make lint``): ui/ is not yet clean under mypy, so CI
holds its error count at the committed baseline and fails when it grows. Lower the baseline
when you fix some (the script says so); never raise it.

Usage: python tests/mypy_ratchet.py [--update]
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tests" / "mypy_ui_baseline.txt"
PACKAGE = "ui"


def error_count(output: str) -> int:
    """mypy's own summary line: "Found N errors in M files" or "Success: no issues found"."""
    m = re.search(r"^Found (\d+) errors? in \d+ files?", output, re.M)
    if m:
        return int(m.group(1))
    if re.search(r"^Success: no issues found", output, re.M):
        return 0
    raise RuntimeError(f"mypy gave no summary line:\n{output[-2000:]}")


def main(argv: list[str]) -> int:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", PACKAGE],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    now = error_count(run.stdout + run.stderr)
    if "--update" in argv:
        BASELINE.write_text(f"{now}\n", encoding="utf-8")
        print(f"mypy {PACKAGE}/: baseline set to {now}")
        return 0
    allowed = int(BASELINE.read_text(encoding="utf-8").split()[0])
    if now > allowed:
        print(run.stdout, end="")
        print(f"mypy {PACKAGE}/: {now} errors, more than the baseline {allowed}: fix the new ones")
        return 1
    if now < allowed:
        print(
            f"mypy {PACKAGE}/: {now} errors, fewer than the baseline {allowed}: "
            f"lower it (python tests/mypy_ratchet.py --update) and commit"
        )
    else:
        print(f"mypy {PACKAGE}/: {now} errors (baseline {allowed})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The harness's one real kill: `engram forget --fact ID --yes` is SIGKILLed at a random
moment of its run, Engram is opened again, the user runs the same forget again (if its fact
is still there), and the harness's invariants must hold (model.py)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.harness.model import EngramMachine

ROOT = Path(__file__).resolve().parents[2]


class _Store(EngramMachine):
    RULES = frozenset()


def _forget_cli(m: _Store, fid: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(m.root / "home"))
    cmd = [sys.executable, "-m", "app.cli", "--data-dir", str(m.data_dir)]
    cmd += ["forget", "--agent", "cc", "--fact", str(fid), "--yes"]
    return subprocess.Popen(
        cmd, cwd=m.root / "proj", env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_during_forget_then_run_again(seed):
    rng = random.Random(seed)
    m = _Store()
    try:
        fid, tok, _c = m.facts("cc")[rng.randrange(len(m.facts("cc")))]
        m.e.close()
        proc = _forget_cli(m, fid)
        time.sleep(rng.uniform(0.5, 4.0))  # the CLI starts, loads the model, then forgets
        proc.send_signal(signal.SIGKILL)
        said = proc.communicate(timeout=30)[0].decode(errors="replace")
        m.e = m._open()
        before = m._receipts()
        still = any(f == fid for f, _t, _ in m.facts("cc", status=None))
        if still:  # what the user does after a crash: the same forget again
            m._cli("forget", "--agent", "cc", "--fact", str(fid), "--yes", ok=(0, 1))
        m._erase([tok], f"forget fact {fid} SIGKILLed (rc {proc.returncode}), run again", before)
        m.invariants_hold()
        assert proc.returncode in (-signal.SIGKILL, 0, 1), said
    finally:
        m.teardown()

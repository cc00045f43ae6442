"""Issue #30, finding 6: a forget killed (SIGKILL) at a step is finished by the next forget
command. The plan is journaled (0600, in the data dir) before the first change and the receipt
says "incomplete" until the end; `forget --verify` never says ok while a journal is pending.
The forget runs as the user's CLI in a child process that kills itself at the named step
(ENGRAM_TEST_KILL_AT, a test-only hook in services/forget/journal.py); the checks read the
raw bytes of every file under the data dir (engram.db, chroma.sqlite3, the journal)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from services.forget import isolated

ROOT = Path(__file__).resolve().parents[2]
PET = "My secret pet is named Quetzalcoatlus Borogove"
WORD = "Quetzalcoatlus"

pytestmark = pytest.mark.slow  # child processes and kills


@pytest.fixture
def store(cli, tmp_path):
    d = tmp_path / "cli-store"  # the one the `cli` fixture uses
    assert cli("remember", "--agent", "claude", "--create-agent", PET)[0] == 0
    assert cli("remember", "--agent", "claude", "Prefers pnpm over npm")[0] == 0
    return d


def _killed_forget(d: Path, step: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), ENGRAM_TEST_KILL_AT=step)
    env["ANONYMIZED_TELEMETRY"] = "False"
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(d), "forget", "--agent", "claude",
         "--matching", WORD, "--keyword-only", "--yes"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr


def _hits(d: Path) -> list:
    return isolated.raw_hits([d], [WORD])


def _receipt(cli) -> dict:
    rc, out, _ = cli("receipts", "--json")
    recs = json.loads(out)
    assert rc == 0 and len(recs) == 1
    return recs[0]


@pytest.mark.parametrize("step", ["vectors", "compact"])
def test_killed_forget_is_journaled_and_the_next_forget_finishes_it(store, cli, step):
    _killed_forget(store, step)
    journal = store / "forget-journal.json"
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600
    assert any(f.endswith(("chroma.sqlite3", "engram.db")) for f, _ in _hits(store))
    assert "incomplete" in _receipt(cli)["counts"], "the receipt must not look complete"
    rc, out, err = cli("forget", "--agent", "claude", "--matching", "pnpm", "--yes")
    assert rc == 0, out + err
    assert "finished an interrupted forget" in err
    assert _hits(store) == [], "the text is still in the store's files"
    assert not journal.exists()
    rc, out, _ = cli("receipts", "--json")
    first = [r for r in json.loads(out) if r["id"] == 1][0]["counts"]
    assert "incomplete" not in first and first["remaining_after_verify"] == 0
    assert first["facts"] == 1
    rc, out, _ = cli("list", "--agent", "claude")
    assert "Borogove" not in out


def test_verify_finishes_the_journaled_plan_first(store, cli):
    _killed_forget(store, "rows")
    rc, out, err = cli("forget", "--verify", WORD)
    assert rc == 0 and "nothing remains" in out, out + err
    assert "finished an interrupted forget" in err
    assert _hits(store) == []
    assert "incomplete" not in _receipt(cli)["counts"]


def test_verify_never_says_ok_while_a_journal_is_pending(store, cli):
    from filelock import FileLock

    _killed_forget(store, "compact")
    # the journal's forget still running elsewhere (its lock held): nothing may finish it
    with FileLock(str(store / ".forget.lock")):
        rc, out, _ = cli("forget", "--verify", WORD)
        assert rc == 1 and "interrupted forget is not finished" in out, out
        rc, out, _ = cli("forget", "--verify", "something never stored")
        assert rc == 1 and "nothing remains" not in out
    rc, out, _ = cli("forget", "--verify", WORD)
    assert rc == 0 and "nothing remains" in out

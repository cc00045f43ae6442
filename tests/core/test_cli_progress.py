"""Long CLI jobs on a terminal: a progress bar for the person watching, none for a pipe or
`--json`, and Ctrl+C keeps whole batches and says how many facts were kept."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _rules(folder: Path, files: int, per_file: int) -> Path:
    rules = folder / "proj" / ".cursor" / "rules"
    rules.mkdir(parents=True)
    for i in range(files):
        lines = "".join(
            f"- Rule {i}-{j}: keep module {i} and helper {j} under review weekly.\n"
            for j in range(per_file)
        )
        (rules / f"r{i:03}.mdc").write_text(f"---\nalwaysApply: true\n---\n{lines}")
    return rules


def _spawn(data: Path, *args: str) -> tuple[subprocess.Popen, int]:
    """The CLI with stdout and stderr on a pseudo-terminal, as in a person's shell."""
    master, slave = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "--data-dir", str(data), *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=ROOT,
    )
    os.close(slave)
    return proc, master


def _read_all(master: int, until=None, proc=None) -> str:
    chunks: list[bytes] = []
    while True:
        try:
            b = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not b:
            break
        chunks.append(b)
        if until is not None and until(b"".join(chunks).decode(errors="replace")):
            until = None
            proc.send_signal(signal.SIGINT)
    os.close(master)
    return b"".join(chunks).decode(errors="replace")


def _facts(data: Path, agent: str, capsys) -> list:
    from app.cli import main

    capsys.readouterr()
    rc = main(["--data-dir", str(data), "list", "--agent", agent, "--json", "--status", "all"])
    out = capsys.readouterr().out
    return json.loads(out) if rc == 0 else []


def test_import_of_a_folder_shows_progress_on_a_terminal(tmp_path):
    rules = _rules(tmp_path, files=6, per_file=4)
    data = tmp_path / "store"
    data.mkdir(mode=0o700)
    proc, master = _spawn(data, "import", "--agent", "cur", str(rules))
    out = _read_all(master)
    assert proc.wait(timeout=120) == 0, out
    # the bar names the job and counts the facts stored (tqdm: "import …: 100%|…| 24/24")
    assert re.search(r"import rules: .*24/24", out), out
    assert "added 24" in out


def test_import_with_json_on_a_terminal_prints_only_json(tmp_path):
    rules = _rules(tmp_path, files=6, per_file=4)
    data = tmp_path / "store"
    data.mkdir(mode=0o700)
    proc, master = _spawn(data, "import", "--agent", "cur", str(rules), "--json")
    out = _read_all(master)
    assert proc.wait(timeout=120) == 0, out
    assert "24/24" not in out and "\r" not in out.replace("\r\n", "\n")
    assert json.loads(out)["added"] == 24


def test_import_piped_has_no_progress(tmp_path):
    rules = _rules(tmp_path, files=3, per_file=2)
    data = tmp_path / "store"
    data.mkdir(mode=0o700)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "--data-dir",
            str(data),
            "import",
            "--agent",
            "cur",
            str(rules),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == "" and "6/6" not in run.stdout and "added 6" in run.stdout


@pytest.mark.slow  # 520 facts embedded on a loaded 2-core machine: ~45 s
def test_ctrl_c_keeps_whole_batches_and_says_what_was_kept(tmp_path, capsys):
    rules = _rules(tmp_path, files=13, per_file=40)  # 520 facts: two batches (500 + 20)
    data = tmp_path / "store"
    data.mkdir(mode=0o700)
    proc, master = _spawn(data, "import", "--agent", "cur", str(rules))
    # Ctrl+C as soon as the bar is up (parsing and embedding of 520 facts are still ahead)
    out = _read_all(master, until=lambda text: "import " in text, proc=proc)
    rc = proc.wait(timeout=120)
    assert rc == 130, out
    kept = int(re.search(r"interrupted: kept (\d+) new fact", out).group(1))
    stored = _facts(data, "cur", capsys)
    assert len(stored) == kept and kept % 500 == 0  # whole transactions, nothing half stored
    assert "Traceback" not in out
    # running it again finishes the job: nothing twice
    proc, master = _spawn(data, "import", "--agent", "cur", str(rules))
    out = _read_all(master)
    assert proc.wait(timeout=120) == 0, out
    assert len(_facts(data, "cur", capsys)) == 520


def test_migrate_shows_progress_on_a_terminal_and_none_with_json(tmp_path, capsys):
    rules = _rules(tmp_path, files=3, per_file=2)
    data = tmp_path / "store"
    data.mkdir(mode=0o700)
    proc, master = _spawn(data, "import", "--agent", "cur", str(rules))
    assert proc.wait(timeout=120) == 0, _read_all(master)
    _read_all(master)
    # rows then vectors: each of the 6 facts counts twice
    proc, master = _spawn(data, "migrate", "--to", str(tmp_path / "copy"))
    out = _read_all(master)
    assert proc.wait(timeout=120) == 0, out
    assert re.search(r"migrate: .*12/12", out), out
    assert "cur: copied (" in out
    assert len(_facts(tmp_path / "copy", "cur", capsys)) == 6
    proc, master = _spawn(data, "migrate", "--to", str(tmp_path / "copy2"), "--json")
    out = _read_all(master)
    assert proc.wait(timeout=120) == 0, out
    assert "12/12" not in out and "cur" in json.loads(out)["copied"]

"""`engram completion bash|zsh`: the script a shell loads, checked in a real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(shell: str, tmp_path) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "completion", shell],
        capture_output=True, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "ENGRAM_HOME": str(tmp_path / "h")},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return run.stdout


def _complete(script: Path, *words: str) -> list[str]:
    """What bash offers after the words typed so far (the last one is being completed)."""
    cmd = (
        f"source {script}; COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}; "
        '_shtab_engram; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_commands_options_and_choices(tmp_path):
    script = tmp_path / "engram.bash"
    script.write_text(_script("bash", tmp_path))
    assert _complete(script, "engram", "ba") == ["backup"]
    assert "--agent" in _complete(script, "engram", "list", "--ag")
    assert _complete(script, "engram", "agent", "add", "x", "--kind", "cl") == [
        "claude-code",
        "cline",
    ]
    assert not (tmp_path / "h").exists()  # printing a script opens no store


def test_zsh_script_defines_the_engram_completion(tmp_path):
    text = _script("zsh", tmp_path)
    assert text.startswith("#compdef engram")
    assert "backup" in text and "restore" in text and "--agent" in text

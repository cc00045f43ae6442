"""The real agents' own CLIs (npm: @anthropic-ai/claude-code, @openai/codex,
@google/gemini-cli, opencode-ai) list and connect to the servers `engram hooks install`
registered, on a fake $HOME, after other registrations were installed and one removed.
Skipped where a CLI is not installed; they run offline for `mcp list`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIS = {"claude-code": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}
pytestmark = pytest.mark.slow


def engram(home: Path, store: Path, *argv: str) -> None:
    env = {**os.environ, "ENGRAM_HOME": str(store), "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, "-m", "app.cli", *argv, "--home", str(home), "--mcp-only", "--yes"],
        env=env, capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr


def agent_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        NO_COLOR="1",
    )
    return env


@pytest.mark.parametrize("target", sorted(CLIS))
def test_the_agents_own_cli_connects_to_engram(tmp_path, target):
    exe = shutil.which(CLIS[target])
    if exe is None:
        pytest.skip(f"{CLIS[target]} is not installed (npm i -g ...)")
    home, store, cwd = tmp_path / "home", tmp_path / "store", tmp_path / "work"
    cwd.mkdir()
    (home / ".gemini").mkdir(parents=True)
    # Gemini CLI starts no stdio server in a folder the user has not trusted
    (home / ".gemini" / "trustedFolders.json").write_text(f'{{"{cwd}": "TRUST_FOLDER"}}')
    for slug in ("work", "home", "oss"):
        engram(home, store, "hooks", "install", target, "--agent", slug)
    engram(home, store, "hooks", "uninstall", target, "--agent", "home")
    res = subprocess.run(
        [exe, "mcp", "list"], env=agent_env(home), cwd=cwd, capture_output=True, text=True,
        timeout=240, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    out = res.stdout + res.stderr
    lines = {name: [ln for ln in out.splitlines() if name in ln] for name in ("work", "oss")}
    for slug, found in lines.items():
        assert found, f"engram-{slug} not listed by {CLIS[target]}:\n{out}"
        if target != "codex":  # codex lists without connecting
            line = found[0].lower()
            assert "connected" in line and "disconnected" not in line, out
    assert "engram-home" not in out


def test_claude_session_end_hook_is_quiet_on_mcp_list(tmp_path):
    """Claude Code fires SessionEnd for `claude mcp list` (no transcript): the installed hook
    has nothing to do, says so in hook.log and nothing in Claude's output."""
    exe = shutil.which("claude")
    if exe is None:
        pytest.skip("claude is not installed (npm i -g @anthropic-ai/claude-code)")
    home, store, cwd = tmp_path / "home", tmp_path / "store", tmp_path / "work"
    cwd.mkdir()
    env = {**os.environ, "ENGRAM_HOME": str(store), "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, "-m", "app.cli", "hooks", "install", "claude-code", "--home", str(home),
         "--yes"],
        env=env, capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    res = subprocess.run(
        [exe, "mcp", "list"], env=agent_env(home), cwd=cwd, capture_output=True, text=True,
        timeout=240, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert res.returncode == 0 and "error" not in (res.stdout + res.stderr).lower()
    assert "nothing to do (no transcript)" in (store / "hook.log").read_text()

"""The real agents' own CLIs (npm: @anthropic-ai/claude-code, @openai/codex,
@google/gemini-cli, opencode-ai, pinned in tests/agent-clis and installed there by `make test`)
on a fake $HOME, offline and logged out: each lists and connects to the servers
`engram hooks install` registered, within its own default timeout; installing and uninstalling
gives back, byte for byte, the config the CLI itself wrote; Claude Code's SessionEnd hook is
quiet when there is no transcript. Skipped, naming what is missing, only where npm is."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.file_tree import snapshot

ROOT = Path(__file__).resolve().parents[2]
PINNED = ROOT / "tests" / "agent-clis"
CLIS = {"claude-code": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}
PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
    "opencode": "opencode-ai",
}
# the CLIs' own knobs for how long they wait for a server: unset, so their defaults apply
TIMEOUT_VARS = ("MCP_TIMEOUT", "MCP_TOOL_TIMEOUT")
GUARD = 240  # only against a hung CLI; each one answers in seconds
pytestmark = pytest.mark.slow


def agent_cli(name: str) -> str:
    """The pinned CLI `make test` installed (else one on PATH); a skip that names what is
    missing where it is not installed. On CI with npm present a missing CLI is a failure:
    `make test` should have installed it."""
    pinned = PINNED / "node_modules" / ".bin" / name
    if pinned.exists():
        return str(pinned)
    found = shutil.which(name)
    if found:
        return found
    if shutil.which("npm") is None:
        pytest.skip(f"{name} is not installed and npm is not on PATH to install {PACKAGES[name]}")
    why = (
        f"{name} is not installed: `make agent-clis` installs {PACKAGES[name]} "
        f"(pinned in {PINNED.relative_to(ROOT)}/package.json) with npm"
    )
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def engram(home: Path, store: Path, *argv: str) -> str:
    env = {**os.environ, "ENGRAM_HOME": str(store), "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, "-m", "app.cli", *argv, "--home", str(home), "--yes"],
        env=env, capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    return res.stdout


def agent_env(home: Path) -> dict:
    """The agent's world: a fresh $HOME, no API keys (no login needed), its default
    timeouts, and the Engram under test importable by the server it starts."""
    dropped = [k for k in os.environ if k.startswith(("ENGRAM_", "XDG_")) or k in TIMEOUT_VARS]
    dropped += [k for k in os.environ if k.endswith("_API_KEY")]
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        NO_COLOR="1",
        PYTHONPATH=str(ROOT),
    )
    return env


def agent(exe: str, home: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [exe, *argv], env=agent_env(home), cwd=cwd, capture_output=True, text=True,
        timeout=GUARD, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def fake_home(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, store, cwd = tmp_path / "home", tmp_path / "store", tmp_path / "work"
    cwd.mkdir()
    (home / ".gemini").mkdir(parents=True)
    # Gemini CLI starts no stdio server in a folder the user has not trusted
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(cwd): "TRUST_FOLDER"}))
    return home, store, cwd


SERVERS = ("engram-work", "engram-home", "engram-oss", "engram-bot", "mine")


def line_of(out: str, server: str) -> str | None:
    """The line of a `mcp list` that names ``server`` (colour codes dropped)."""
    name = re.compile(rf"(?<![\w-]){re.escape(server)}(?![\w-])")
    for ln in re.sub(r"\x1b\[[0-9;]*m", "", out).splitlines():
        if name.search(ln):
            return ln
    return None


def is_connected(line: str) -> bool:
    low = line.lower()
    return "connected" in low and "disconnected" not in low and "failed" not in low


def codex_servers(exe: str, home: Path, cwd: Path) -> dict[str, dict]:
    """`codex mcp list` only reads the config: what Codex connects to is asked of its app
    server (`mcpServerStatus/list`, the panel of its IDE clients), which starts each server."""
    proc = subprocess.Popen(
        [exe, "app-server"], env=agent_env(home), cwd=cwd, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:  # a thread, so a silent app server fails the test instead of hanging it
        for ln in proc.stdout:
            lines.put(ln)

    threading.Thread(target=read, daemon=True).start()

    def ask(rid: int, method: str, params: dict) -> dict:
        proc.stdin.write(json.dumps({"id": rid, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            msg = json.loads(lines.get(timeout=GUARD))
            if msg.get("id") == rid:
                assert "result" in msg, msg
                return msg["result"]

    try:
        ask(1, "initialize", {"clientInfo": {"name": "engram-tests", "version": "1"}})
        proc.stdin.write(json.dumps({"method": "initialized"}) + "\n")
        found = ask(2, "mcpServerStatus/list", {"detail": "toolsAndAuthOnly"})
        return {s["name"]: s for s in found["data"]}
    finally:
        proc.stdin.close()  # end of input: Codex stops the servers it started, then itself
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def connected(target: str, exe: str, home: Path, cwd: Path) -> tuple[dict[str, bool], str]:
    """Each server the agent lists → whether it connected, and what the agent printed."""
    if target == "codex":
        servers = codex_servers(exe, home, cwd)
        return {
            name: bool(s.get("serverInfo")) and not s.get("toolsError") and bool(s["tools"])
            for name, s in servers.items()
        }, json.dumps(servers, indent=1)[:4000]
    res = agent(exe, home, cwd, "mcp", "list")
    out = res.stdout + res.stderr
    lines = {name: line_of(out, name) for name in SERVERS}
    return {name: is_connected(ln) for name, ln in lines.items() if ln is not None}, out


@pytest.mark.parametrize("target", sorted(CLIS))
def test_the_agents_own_cli_connects_to_engram(tmp_path, target):
    exe = agent_cli(CLIS[target])
    home, store, cwd = fake_home(tmp_path)
    for slug in ("work", "home", "oss"):
        engram(home, store, "hooks", "install", target, "--agent", slug, "--mcp-only")
    engram(home, store, "hooks", "uninstall", target, "--agent", "home", "--mcp-only")
    seen, out = connected(target, exe, home, cwd)
    assert seen.get("engram-work") is True, f"engram-work not connected in {target}: {seen}\n{out}"
    assert seen.get("engram-oss") is True, f"engram-oss not connected in {target}: {seen}\n{out}"
    assert "engram-home" not in seen, out


# the user's own server as each CLI's `mcp add` writes it (opencode's is interactive only:
# its file is written as its docs show)
MINE = ["mine-mcp", "--read-only"]
ADD = {
    "claude": ["mcp", "add", "-s", "user", "mine", "--", *MINE],
    "codex": ["mcp", "add", "mine", "--", *MINE],
    "gemini": ["mcp", "add", "-s", "user", "mine", *MINE],
}
OPENCODE = (
    '{\n  "$schema": "https://opencode.ai/config.json",\n'
    '  "mcp": {\n    "mine": {"type": "local", "command": ["mine-mcp", "--read-only"]}\n  }\n}\n'
)


@pytest.mark.parametrize("target", sorted(CLIS))
def test_install_and_uninstall_give_back_the_config_the_cli_wrote(tmp_path, target):
    exe = agent_cli(CLIS[target])
    home, store, cwd = fake_home(tmp_path)
    if target == "opencode":
        cfg = home / ".config" / "opencode" / "opencode.json"
        cfg.parent.mkdir(parents=True)
        cfg.write_text(OPENCODE)
    else:
        res = agent(exe, home, cwd, *ADD[CLIS[target]])
        assert res.returncode == 0, res.stdout + res.stderr
    before = snapshot(home)

    engram(home, store, "hooks", "install", target, "--agent", "bot")
    assert snapshot(home) != before
    engram(home, store, "hooks", "uninstall", target, "--agent", "bot")
    assert snapshot(home) == before, "every byte the CLI wrote, and nothing more"

    engram(home, store, "hooks", "install", target, "--agent", "bot")
    seen, out = connected(target, exe, home, cwd)
    # the user's server names a program that does not exist: listed, never counted connected
    assert seen.get("engram-bot") is True and seen.get("mine") is False, f"{seen}\n{out}"
    engram(home, store, "hooks", "uninstall", target, "--agent", "bot")
    seen, out = connected(target, exe, home, cwd)
    assert "engram-bot" not in seen and "mine" in seen, f"{seen}\n{out}"


def test_claude_session_end_hook_is_quiet_on_mcp_list(tmp_path):
    """Claude Code fires SessionEnd for `claude mcp list` (no transcript): the installed hook
    has nothing to do, says so in hook.log and nothing in Claude's output."""
    exe = agent_cli("claude")
    home, store, cwd = fake_home(tmp_path)
    engram(home, store, "hooks", "install", "claude-code")
    res = agent(exe, home, cwd, "mcp", "list")
    assert res.returncode == 0 and "error" not in (res.stdout + res.stderr).lower()
    assert "nothing to do (no transcript)" in (store / "hook.log").read_text()

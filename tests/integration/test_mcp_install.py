"""`engram hooks install|uninstall <agent>` registering Engram's MCP server in each agent's own
config on a fake $HOME, through the real CLI: the user's entries stay, installing twice adds
nothing, uninstall gives back every byte, files that do not parse are refused untouched, and
the config-editing cases from the trust review (symlinked, read-only, odd numbers, a write
that fails half-way)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tomllib

import pytest

from app.cli import main as cli
from services.integrations.hooks_install import mcp_registrations
from tests.file_tree import snapshot

# what a user already has in each file (odd spacing, their own servers, numbers as written)
CONFIGS = {
    "claude-code": (
        ".claude.json",
        b'{\n  "numStartups": 42,\n  "tipsHistory": {"memory": 3},\n  "mcpServers": {\n'
        b'    "github": {"type": "stdio", "command": "gh-mcp", "args": [], "env": {}}\n  },\n'
        b'  "maxOutput": 1e999\n}',
    ),
    "codex": (
        ".codex/config.toml",
        b'# my codex setup\nmodel = "o4-mini"  # fast\n\n[mcp_servers.github]\ncommand = "gh-mcp"\n'
        b'args = ["--read-only"]\n\n[profiles.deep]\nmodel = "o3"\n',
    ),
    "cursor": (
        ".cursor/mcp.json",
        b'{"mcpServers": {"linear": {"url": "https://mcp.linear.app/sse"}}}\n',
    ),
    "gemini": (
        ".gemini/settings.json",
        b'{\n\t"theme": "GitHub",\n\t"mcpServers": {\n\t\t"fs": {"command": "fs-mcp"}\n\t}\n}\n',
    ),
    "opencode": (
        ".config/opencode/opencode.json",
        b'{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "anthropic/claude",\n'
        b'  "mcp": {"jira": {"type": "remote", "url": "https://jira.example/mcp"}}\n}\n',
    ),
}
USER_SERVER = {
    "claude-code": "github",
    "codex": "github",
    "cursor": "linear",
    "gemini": "fs",
    "opencode": "jira",
}


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = cli(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def hooks(capsys, data, action, target, home, *extra):
    return run(
        capsys,
        "--data-dir",
        str(data),
        "hooks",
        action,
        target,
        "--agent",
        "bot",
        "--home",
        str(home),
        "--mcp-only",
        *extra,
    )


def servers(target: str, raw: bytes) -> dict:
    if target == "codex":
        return tomllib.loads(raw.decode())["mcp_servers"]
    data = json.loads(raw)
    return data["mcp" if target == "opencode" else "mcpServers"]


@pytest.mark.parametrize("target", sorted(CONFIGS))
def test_register_beside_the_users_servers_and_restore_every_byte(tmp_path, capsys, target):
    home, data = tmp_path / "home", tmp_path / "data"
    rel, original = CONFIGS[target]
    cfg = home / rel
    cfg.parent.mkdir(parents=True)
    cfg.write_bytes(original)
    before = snapshot(home)

    rc, out, _ = hooks(capsys, data, "install", target, home)
    assert rc == 0 and "--yes" in out and "engram" in out
    assert snapshot(home) == before, "the plan alone writes nothing"

    rc, out, _ = hooks(capsys, data, "install", target, home, "--yes")
    assert rc == 0
    raw = cfg.read_bytes()
    got = servers(target, raw)
    assert set(got) == {USER_SERVER[target], "engram-bot"}
    assert got[USER_SERVER[target]] == servers(target, original)[USER_SERVER[target]]
    ours = got["engram-bot"]
    argv = ours["command"] if target == "opencode" else [ours["command"], *ours["args"]]
    assert argv[-3:] == ["mcp", "--agent", "bot"]
    assert "--data-dir" in argv and str(data.resolve()) in argv
    if target == "opencode":
        assert ours["type"] == "local" and ours["enabled"] is True
    if target == "claude-code":
        assert b'"maxOutput": 1e999' in raw, "numbers stay as the user wrote them"
    if target == "codex":
        assert raw.startswith(original), "TOML is appended to, not rewritten"
    [backup] = list(cfg.parent.glob(f"{cfg.name}.engram-bak-*"))
    assert backup.read_bytes() == original
    regs = mcp_registrations(data)
    assert regs == {"bot": [{"target": target, "path": str(cfg), "present": True}]}

    installed = snapshot(home)
    rc, out, _ = hooks(capsys, data, "install", target, home, "--yes")
    assert "nothing to change" in out and snapshot(home) == installed

    rc, out, _ = hooks(capsys, data, "uninstall", target, home, "--yes")
    assert rc == 0 and snapshot(home) == before
    assert mcp_registrations(data) == {}
    rc, out, _ = hooks(capsys, data, "uninstall", target, home, "--yes")
    assert rc == 0 and "nothing to change" in out and snapshot(home) == before


@pytest.mark.parametrize("target", sorted(CONFIGS))
def test_into_an_empty_home_and_back_out(tmp_path, capsys, target):
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    hooks(capsys, data, "install", target, home, "--yes")
    cfg = home / CONFIGS[target][0]
    assert "engram-bot" in servers(target, cfg.read_bytes())
    hooks(capsys, data, "uninstall", target, home, "--yes")
    assert snapshot(home) == {}, "made files and the directories made for them are gone"


def test_uninstall_after_the_agent_rewrote_its_config_removes_only_engram(tmp_path, capsys):
    """Claude Code rewrites ~/.claude.json all the time: uninstall cannot restore old bytes,
    it takes out only Engram's entry and keeps everything the agent and the user wrote."""
    home, data = tmp_path / "home", tmp_path / "data"
    cfg = home / ".claude.json"
    home.mkdir()
    cfg.write_bytes(CONFIGS["claude-code"][1])
    hooks(capsys, data, "install", "claude-code", home, "--yes")
    cfg.write_bytes(cfg.read_bytes().replace(b'"numStartups": 42', b'"numStartups": 43'))
    rc, out, _ = hooks(capsys, data, "uninstall", "claude-code", home, "--yes")
    assert rc == 0 and "changed since install" in out
    raw = cfg.read_bytes()
    assert raw == CONFIGS["claude-code"][1].replace(b"42", b"43")


def test_codex_reinstall_replaces_its_own_table_only(tmp_path, capsys):
    home = tmp_path / "home"
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_bytes(CONFIGS["codex"][1])
    hooks(capsys, tmp_path / "d1", "install", "codex", home, "--yes")
    hooks(capsys, tmp_path / "d2", "install", "codex", home, "--yes")  # another store
    text = cfg.read_text()
    assert text.count("[mcp_servers.engram-bot]") == 1
    assert str((tmp_path / "d2").resolve()) in text and str(tmp_path / "d1") not in text
    assert tomllib.loads(text)["profiles"]["deep"]["model"] == "o3"


@pytest.mark.parametrize(
    ("target", "bad", "word"),
    [
        ("claude-code", b'{"mcpServers": {}, // mine\n}', "not valid JSON"),
        ("cursor", b'{"mcpServers": {"a": 1,}}', "not valid JSON"),
        ("gemini", b"\xff\xfe{}", "not UTF-8"),
        ("codex", b'model = "o3\n[mcp_servers', "not valid TOML"),
        ("codex", b'mcp_servers = { engram-bot = { command = "mine" } }\n', "inline"),
        ("cursor", b'{"mcpServers": ["not", "an", "object"]}', "not an object"),
    ],
)
def test_a_config_that_does_not_parse_is_refused_untouched(tmp_path, capsys, target, bad, word):
    home = tmp_path / "home"
    cfg = home / CONFIGS[target][0]
    cfg.parent.mkdir(parents=True)
    cfg.write_bytes(bad)
    before = snapshot(home)
    rc, _, err = hooks(capsys, tmp_path / "data", "install", target, home, "--yes")
    assert rc == 1 and word in err and str(cfg) in err
    assert len(err.strip().splitlines()) == 1
    assert cfg.read_bytes() == bad and snapshot(home) == before, "no backup, no temp file"


# finding 7 of the trust review -------------------------------------------------------------
def test_a_symlinked_settings_json_stays_a_symlink(tmp_path, capsys):
    """Dotfile managers keep ~/.gemini/settings.json as a link into a repo: install writes the
    target, uninstall restores the target's bytes, and the link is a link throughout."""
    home, dots = tmp_path / "home", tmp_path / "dotfiles"
    dots.mkdir()
    target = dots / "gemini-settings.json"
    target.write_bytes(CONFIGS["gemini"][1])
    link = home / ".gemini" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)

    hooks(capsys, tmp_path / "data", "install", "gemini", home, "--yes")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "engram-bot" in json.loads(target.read_bytes())["mcpServers"]
    hooks(capsys, tmp_path / "data", "uninstall", "gemini", home, "--yes")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == CONFIGS["gemini"][1]
    assert not list(link.parent.glob("*.engram-bak-*"))


def test_a_dangling_symlink_is_not_deleted(tmp_path, capsys):
    home, dots = tmp_path / "home", tmp_path / "dotfiles"
    dots.mkdir()
    target = dots / "cursor-mcp.json"  # not there yet: the link dangles
    link = home / ".cursor" / "mcp.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)

    hooks(capsys, tmp_path / "data", "install", "cursor", home, "--yes")
    assert link.is_symlink() and "engram-bot" in json.loads(target.read_bytes())["mcpServers"]
    hooks(capsys, tmp_path / "data", "uninstall", "cursor", home, "--yes")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert not target.exists(), "the target Engram created is gone, the link stays"


def test_a_read_only_config_is_refused_with_a_clear_message(tmp_path, capsys):
    home = tmp_path / "home"
    cfg = home / ".gemini" / "settings.json"
    cfg.parent.mkdir(parents=True)
    cfg.write_bytes(CONFIGS["gemini"][1])
    cfg.chmod(0o444)
    rc, _, err = hooks(capsys, tmp_path / "data", "install", "gemini", home, "--yes")
    assert rc == 1 and "read-only" in err and "chmod u+w" in err
    assert cfg.read_bytes() == CONFIGS["gemini"][1]
    assert stat.S_IMODE(cfg.stat().st_mode) == 0o444
    assert not list(cfg.parent.glob("*.engram-bak-*"))


def test_claude_settings_numbers_round_trip_as_written(tmp_path, capsys):
    """The hook install edits ~/.claude/settings.json minimally: 1e999 (which Python's json
    would turn into Infinity, not JSON), 1.50 and the user's spacing stay byte for byte."""
    home, data = tmp_path / "home", tmp_path / "data"
    s = home / ".claude" / "settings.json"
    s.parent.mkdir(parents=True)
    raw = b'{\n  "cleanupPeriodDays": 1e999,\n  "ratio": 1.50,\n  "env": {"A":"1"}\n}\n'
    s.write_bytes(raw)
    run(capsys, "--data-dir", str(data), "hooks", "install", "claude-code", "--home", str(home),
        "--no-mcp", "--yes")  # fmt: skip
    after = s.read_bytes()
    assert b'"cleanupPeriodDays": 1e999,\n  "ratio": 1.50,\n  "env": {"A":"1"}' in after
    assert "SessionEnd" in json.loads(after)["hooks"]
    run(capsys, "--data-dir", str(data), "hooks", "uninstall", "claude-code", "--home",
        str(home), "--no-mcp", "--yes")  # fmt: skip
    assert s.read_bytes() == raw


def test_a_failed_install_leaves_no_stray_backup(tmp_path, capsys):
    """An immutable file (chattr +i) cannot be replaced: the install stops with a message,
    the files it already wrote are put back and the backups it made are removed."""
    home, data = tmp_path / "home", tmp_path / "data"
    (home / ".claude").mkdir(parents=True)
    settings = home / ".claude" / "settings.json"
    settings.write_bytes(b'{"model": "opus"}\n')
    md = home / ".claude" / "CLAUDE.md"
    md.write_bytes(b"# Me\n")
    if subprocess.run(["chattr", "+i", str(md)], capture_output=True).returncode != 0:
        pytest.skip("this filesystem (or user) cannot make a file immutable")
    try:
        before = snapshot(home)
        rc, _, err = run(
            capsys, "--data-dir", str(data), "hooks", "install", "claude-code", "--home",
            str(home), "--no-mcp", "--yes",
        )  # fmt: skip
        assert rc == 1 and "nothing was changed" in err and "CLAUDE.md" in err
        assert snapshot(home) == before, "settings.json put back, no backup left"
        assert mcp_registrations(data) == {}
    finally:
        subprocess.run(["chattr", "-i", str(md)], check=False)

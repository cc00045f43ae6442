"""Engram installed into several agents (and several Engram agents into one agent's config),
through the real CLI on a fake $HOME: every registration has its own name, removing one
leaves the others registered and gives the user's file back byte for byte, comments in the
JSONC configs Gemini CLI and OpenCode read survive, the store the user installed with is
pinned, and each agent gets the start-up window it supports."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from app.cli import main as cli
from services.integrations.config_edit import strip_jsonc

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ("claude-code", "codex", "gemini", "opencode", "cursor")
# what a user already has: their own servers, comments where the agent accepts them
USER_FILES = {
    "claude-code": (
        ".claude.json",
        b'{\n  "numStartups": 7,\n  "mcpServers": {\n    "github": {"type": "stdio", '
        b'"command": "gh-mcp", "args": [], "env": {}}\n  }\n}\n',
    ),
    "codex": (
        ".codex/config.toml",
        b'# mine\nmodel = "o3"  # deep\n\n[mcp_servers.gh]\ncommand = "gh"\n',
    ),
    "gemini": (
        ".gemini/settings.json",
        b'{\n  // my look\n  "theme": "GitHub",\n  /* servers I use */\n  "mcpServers": {\n'
        b'    "fs": {"command": "fs-mcp"} // files\n  }\n}\n',
    ),
    "opencode": (
        ".config/opencode/opencode.json",
        b'{\n  "$schema": "https://opencode.ai/config.json",\n  // the model\n'
        b'  "model": "anthropic/claude-sonnet-4",\n  "mcp": {\n'
        b'    "jira": {"type": "remote", "url": "https://jira.example/mcp"}, // work\n  },\n}\n',
    ),
    "cursor": (
        ".cursor/mcp.json",
        b'{"mcpServers": {"linear": {"url": "https://mcp.linear.app/sse"}}}\n',
    ),
}
DEFAULT_SLUG = {t: t.replace("-code", "") for t in TARGETS}


def servers(target: str, raw: bytes) -> dict:
    if target == "codex":
        return tomllib.loads(raw.decode())["mcp_servers"]
    data = json.loads(strip_jsonc(raw.decode()))
    return data["mcp" if target == "opencode" else "mcpServers"]


def hooks(capsys, data, action, target, home, *extra):
    rc = cli(["--data-dir", str(data), "hooks", action, target, "--home", str(home),
              "--mcp-only", "--yes", *extra])  # fmt: skip
    out, err = capsys.readouterr()
    assert rc in (0, None), err
    return out


def write_user_files(home: Path) -> dict[str, Path]:
    paths = {}
    for target, (rel, raw) in USER_FILES.items():
        p = home / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(raw)
        paths[target] = p
    return paths


ORDERS = [TARGETS, TARGETS[::-1], ("gemini", "cursor", "codex", "opencode", "claude-code")]


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
        if ".engram-bak-" not in p.name
    }


def write(path: Path, raw: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)


def full(capsys, data, action, target, home, *extra):
    rc = cli(["--data-dir", str(data), "hooks", action, target, "--home", str(home), "--yes",
              *extra])  # fmt: skip
    out, err = capsys.readouterr()
    assert rc in (0, None), err
    return out


@pytest.mark.parametrize("gone", TARGETS)
@pytest.mark.parametrize("order", ORDERS, ids=["forward", "backward", "mixed"])
def test_five_agents_in_any_order_then_any_one_out(tmp_path, capsys, order, gone):
    """Full installs (hooks, rules, imports and MCP): removing one agent's integration gives
    back that agent's files byte for byte and leaves every other file as installed."""
    home, data, repo = tmp_path / "home", tmp_path / "data", tmp_path / "repo"
    paths = write_user_files(home)
    write(home / ".claude" / "settings.json", b'{\n  "model": "opus"\n}\n')
    write(home / ".claude" / "CLAUDE.md", b"# Me\n\n- Answer tersely.\n")
    write(repo / ".cursor" / "rules" / "style.mdc", b"---\nalwaysApply: true\n---\n- Tabs.\n")
    # Cursor's rule needs a project, so its MCP entry goes to the project's mcp.json too
    paths["cursor"] = repo / ".cursor" / "mcp.json"
    write(paths["cursor"], USER_FILES["cursor"][1])
    user = snapshot(tmp_path)
    alone = {}
    for target in order:
        extra = ("--project", str(repo)) if target == "cursor" else ()
        before = snapshot(tmp_path)
        full(capsys, data, "install", target, home, *extra)
        alone[target] = {k for k, v in snapshot(tmp_path).items() if before.get(k) != v}
        assert alone[target], target
    installed = snapshot(tmp_path)
    for t in TARGETS:
        assert f"engram-{DEFAULT_SLUG[t]}" in servers(t, paths[t].read_bytes())
    extra = ("--project", str(repo)) if gone == "cursor" else ()
    full(capsys, data, "uninstall", gone, home, *extra)
    now = snapshot(tmp_path)
    for name, content in installed.items():
        if name.startswith("data"):
            continue
        if name in alone[gone]:
            assert now.get(name) == user.get(name), f"{name}: the user's bytes (or gone) again"
        else:
            assert now.get(name) == content, f"{name} stays as installed"
    for t in TARGETS:
        if t != gone:
            assert f"engram-{DEFAULT_SLUG[t]}" in servers(t, paths[t].read_bytes())


@pytest.mark.parametrize("target", TARGETS)
def test_three_engram_agents_in_one_config_removed_in_every_order(tmp_path, capsys, target):
    """Installing for a second Engram agent never replaces the first; each removal keeps the
    others, and the last one gives back the user's bytes (comments included)."""
    home = tmp_path / "home"
    cfg = write_user_files(home)[target]
    slugs = ["work", "home", "oss"]
    for n, removal in enumerate(itertools.permutations(slugs)):
        data = tmp_path / f"data{n}"
        for s in slugs:
            hooks(capsys, data, "install", target, home, "--agent", s)
        assert {f"engram-{s}" for s in slugs} <= set(servers(target, cfg.read_bytes()))
        left = set(slugs)
        for s in removal:
            hooks(capsys, data, "uninstall", target, home, "--agent", s)
            left.discard(s)
            got = set(servers(target, cfg.read_bytes())) if left else set()
            assert {f"engram-{x}" for x in left} <= got and f"engram-{s}" not in got
        assert cfg.read_bytes() == USER_FILES[target][1], removal
        assert not list(cfg.parent.glob("*.engram-bak-*")), "no backup left behind"


def test_an_agent_that_rewrote_its_jsonc_keeps_its_comments_on_uninstall(tmp_path, capsys):
    """When the agent changed its file after the install, only Engram's entry goes: every
    comment and the agent's own change stay."""
    home, data = tmp_path / "home", tmp_path / "data"
    cfg = write_user_files(home)["opencode"]
    hooks(capsys, data, "install", "opencode", home)
    cfg.write_bytes(cfg.read_bytes().replace(b'"anthropic/claude-sonnet-4"', b'"openai/gpt-5"'))
    hooks(capsys, data, "uninstall", "opencode", home)
    assert cfg.read_bytes() == USER_FILES["opencode"][1].replace(
        b'"anthropic/claude-sonnet-4"', b'"openai/gpt-5"'
    )


def test_opencode_file_engram_made_goes_even_after_opencode_stamped_its_schema(tmp_path, capsys):
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    hooks(capsys, data, "install", "opencode", home)
    cfg = home / ".config" / "opencode" / "opencode.json"
    # what OpenCode does to a config it loads: its $schema goes in first
    cfg.write_text('{\n  "$schema": "https://opencode.ai/config.json",\n' + cfg.read_text()[2:])
    hooks(capsys, data, "uninstall", "opencode", home)
    assert not cfg.exists() and not (home / ".config").exists()


def test_the_store_from_engram_home_is_pinned_with_each_agents_startup_window(tmp_path):
    home, store = tmp_path / "home", tmp_path / "my store"
    write_user_files(home)
    env = {**os.environ, "ENGRAM_HOME": str(store), "PYTHONPATH": str(ROOT)}
    for target in TARGETS:
        res = subprocess.run(
            [sys.executable, "-m", "app.cli", "hooks", "install", target, "--home", str(home),
             "--mcp-only", "--yes"],
            env=env, capture_output=True, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
    for target in TARGETS:
        entry = servers(target, (home / USER_FILES[target][0]).read_bytes())[
            f"engram-{DEFAULT_SLUG[target]}"
        ]
        argv = entry["command"] if target == "opencode" else [entry["command"], *entry["args"]]
        assert argv[argv.index("--data-dir") + 1] == str(store.resolve())
        if target == "gemini":
            assert entry["timeout"] >= 60_000
        if target == "codex":
            assert entry["startup_timeout_sec"] >= 30 and entry["tool_timeout_sec"] >= 120
        if target == "opencode":
            assert entry["timeout"] >= 30_000


def test_project_install_writes_no_local_paths_into_committed_files(tmp_path, capsys):
    home, data, project = tmp_path / "home", tmp_path / "data", tmp_path / "repo"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Repo\n\nUse pnpm.\n")
    rc = cli(["--data-dir", str(data), "hooks", "install", "claude-code", "--home", str(home),
              "--project", str(project), "--yes"])  # fmt: skip
    capsys.readouterr()
    assert rc in (0, None)
    for name in ("CLAUDE.md", ".mcp.json"):
        text = (project / name).read_text()
        assert str(tmp_path) not in text and str(data) not in text, name
    assert "@~/.claude/engram/claude-memory.md" in (project / "CLAUDE.md").read_text()
    assert (home / ".claude" / "engram" / "claude-memory.md").is_symlink()
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["engram-claude"]
    assert entry["command"] == "engram" and entry["args"] == ["mcp", "--agent", "claude"]
    rc = cli(["--data-dir", str(data), "hooks", "uninstall", "claude-code", "--home", str(home),
              "--project", str(project), "--yes"])  # fmt: skip
    capsys.readouterr()
    assert (project / "CLAUDE.md").read_text() == "# Repo\n\nUse pnpm.\n"
    assert not (project / ".mcp.json").exists()


def test_session_end_without_a_transcript_is_quiet(tmp_path):
    """Claude Code fires SessionEnd for `claude mcp list`: no transcript, nothing to do."""
    hook = {"session_id": "abc", "transcript_path": str(tmp_path / "never-written.jsonl"),
            "hook_event_name": "SessionEnd", "reason": "other"}  # fmt: skip
    res = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(tmp_path / "d"), "hook-run",
         "claude-code", "--agent", "claude"],
        input=json.dumps(hook), capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert res.returncode == 0 and res.stdout == "" and res.stderr == ""
    assert "nothing to do" in (tmp_path / "d" / "hook.log").read_text()


def test_an_earlier_versions_shared_entry_is_replaced_not_doubled(tmp_path, capsys):
    home, data = tmp_path / "home", tmp_path / "data"
    cfg = home / ".gemini" / "settings.json"
    old = (
        b'{\n  "mcpServers": {\n    "engram": {"command": "/opt/engram", "args": ["mcp", '
        b'"--agent", "gemini"]}\n  }\n}\n'
    )
    write(cfg, old)
    hooks(capsys, data, "install", "gemini", home)
    assert set(servers("gemini", cfg.read_bytes())) == {"engram-gemini"}


@pytest.mark.parametrize("target", ["cursor", "gemini", "opencode"])
def test_project_mcp_files_of_the_other_agents_hold_no_local_paths(tmp_path, capsys, target):
    home, data, project = tmp_path / "home", tmp_path / "data", tmp_path / "repo"
    project.mkdir()
    hooks(capsys, data, "install", target, home, "--project", str(project))
    files = [p for p in project.rglob("*") if p.is_file()]
    assert files
    for f in files:
        assert str(tmp_path) not in f.read_text(), f
    hooks(capsys, data, "uninstall", target, home, "--project", str(project))
    assert not [p for p in project.rglob("*") if p.is_file()]

"""`engram hooks uninstall TARGET` without --agent (issue 30, finding 17): it removes what
`hooks install TARGET --agent SLUG` wrote, whatever the slug, giving back every byte. Since
the manifest keeps one record per (file, agent) the default slug ("claude") found no record
for an install done for "alpha" and said "nothing to change (already uninstalled)", leaving
the hook, the MCP entry and the CLAUDE.md import behind. Through the real CLI, on a fake
home and project directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main as cli
from tests.file_tree import snapshot


def run(capsys, data: Path, *argv: str) -> tuple[int, str]:
    rc = cli(["--data-dir", str(data), *argv])
    return rc, capsys.readouterr().out


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    (h / ".claude" / "settings.json").write_bytes(
        b'{"permissions": {"allow": ["Bash(ls:*)"]},\n "model": "opus"}'
    )
    (h / ".claude.json").write_bytes(b'{"numStartups": 7, "mcpServers": {}}\n')
    (h / ".claude" / "CLAUDE.md").write_bytes(b"# Me\n\n- Answer briefly.\n")
    return h


@pytest.fixture
def project(tmp_path):
    p = tmp_path / "proj"
    p.mkdir()
    (p / "CLAUDE.md").write_bytes(b"# Project\n\nRun `make test` before pushing.\n")
    (p / ".mcp.json").write_bytes(
        b'{\n  "mcpServers": {\n    "docs": {"command": "docs-mcp"}\n  }\n}\n'
    )
    return p


def test_uninstall_without_agent_removes_an_install_for_another_slug(tmp_path, home, capsys):
    data = tmp_path / "data"
    before = snapshot(home)
    rc, _ = run(capsys, data, "hooks", "install", "claude-code", "--agent", "alpha",
                "--home", str(home), "--yes")  # fmt: skip
    assert rc == 0
    assert b"--agent alpha" in (home / ".claude" / "settings.json").read_bytes()
    assert b"engram-alpha" in (home / ".claude.json").read_bytes()
    assert b"memory of agent 'alpha'" in (home / ".claude" / "CLAUDE.md").read_bytes()

    rc, out = run(capsys, data, "hooks", "uninstall", "claude-code", "--home", str(home), "--yes")
    assert rc == 0
    assert "nothing to change" not in out
    assert snapshot(home) == before, "settings.json, ~/.claude.json and CLAUDE.md as before"
    rc, out = run(capsys, data, "hooks", "status")
    assert "no integrations installed" in out


def test_uninstall_without_agent_in_a_project(tmp_path, home, project, capsys):
    data = tmp_path / "data"
    home_before, project_before = snapshot(home), snapshot(project)
    rc, _ = run(capsys, data, "hooks", "install", "claude-code", "--agent", "alpha",
                "--home", str(home), "--project", str(project), "--yes")  # fmt: skip
    assert rc == 0
    assert b"engram-alpha" in (project / ".mcp.json").read_bytes()
    assert b"memory of agent 'alpha'" in (project / "CLAUDE.md").read_bytes()

    rc, out = run(capsys, data, "hooks", "uninstall", "claude-code", "--home", str(home),
                  "--project", str(project), "--yes")  # fmt: skip
    assert rc == 0 and "nothing to change" not in out
    assert snapshot(project) == project_before, "CLAUDE.md and .mcp.json as before"
    assert snapshot(home) == home_before, "settings.json as before, the import link gone"


def test_uninstall_without_agent_removes_every_agent_installed_there(tmp_path, home, capsys):
    """Two agents wired into the same files: without --agent both go (the files as before);
    with --agent only that one (the other stays wired)."""
    data = tmp_path / "data"
    before = snapshot(home)
    for slug in ("alpha", "beta"):
        rc, _ = run(capsys, data, "hooks", "install", "claude-code", "--agent", slug,
                    "--home", str(home), "--yes")  # fmt: skip
        assert rc == 0
    rc, _ = run(capsys, data, "hooks", "uninstall", "claude-code", "--agent", "alpha",
                "--home", str(home), "--yes")  # fmt: skip
    settings = (home / ".claude" / "settings.json").read_bytes()
    assert b"--agent alpha" not in settings and b"--agent beta" in settings

    run(capsys, data, "hooks", "install", "claude-code", "--agent", "alpha",
        "--home", str(home), "--yes")  # fmt: skip
    rc, out = run(capsys, data, "hooks", "uninstall", "claude-code", "--home", str(home), "--yes")
    assert rc == 0
    assert snapshot(home) == before


def test_uninstall_without_agent_plan_only_names_the_agent(tmp_path, home, capsys):
    data = tmp_path / "data"
    before = snapshot(home)
    run(capsys, data, "hooks", "install", "claude-code", "--agent", "alpha",
        "--home", str(home), "--yes")  # fmt: skip
    installed = snapshot(home)
    rc, out = run(capsys, data, "hooks", "uninstall", "claude-code", "--home", str(home))
    assert rc == 0 and "--yes" in out and "alpha" in out
    assert "nothing to change" not in out
    assert snapshot(home) == installed, "the plan alone writes nothing"
    run(capsys, data, "hooks", "uninstall", "claude-code", "--home", str(home), "--yes")
    assert snapshot(home) == before

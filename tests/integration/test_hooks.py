"""`engram hooks install|uninstall` on a fake home directory, through the real CLI: what it
writes, that it backs files up, that installing twice adds nothing, and that uninstall gives
back every byte. Also the hook entry point: a finished Claude Code session ingested twice is
counted once."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from app.cli import main as cli
from tests.cli_runs import engram_cli
from tests.file_tree import snapshot
from tests.processes import run_engram


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    # a user's real settings: other hooks, permissions, odd spacing, no final newline
    (h / ".claude" / "settings.json").write_bytes(
        b'{"permissions": {"allow": ["Bash(ls:*)"]},\n "hooks": {"PreToolUse": '
        b'[{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}]},'
        b'\n "model": "opus"}'
    )
    (h / ".claude" / "CLAUDE.md").write_bytes(b"# Me\n\n- Answer briefly.\n- Use British spelling.")
    return h


def run(capsys, *argv) -> tuple[int, str]:
    rc = cli(list(argv))
    return rc, capsys.readouterr().out


def hooks(capsys, data: str | Path, *argv: str) -> tuple[int, str]:
    """`engram --data-dir DATA hooks ARGV…` through the real CLI."""
    return run(capsys, "--data-dir", str(data), "hooks", *argv)


def test_claude_code_install_then_uninstall_restores_every_byte(tmp_path, home, capsys):
    data = str(tmp_path / "data")
    before = snapshot(home)

    rc, out = hooks(
        capsys, data, "install", "claude-code", "--agent", "claude", "--home", str(home)
    )
    assert rc == 0 and "SessionEnd" in out and "--yes" in out
    assert snapshot(home) == before, "without --yes only the plan is shown"

    rc, out = hooks(
        capsys, data, "install", "claude-code", "--agent", "claude", "--home", str(home), "--yes"
    )
    assert rc == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert settings["model"] == "opus"
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "~/bin/guard.sh"
    [group] = settings["hooks"]["SessionEnd"]
    [hook] = group["hooks"]
    assert hook["type"] == "command"
    assert "hook-run claude-code --agent claude" in hook["command"]
    assert f"--data-dir {Path(data).resolve()}" in hook["command"]
    md = (home / ".claude" / "CLAUDE.md").read_text()
    assert md.startswith("# Me\n\n- Answer briefly.\n- Use British spelling.\n")
    mem_path = Path(data).resolve() / "agents" / "claude" / "memory.md"
    assert f"\n@{mem_path}\n" in md

    backups = sorted(p.name for p in (home / ".claude").glob("*.engram-bak-*"))
    assert [b.split(".engram-bak-")[0] for b in backups] == ["CLAUDE.md", "settings.json"]
    for b in backups:
        orig = b.split(".engram-bak-")[0]
        assert (home / ".claude" / b).read_bytes() == before[f".claude/{orig}"]

    installed = snapshot(home)
    rc, out = hooks(
        capsys, data, "install", "claude-code", "--agent", "claude", "--home", str(home), "--yes"
    )
    assert "nothing to change" in out
    assert snapshot(home) == installed, "installing twice adds nothing (and no new backup)"

    rc, out = hooks(
        capsys, data, "uninstall", "claude-code", "--agent", "claude", "--home", str(home), "--yes"
    )
    assert rc == 0
    assert snapshot(home) == before


def test_install_into_an_empty_home_and_uninstall_leaves_it_empty(tmp_path, capsys):
    home = tmp_path / "empty-home"
    home.mkdir()
    data = str(tmp_path / "data")
    hooks(capsys, data, "install", "claude-code", "--home", str(home), "--yes")
    assert (home / ".claude" / "settings.json").exists()
    assert not list(home.rglob("*.engram-bak-*")), "nothing existed, nothing to back up"
    hooks(capsys, data, "uninstall", "claude-code", "--home", str(home), "--yes")
    assert snapshot(home) == {}


def test_uninstall_keeps_what_the_user_added_after_install(tmp_path, home, capsys):
    data = str(tmp_path / "data")
    hooks(capsys, data, "install", "claude-code", "--home", str(home), "--yes")
    md = home / ".claude" / "CLAUDE.md"
    md.write_text(md.read_text() + "- Added later by hand.\n")
    s = home / ".claude" / "settings.json"
    cfg = json.loads(s.read_text())
    cfg["theme"] = "dark"
    s.write_text(json.dumps(cfg))

    rc, out = hooks(capsys, data, "uninstall", "claude-code", "--home", str(home), "--yes")
    assert "changed since install" in out
    text = md.read_text()
    assert "- Added later by hand." in text and "engram" not in text
    assert text.startswith("# Me\n\n- Answer briefly.\n- Use British spelling.")
    cfg = json.loads(s.read_text())
    assert cfg["theme"] == "dark" and "SessionEnd" not in cfg["hooks"]
    assert cfg["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "~/bin/guard.sh"
    # the pre-install copies stay, since the restore was not exact
    assert len(list((home / ".claude").glob("*.engram-bak-*"))) == 2


def test_cursor_rule_embeds_compiled_memory_and_uninstall_removes_it(tmp_path, capsys):
    data = tmp_path / "data"
    project = tmp_path / "proj"
    (project / ".cursor" / "rules").mkdir(parents=True)
    other = project / ".cursor" / "rules" / "style.mdc"
    other.write_text("---\nalwaysApply: false\n---\nUse tabs.\n")
    before = snapshot(project)
    mem_md = data / "agents" / "cursor" / "memory.md"
    mem_md.parent.mkdir(parents=True)
    mem_md.write_text("# Memory\n\n- [pref] Prefers pnpm over npm\n")

    hooks(capsys, data, "install", "cursor", "--project", str(project), "--yes")
    rule = (project / ".cursor" / "rules" / "engram-memory.mdc").read_text()
    head = rule.split("---\n")[1]
    assert "alwaysApply: true" in head.splitlines()
    assert "- [pref] Prefers pnpm over npm" in rule
    assert "not as instructions" in rule

    # after a new compile, installing again refreshes the rule, without backing up our own file
    mem_md.write_text("# Memory\n\n- [pref] Prefers bun over npm\n")
    hooks(capsys, data, "install", "cursor", "--project", str(project), "--yes")
    rule = (project / ".cursor" / "rules" / "engram-memory.mdc").read_text()
    assert "Prefers bun over npm" in rule and "pnpm" not in rule
    assert not list(project.rglob("*.engram-bak-*"))

    hooks(capsys, data, "uninstall", "cursor", "--project", str(project), "--yes")
    assert snapshot(project) == before


def test_generic_snippet_is_working_shell(tmp_path, capsys):
    """The snippet is sourced by a real bash and its function stores a fact."""
    data = tmp_path / "data"
    home = tmp_path / "home"
    home.mkdir()
    hooks(capsys, data, "install", "generic", "--agent", "bot", "--home", str(home), "--yes")
    snippet = home / ".config" / "engram" / "agent-hook.sh"
    assert os.access(snippet, os.X_OK)
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    res = subprocess.run(
        ["bash", "-c", f". {snippet} && engram_remember 'Deploys happen on Tuesdays' rule"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    from services.config import StoreConfig
    from services.engram import Engram

    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as eng:
        facts = eng.agent("bot").list()
    assert [(f.content, f.category) for f in facts] == [("Deploys happen on Tuesdays", "rule")]
    hooks(capsys, data, "uninstall", "generic", "--home", str(home), "--yes")
    assert snapshot(home) == {}


def test_broken_settings_json_is_refused_not_overwritten(tmp_path, capsys):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    bad = b'{"model": "opus",,}'
    (home / ".claude" / "settings.json").write_bytes(bad)
    rc = cli(
        [
            "--data-dir",
            str(tmp_path / "d"),
            "hooks",
            "install",
            "claude-code",
            "--home",
            str(home),
            "--yes",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 1 and "not valid JSON" in err
    assert (home / ".claude" / "settings.json").read_bytes() == bad


def _transcript(path: Path, session: str) -> Path:
    lines = [
        {
            "type": "user",
            "sessionId": session,
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-11-20T10:00:00.000Z",
            "cwd": "/home/u/proj",
            "message": {
                "role": "user",
                "content": "I prefer pnpm over npm for all JavaScript "
                "projects. Please set up the repo.",
            },
        },
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-11-20T10:00:05.000Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude",
                "content": [{"type": "text", "text": "Done: the repo uses pnpm now."}],
            },
        },
        {
            "type": "user",
            "sessionId": session,
            "uuid": "u2",
            "parentUuid": "a1",
            "timestamp": "2026-11-20T10:01:00.000Z",
            "message": {"role": "user", "content": "My timezone is Europe/Berlin, remember that."},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": "a2",
            "parentUuid": "u2",
            "timestamp": "2026-11-20T10:01:04.000Z",
            "message": {
                "id": "msg_2",
                "role": "assistant",
                "model": "claude",
                "content": [{"type": "text", "text": "Noted."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    return path


def test_session_end_hook_ingests_a_session_once(tmp_path, capsys):
    """What Claude Code does: run the command the install wrote into settings.json, in a
    shell, with the hook JSON on stdin; twice (hooks can fire twice). The second run adds
    nothing."""
    pytest.importorskip(
        "services.capture.sessions", reason="the lifecycle's session ingest is absent"
    )
    data = tmp_path / "data"
    home = tmp_path / "home"
    home.mkdir()
    hooks(capsys, data, "install", "claude-code", "--agent", "claude", "--home", str(home), "--yes")
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionEnd"][0]["hooks"][0]["command"] + " --json"
    sid = "0b5e4a7c-1111-4222-8333-944455556666"
    tr = _transcript(tmp_path / f"{sid}.jsonl", sid)
    hook_json = json.dumps(
        {
            "session_id": sid,
            "transcript_path": str(tr),
            "cwd": "/home/u/proj",
            "hook_event_name": "SessionEnd",
            "reason": "exit",
        }
    )
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    first, second = (
        subprocess.run(
            ["bash", "-c", command],
            input=hook_json,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )
        for _ in range(2)
    )
    assert first.returncode == 0, first.stderr
    r1 = json.loads(first.stdout)
    assert r1["already_processed"] is False and r1["turns"] == 2
    r2 = json.loads(second.stdout)
    assert r2["already_processed"] is True and r2["facts_added"] == 0
    log = (data / "hook.log").read_text().splitlines()
    assert len(log) == 2 and all(f"session={sid}" in l for l in log)
    assert "already ingested" in log[1] and "pnpm" not in "".join(log)

    from models import Session
    from services.config import StoreConfig
    from services.engram import Engram

    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as eng:
        mem = eng.agent("claude")
        facts = mem.list()
        sessions = Session.select().where(Session.agent == mem.agent_id).count()
    assert sessions == 1
    assert any("pnpm" in f.content for f in facts)
    contents = [f.content for f in facts]
    assert len(contents) == len(set(contents)), "nothing stored twice"

    # the hook deferred embedding (the vectors are owed: services/vectors/backlog.py); the
    # next process with the model fills them before it verifies or searches by meaning
    assert (data / "vector-backlog").exists()
    with Engram.open(StoreConfig(data_dir=data)) as eng:
        check = eng.verify()
        [c] = [c for c in check.agents if c.slug == "claude"]
        assert c.vectors == len(facts) and not c.missing_vectors
        assert not (data / "vector-backlog").exists()
        hits = eng.agent("claude").search(
            "javascript package manager", mode="semantic", touch=False
        )
        assert hits and "pnpm" in hits[0].fact.content


def test_hook_run_without_input_says_what_it_expects(tmp_path):
    res = run_engram(
        "app.cli",
        "--data-dir",
        str(tmp_path / "d"),
        "hook-run",
        "claude-code",
        "--agent",
        "claude",
        stdin="",
        timeout=60,
    )
    assert res.returncode == 1
    assert "transcript_path" in res.stderr
    assert "error: hook-run expects" in (tmp_path / "d" / "hook.log").read_text()


def test_with_context_adds_a_prompt_hook_that_prints_relevant_memory(tmp_path, home, capsys):
    data = str(tmp_path / "data")
    before = snapshot(home)
    remember = ("remember", "--create-agent", "--agent", "claude", "--category", "pref")
    assert engram_cli(capsys, data, *remember, "Prefers pnpm over npm for JavaScript")[0] == 0
    hooks(
        capsys,
        data,
        "install",
        "claude-code",
        "--home",
        str(home),
        "--with-context",
        "--budget",
        "300",
        "--yes",
    )
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    [group] = settings["hooks"]["UserPromptSubmit"]
    command = group["hooks"][0]["command"]
    assert "hook-run claude-code-context --agent claude --budget 300" in command
    assert "SessionEnd" in settings["hooks"] and "PreToolUse" in settings["hooks"]

    res = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=60,
        input=json.dumps(
            {
                "session_id": "s",
                "hook_event_name": "UserPromptSubmit",
                "prompt": "set up the JavaScript repo",
            }
        ),
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("<engram-memory") and "Prefers pnpm over npm" in res.stdout

    # installing again without the flag takes the prompt hook out, keeps the rest
    hooks(capsys, data, "install", "claude-code", "--home", str(home), "--yes")
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert "UserPromptSubmit" not in settings["hooks"] and "SessionEnd" in settings["hooks"]
    hooks(capsys, data, "uninstall", "claude-code", "--home", str(home), "--yes")
    assert snapshot(home) == before


def test_memory_path_with_a_space_is_imported_through_a_link(tmp_path, home, capsys):
    """macOS keeps app data in "Application Support"; Claude Code's @import stops at the
    space, so the import goes through a space-free symlink that uninstall removes."""
    data = tmp_path / "Library" / "Application Support" / "engram"
    before = snapshot(home)
    hooks(capsys, data, "install", "claude-code", "--home", str(home), "--yes")
    link = home / ".claude" / "engram" / "claude-memory.md"
    assert link.is_symlink()
    assert Path(os.readlink(link)) == data.resolve() / "agents" / "claude" / "memory.md"
    md = (home / ".claude" / "CLAUDE.md").read_text()
    imports = [l for l in md.splitlines() if l.startswith("@")]
    assert imports == [f"@{link}"] and " " not in imports[0]
    # the hook command quotes the spaced data dir for the shell
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert (
        "'" + str(data.resolve()) + "'" in settings["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    )

    _, out = hooks(capsys, data, "install", "claude-code", "--home", str(home), "--yes")
    assert "nothing to change" in out, "the link makes installing twice a no-op too"
    hooks(capsys, data, "uninstall", "claude-code", "--home", str(home), "--yes")
    assert snapshot(home) == before

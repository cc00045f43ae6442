"""A forget reaches every file an agent loads. For each native format: the files are built in
that agent's real layout under a temporary $HOME and project, imported through the CLI, then
``engram forget --matching PHRASE --yes``; a byte scan of every file an agent loads finds
the phrase nowhere, every other byte of each file is as it was, and ``forget --verify``
agrees. A file Engram may not write is named "not erased" and verify exits non-zero."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from services.forget.matching import fold

PHRASE = "Quokka Bakery"


@pytest.fixture
def world(home_and_project):
    """A home and a project, as the agents lay them out; discovery looks only here."""
    return home_and_project


def _claude_after_forget(topic, index) -> dict:
    """The bytes a Claude Code memory folder keeps once the bakery fact is forgotten: the
    statement and its index line go, the topic's description falls back to its name."""
    return {
        topic: CLAUDE_TOPIC.replace(
            "description: Buys bread at Quokka Bakery every Friday", 'description: "Food"'
        )
        .replace("- The user buys bread at Quokka Bakery every Friday.\n", "")
        .encode(),
        index: CLAUDE_INDEX.replace(" — buys bread at Quokka Bakery", "").encode(),
    }


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def _scan(*roots: Path) -> list[str]:
    """Every file under the roots (git objects aside) that still holds the phrase."""
    hits = []
    for root in roots:
        for p in root.rglob("*"):
            if (
                p.is_file()
                and ".git" not in p.parts
                and fold(PHRASE) in fold(p.read_bytes().decode("utf-8", "replace"))
            ):
                hits.append(str(p))
    return hits


def _forget_and_check(cli, agent: str, files: dict[Path, bytes], roots) -> str:
    rc, out, _ = cli("forget", "--agent", agent, "--matching", PHRASE, "--keyword-only")
    for path, expected in files.items():  # the preview names every file it will touch
        if path.read_bytes() != expected:
            assert f"{path} (" in out and "rewrite" in out, out
    rc, out, err = cli("forget", "--agent", agent, "--matching", PHRASE, "--keyword-only", "--yes")
    assert rc == 0, out + err
    assert "remaining_after_verify 0" in out, out
    assert _scan(*roots) == []
    for path, expected in files.items():
        assert path.read_bytes() == expected, path.name
    rc, vout, verr = cli("forget", "--verify", PHRASE)
    assert rc == 0, vout + verr
    assert "nothing remains" in vout
    for path in files:
        assert f"checked {path}" in vout or f"checked {path.resolve()}" in vout, vout
    return out


CLAUDE_TOPIC = """---
name: Food
description: Buys bread at Quokka Bakery every Friday
type: user
---

The user likes sourdough bread.

- The user buys bread at Quokka Bakery every Friday.
- The user avoids sesame.
"""
CLAUDE_INDEX = """# Memory Index

- [Food](user_food.md) — buys bread at Quokka Bakery
- [Role](user_role.md) — backend engineer
"""
CLAUDE_ROLE = """---
name: Role
description: What the user does
type: user
---

The user is a backend engineer on the payments team.
"""


def test_claude_code_auto_memory(world, cli):
    home, _ = world
    mem = home / ".claude" / "projects" / "-work-shop" / "memory"
    topic = _write(mem / "user_food.md", CLAUDE_TOPIC)
    index = _write(mem / "MEMORY.md", CLAUDE_INDEX)
    role = _write(mem / "user_role.md", CLAUDE_ROLE)
    assert cli("import", "--agent", "cc", str(mem))[0] == 0
    expected = {
        **_claude_after_forget(topic, index),
        role: CLAUDE_ROLE.encode(),
    }
    _forget_and_check(cli, "cc", expected, [home])


INSTRUCTIONS = """# Project

Use tabs in the Makefile.

## Preferences

- Always run the linter before committing.
- Lunch orders go to Quokka Bakery on Tuesdays.
- Prefer small pull requests.
"""


@pytest.mark.parametrize(
    "rel",
    ["CLAUDE.md", "AGENTS.md", ".windsurf/rules/team.md", "crlf/CLAUDE.md"],
)
def test_user_instruction_files_change_only_the_matched_line(world, cli, rel):
    _, project = world
    text = INSTRUCTIONS
    if rel.endswith("team.md"):
        text = "---\ntrigger: always_on\n---\n\n" + INSTRUCTIONS
    gone = "- Lunch orders go to Quokka Bakery on Tuesdays.\n"
    if rel.startswith("crlf/"):  # written on Windows: every other line keeps its CRLF
        text, gone, rel = text.replace("\n", "\r\n"), gone.replace("\n", "\r\n"), "CLAUDE.md"
    f = _write(project / rel, text)
    assert cli("import", "--agent", "p", str(f))[0] == 0
    expected = text.replace(gone, "").encode()
    out = _forget_and_check(cli, "p", {f: expected}, [project])
    backup = next(ln for ln in out.splitlines() if "backup (forgotten" in ln).rsplit(": ", 1)[1]
    kept = Path(backup).read_text()
    assert "Quokka" not in kept and "[engram forget: a line was removed here]" in kept
    assert "Prefer small pull requests." in kept
    rc, out, _ = cli("receipts")  # the stored receipt names the backup too
    assert f"native backup files: {backup}" in out


CURSOR_RULE = """---
description: Project memory, incl. the Quokka Bakery order
globs:
alwaysApply: true
---

# Project Memory

## User Preferences

- **Lunch**: order from Quokka Bakery on Tuesdays.
- **Style**: use technical language, no marketing words.
"""


def test_cursor_rule(world, cli):
    _, project = world
    f = _write(project / ".cursor" / "rules" / "learned-memories.mdc", CURSOR_RULE)
    assert cli("import", "--agent", "cur", str(f))[0] == 0
    expected = (
        CURSOR_RULE.replace(
            "description: Project memory, incl. the Quokka Bakery order", 'description: ""'
        )
        .replace("- **Lunch**: order from Quokka Bakery on Tuesdays.\n", "")
        .encode()
    )
    _forget_and_check(cli, "cur", {f: expected}, [project])


GEMINI = """# My notes for Gemini

Answer in British English.

## Gemini Added Memories
- The user's favourite bakery is Quokka Bakery.
- The user's dog is called Biscuit.

## Later notes
Keep answers short.
"""


def test_gemini_md(world, cli):
    home, _ = world
    f = _write(home / ".gemini" / "GEMINI.md", GEMINI)
    assert cli("import", "--agent", "gem", str(f))[0] == 0
    expected = GEMINI.replace("- The user's favourite bakery is Quokka Bakery.\n", "").encode()
    _forget_and_check(cli, "gem", {f: expected}, [home])


MCP_LINES = [
    {"type": "entity", "name": "Ada", "entityType": "person", "observations": [
        "Works on the payments team", "Orders lunch from Quokka Bakery"]},
    {"type": "entity", "name": "Quokka Bakery", "entityType": "organization",
     "observations": ["Opens at 7"]},
    {"type": "relation", "from": "Ada", "to": "Quokka Bakery", "relationType": "orders_from"},
    {"type": "entity", "name": "payments", "entityType": "team", "observations": ["Owns checkout"]},
]  # fmt: skip


def test_mcp_memory_jsonl(world, cli):
    home, _ = world
    lines = [json.dumps(d) for d in MCP_LINES]  # Python-style ": " spacing, no final newline
    f = _write(home / ".mcp" / "memory.jsonl", "\n".join(lines))
    assert cli("import", "--agent", "mcp", str(f))[0] == 0
    ada = dict(MCP_LINES[0], observations=["Works on the payments team"])
    expected = (json.dumps(ada) + "\n" + lines[3]).encode()
    _forget_and_check(cli, "mcp", {f: expected}, [home])


HERMES = "The user orders from Quokka Bakery.\n§\nThe user works remotely on Fridays.\n§\nThe user prefers tea."


def test_hermes(world, cli):
    home, _ = world
    f = _write(home / ".hermes" / "memories" / "MEMORY.md", HERMES)
    assert cli("import", "--agent", "her", str(home / ".hermes"))[0] == 0
    expected = HERMES.split("\n§\n", 1)[1].encode()
    _forget_and_check(cli, "her", {f: expected}, [home])


SUMMARY = """## User preferences

- Prefers pytest over unittest.
- Buys lunch at Quokka Bakery.

## General Tips

- Run `make lint` before pushing.
"""


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def test_codex_memories_and_their_git_history(world, cli):
    home, _ = world
    repo = home / ".codex" / "memories"
    f = _write(repo / "user" / "memory" / "memory_summary.md", SUMMARY)
    _git(repo.parent, "init", "-q", str(repo))
    for k, v in (("user.name", "codex"), ("user.email", "codex@example.invalid")):
        _git(repo, "config", k, v)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "memories")
    assert PHRASE in _git(repo, "log", "--all", "-p")
    assert cli("import", "--agent", "cx", str(f.parent))[0] == 0
    rc, vout, _ = cli("forget", "--verify", PHRASE)  # before: the file and its history
    assert rc == 1 and "remains: git history" in vout and f"remains: native: {f}" in vout
    expected = SUMMARY.replace("- Buys lunch at Quokka Bakery.\n", "").encode()
    out = _forget_and_check(cli, "cx", {f: expected}, [home])
    assert "git_histories_rewritten 1" in out
    history = _git(repo, "log", "--all", "-p")
    assert "Quokka" not in history and "Prefers pytest over unittest." in history
    rc, vout, _ = cli("forget", "--verify", PHRASE)
    assert rc == 0 and f"checked {repo.resolve()}/.git: every commit's patch and message" in vout


def test_a_read_only_file_is_not_erased_and_verify_says_so(world, cli):
    _, project = world
    f = _write(project / "AGENTS.md", INSTRUCTIONS)
    assert cli("import", "--agent", "ro", str(f))[0] == 0
    f.chmod(0o444)
    before = f.read_bytes()
    try:
        rc, out, _ = cli("forget", "--agent", "ro", "--matching", PHRASE, "--keyword-only")
        assert f"{f}: not erased: read-only (mode 0444)" in out  # the preview says it first
        rc, out, _ = cli("forget", "--agent", "ro", "--matching", PHRASE, "--json")
        notes = json.loads(out)["notes"]  # what the app's forget dialog shows
        assert f"agent's file: {f}: not erased: read-only (mode 0444)" in notes
        rc, out, _ = cli("forget", "--agent", "ro", "--matching", PHRASE, "--keyword-only", "--yes")
        assert rc == 1
        assert "not erased: read-only" in out and "native_not_erased 1" in out
        assert "remaining_after_verify 0" not in out
        assert f.read_bytes() == before
        rc, vout, _ = cli("forget", "--verify", PHRASE)
        assert rc == 1 and str(f) in vout
    finally:
        f.chmod(0o644)


@pytest.mark.parametrize("case", ["outside", "other-owner"])
def test_a_file_engram_may_not_write_is_named_not_erased(world, cli, tmp_path, case):
    """AGENTS.md as a symlink (as in real repos) to a file outside the folders Engram may
    write, or to a file another user owns: found, not touched, named with the reason."""
    _, project = world
    if case == "outside":
        target = _write(tmp_path / "elsewhere" / "rules.md", INSTRUCTIONS)
        why = "outside the folders Engram may write"
    else:
        if os.geteuid() != 0:
            pytest.skip("giving a file to another user needs root")
        target = _write(project / "shared" / "rules.md", INSTRUCTIONS)
        os.chown(target, 65534, 65534)
        why = "a file Engram does not own"
    (project / "AGENTS.md").symlink_to(target)
    before = target.read_bytes()
    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "Lunch orders go to Quokka Bakery on Tuesdays.")
    rc, out, _ = cli("forget", "--all-agents", "--matching", PHRASE, "--keyword-only")
    assert "not erased" in out and why in out
    rc, out, _ = cli("forget", "--all-agents", "--matching", PHRASE, "--keyword-only", "--yes")
    assert rc == 1 and why in out and "native_not_erased 1" in out
    assert target.read_bytes() == before
    rc, vout, _ = cli("forget", "--verify", PHRASE)
    assert rc == 1 and f"remains: native: {target}" in vout


def test_the_cursor_rule_engram_installed_is_erased(world, cli):
    """``engram hooks install cursor`` embeds the compiled memory in a rule: a forget on the
    agent reaches it without the agent importing it."""
    _, project = world
    cli("agent", "add", "cur")
    cli("remember", "--agent", "cur", "Lunch orders go to Quokka Bakery on Tuesdays.")
    cli("remember", "--agent", "cur", "Prefer small pull requests.")
    assert cli("compile", "--agent", "cur")[0] == 0
    rc, out, err = cli(
        "hooks",
        "install",
        "cursor",
        "--agent",
        "cur",
        "--no-mcp",
        "--project",
        str(project),
        "--yes",
    )
    assert rc == 0, out + err
    rule = project / ".cursor" / "rules" / "engram-memory.mdc"
    assert PHRASE in rule.read_text()
    rc, out, err = cli("forget", "--agent", "cur", "--matching", PHRASE, "--keyword-only", "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert _scan(project) == [] and "Prefer small pull requests." in rule.read_text()


def test_a_backup_engram_kept_of_an_edited_claude_md_is_erased_too(world, cli):
    home, _ = world
    user_md = _write(home / ".claude" / "CLAUDE.md", INSTRUCTIONS)
    cli("agent", "add", "cc")
    cli("remember", "--agent", "cc", "Lunch orders go to Quokka Bakery on Tuesdays.")
    rc, out, err = cli("hooks", "install", "claude-code", "--agent", "cc", "--no-mcp", "--yes")
    assert rc == 0, out + err
    backups = list(user_md.parent.glob("CLAUDE.md.engram-bak-*"))
    assert backups and PHRASE in backups[0].read_text()
    rc, out, err = cli("forget", "--all-agents", "--matching", PHRASE, "--keyword-only", "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert _scan(home) == []
    assert "Prefer small pull requests." in backups[0].read_text()
    assert "Prefer small pull requests." in user_md.read_text()


def test_forgetting_a_whole_agent_leaves_the_users_instruction_file_and_says_so(world, cli):
    _, project = world
    f = _write(project / "CLAUDE.md", INSTRUCTIONS)
    assert cli("import", "--agent", "p", str(f))[0] == 0
    rc, out, _ = cli("forget", "--agent", "p", "--all", "--yes")
    assert rc == 1 and "does not empty your own instruction file" in out
    assert "native_not_erased 1" in out and "remaining_after_verify 0" not in out
    assert f.read_bytes() == INSTRUCTIONS.encode()


def test_mcp_memory_think_tank_dialect(world, cli):
    """Observations as objects, the same entity on several lines, compact separators."""
    home, _ = world
    rows = [
        {"_type": "entity", "name": "Ada", "entityType": "person", "_savedAt": "2026-01-02",
         "observations": [{"text": "Orders lunch from Quokka Bakery", "timestamp": "t1"},
                          {"text": "Leads the payments team", "timestamp": "t2"}]},
        {"_type": "entity", "name": "Ada", "entityType": "person", "_savedAt": "2026-01-03",
         "observations": [{"text": "Prefers written updates", "timestamp": "t3"}]},
    ]  # fmt: skip
    lines = [json.dumps(r, separators=(",", ":")) for r in rows]
    f = _write(home / "memory.jsonl", "\n".join(lines) + "\n")
    assert cli("import", "--agent", "tt", str(f))[0] == 0
    first = dict(rows[0], observations=rows[0]["observations"][1:])
    expected = (json.dumps(first, separators=(",", ":")) + "\n" + lines[1] + "\n").encode()
    _forget_and_check(cli, "tt", {f: expected}, [home])


# the agents of late 2026 ------------------------------------------------------------------


def test_claude_code_subagent_memory(world, cli):
    """``memory: project`` subagent: ``.claude/agent-memory/<agent>/`` in the auto-memory
    schema (an index and topic files)."""
    _, project = world
    _write(project / ".claude" / "agents" / "reviewer.md",
           "---\nname: reviewer\ndescription: Reviews diffs\nmemory: project\n---\nReview.\n")  # fmt: skip
    mem = project / ".claude" / "agent-memory" / "reviewer"
    topic = _write(mem / "user_food.md", CLAUDE_TOPIC)
    index = _write(mem / "MEMORY.md", CLAUDE_INDEX)
    assert cli("import", "--agent", "rev", str(mem))[0] == 0
    expected = {
        **_claude_after_forget(topic, index),
    }
    _forget_and_check(cli, "rev", expected, [project])


GEMINI_MEMORY = """# Project Memory

- Run the integration tests with `npm run test:int`; they need Docker running.
- Team lunch is ordered from Quokka Bakery on Thursdays.
- [Release checklist](release.md) - how releases are cut
"""
GEMINI_TOPIC = """# Release checklist

Releases are cut from the `release/*` branches, never from main.

The release party cake comes from Quokka Bakery.
"""


def test_gemini_private_memory(world, cli):
    """Gemini CLI's private project memory: ``~/.gemini/tmp/<slug>/memory/``."""
    home, project = world
    gem = home / ".gemini"
    _write(gem / "projects.json", json.dumps({"projects": {str(project): "proj"}}))
    memory = gem / "tmp" / "proj" / "memory"
    main = _write(memory / "MEMORY.md", GEMINI_MEMORY)
    topic = _write(memory / "release.md", GEMINI_TOPIC)
    assert cli("import", "--agent", "gem", str(memory))[0] == 0
    expected = {
        main: GEMINI_MEMORY.replace(
            "- Team lunch is ordered from Quokka Bakery on Thursdays.\n", ""
        ).encode(),
        topic: GEMINI_TOPIC.replace(
            "The release party cake comes from Quokka Bakery.\n", ""
        ).encode(),
    }
    _forget_and_check(cli, "gem", expected, [home])


@pytest.mark.parametrize(
    "rel",
    [".github/copilot-instructions.md", ".kiro/steering/team.md", ".clinerules/team.md"],
)
def test_other_agents_rule_files_change_only_the_matched_line(world, cli, rel):
    _, project = world
    f = _write(project / rel, INSTRUCTIONS)
    assert cli("import", "--agent", "rules", str(f))[0] == 0
    expected = INSTRUCTIONS.replace("- Lunch orders go to Quokka Bakery on Tuesdays.\n", "")
    out = _forget_and_check(cli, "rules", {f: expected.encode()}, [project])
    assert "backup" in out


def test_letta_memfs_and_its_git_history(world, cli):
    """Letta Code's MemFS: each agent's memory is a git repository of its own."""
    home, _ = world
    repo = home / ".letta" / "agents" / "agent-7f3a" / "memory"
    f = _write(repo / "human.md", "# Human\n\n- Prefers pytest over unittest.\n"
               "- Buys lunch at Quokka Bakery.\n")  # fmt: skip
    _git(repo.parent, "init", "-q", str(repo))
    for k, v in (("user.name", "letta"), ("user.email", "letta@example.invalid")):
        _git(repo, "config", k, v)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "memory")
    assert cli("import", "--agent", "letta", str(f))[0] == 0
    expected = b"# Human\n\n- Prefers pytest over unittest.\n"
    out = _forget_and_check(cli, "letta", {f: expected}, [home])
    assert "git_histories_rewritten 1" in out
    history = _git(repo, "log", "--all", "-p")
    assert "Quokka" not in history and "Prefers pytest" in history

"""A skill, command or README that *describes* a memory system is not memory: imported
without ``--format`` it stores nothing and says why in one line; ``--format`` still forces it."""

from __future__ import annotations

import json

SKILL = """---
name: project-memory
description: Keeps a memory of decisions, bugs and conventions for this project.
allowed-tools: Read, Write, Edit
---

# Project Memory

## When to Use

- The user asks to remember something about the project.
- A bug is fixed and the fix should be recorded.

## Instructions

1. Read `docs/project_notes/decisions.md` before proposing an architecture change.
2. Append new bugs to `docs/project_notes/bugs.md` with the date and the fix.

## Examples

**NEVER**:
- store secrets in the memory files
"""

TOPIC = """---
name: Release freeze
description: When merges stop
type: project
---

Merges freeze every Thursday at 18:00 UTC.
"""


def _facts(cli, agent):
    rc, out, _ = cli("list", "--agent", agent, "--status", "active", "--json")
    return json.loads(out) if rc == 0 and out.strip() else []


def test_a_skill_imports_nothing_without_format(cli, tmp_path):
    skill = tmp_path / ".claude" / "skills" / "project-memory" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL, encoding="utf-8")
    for target in (skill, skill.parent):
        rc, out, err = cli("import", "--agent", "spec", str(target))
        assert rc == 1
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "agent skill" in lines[0] and "--format" in lines[0], err
    assert _facts(cli, "spec") == []

    rc, out, err = cli("import", "--agent", "spec", "--format", "claude-code-memory", str(skill))
    assert rc == 0, err
    assert any("store secrets" in f["content"] for f in _facts(cli, "spec"))


def test_a_command_definition_and_a_readme_are_refused(cli, tmp_path):
    cmd = tmp_path / "review.md"
    cmd.write_text(
        "---\nname: review\ndescription: Review the diff\nmodel: sonnet\n---\n\nReview it.\n",
        encoding="utf-8",
    )
    readme = tmp_path / "README.md"
    readme.write_text("# Tool\n\nA memory system for agents.\n", encoding="utf-8")
    for f, why in ((cmd, "frontmatter model"), (readme, "documentation")):
        rc, _, err = cli("import", "--agent", "docs", str(f))
        assert rc == 1 and why in err, err


def test_a_skill_beside_real_topic_files_is_skipped_with_its_reason(cli, tmp_path):
    mem = tmp_path / ".claude" / "memory"
    mem.mkdir(parents=True)
    (mem / "project_freeze.md").write_text(TOPIC, encoding="utf-8")
    (mem / "SKILL.md").write_text(SKILL, encoding="utf-8")
    rc, out, err = cli("import", "--agent", "cc", str(mem))
    assert rc == 0, err
    assert "skipped SKILL.md: SKILL.md is an agent skill" in out
    assert [f["content"] for f in _facts(cli, "cc")] == [
        "Merges freeze every Thursday at 18:00 UTC."
    ]

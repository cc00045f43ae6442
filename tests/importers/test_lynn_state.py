"""Lynn's active-task.json and the shared $LYNN_HOME/user/user.md, imported into the real store
beside the rest of a Lynn agent's memory dir."""

from __future__ import annotations

import json
import os
from datetime import date, datetime

import pytest

from services.interop.importers.base import ImportFormatError
from services.interop.importers.lynn_state import display_path
from services.interop.importers.service import detect_format
from tests.importers.conftest import MTIME

BASE_FACTS = 22  # what the lynn_dir fixture adds on its own (see test_lynn.py)
TASK = {
    "title": "Memory export",
    "status": "active",
    "goal": "Let users export their facts as JSONL",
    "next_step": "Write the round-trip test",
    "project_path": "/Users/lin/code/lynn-desktop",
    "notes": ["Keep the export under 5 MB"],
    "evidence": ["tests/export.test.ts passes locally"],
    "source": "agent",
    "updated_at": "2026-05-06T09:30:12.345Z",
}
ACTIVE = (
    "Active task: Memory export — goal: Let users export their facts as JSONL; "
    "next: Write the round-trip test\nNote: Keep the export under 5 MB"
)
USER_MD = """# 关于我

- **Name:** Lin
- **Timezone:** Asia/Shanghai
- 喜欢简洁直接的回答
Prefers TypeScript over JavaScript for new code

## 工作
在一家做跨境支付的公司做前端负责人
平时用 MacBook Pro 和 VS Code
I mostly review pull requests in the morning and write code in the
afternoon, after lunch.

## Communication
- Reply in Simplified Chinese unless the question is in English
  (English questions get English answers)
"""
PROFILE = {  # content → (category, line)
    "Name: Lin": ("fact", 3),
    "Timezone: Asia/Shanghai": ("fact", 4),
    "喜欢简洁直接的回答": ("pref", 5),
    "Prefers TypeScript over JavaScript for new code": ("pref", 6),
    "在一家做跨境支付的公司做前端负责人": ("fact", 9),
    "平时用 MacBook Pro 和 VS Code": ("fact", 10),
    "I mostly review pull requests in the morning and write code in the afternoon, after lunch.": (
        "fact",
        11,
    ),
    "Reply in Simplified Chinese unless the question is in English (English questions get "
    "English answers)": ("pref", 15),
}


def write_task(memory_dir, **changes):
    """As Lynn's ActiveTaskMemory.set() writes it: pretty JSON, no trailing newline."""
    f = memory_dir / "active-task.json"
    f.write_text(json.dumps({**TASK, **changes}, ensure_ascii=False, indent=2), encoding="utf-8")
    return f


@pytest.fixture
def lynn_home(lynn_dir):
    """$LYNN_HOME holding agent 'hana' (memory dir = lynn_dir) with an active task, and the
    user profile shared by all agents."""
    write_task(lynn_dir)
    home = lynn_dir.parents[2]
    (home / "user").mkdir()
    f = home / "user" / "user.md"
    f.write_text(USER_MD, encoding="utf-8")
    os.utime(f, (MTIME, MTIME))
    return home


def _tasks(facts):
    return {
        c: f
        for c, f in facts.items()
        if f.category == "task" and f.source_ref == "active-task.json"
    }


def test_active_task_and_user_profile_are_imported(agent, lynn_home, lynn_dir, stored):
    assert detect_format(lynn_dir.parent) == "lynn"
    rep = agent.import_path(lynn_dir.parent)  # the agent dir, as a user would pick it
    assert rep.skipped and all(
        p.file != "active-task.json" and "user.md" not in p.file for p in rep.skipped
    )  # only the fixture's own broken rows
    assert rep.added == BASE_FACTS + 1 + len(PROFILE)
    facts = stored(agent)

    task = facts[ACTIVE]
    assert (task.category, task.status, task.importance) == ("task", "active", 0.8)
    assert task.created_at == datetime(2026, 5, 6, 9, 30, 12)
    assert task.event_date == date(2026, 5, 6)
    assert task.subject == "lynn:active-task:hana"
    assert task.metadata["evidence"] == ["tests/export.test.ts passes locally"]
    assert task.metadata["project_path"] == "/Users/lin/code/lynn-desktop"

    profile = display_path(lynn_home / "user" / "user.md")
    for content, (cat, line) in PROFILE.items():
        f = facts[content]
        assert (f.category, f.source_ref, f.status) == (cat, f"{profile}:{line}", "active"), content
        assert "user" in f.tags and f.event_date == date(2026, 5, 20)  # the file's date
    assert facts["Name: Lin"].subject == "user:name"
    assert "工作" in facts["平时用 MacBook Pro 和 VS Code"].tags  # the heading, as context
    assert not {"关于我", "工作", "Communication"} & set(facts)


def test_reimport_adds_nothing(agent, lynn_home, lynn_dir):
    first = agent.import_path(lynn_dir)
    again = agent.import_path(lynn_dir)
    assert (again.added, again.superseded) == (0, 0)
    assert again.duplicates == first.added + first.duplicates


def test_changed_task_supersedes_the_old_one(agent, lynn_home, lynn_dir, stored):
    agent.import_path(lynn_dir)
    write_task(
        lynn_dir,
        status="blocked",
        next_step="Wait for Maria's review of the schema",
        notes=["Maria is back on Monday"],
        updated_at="2026-05-07T14:02:00.000Z",
    )
    rep = agent.import_path(lynn_dir)
    assert (rep.added, rep.superseded) == (1, 1)
    blocked = (
        "Blocked task: Memory export — goal: Let users export their facts as JSONL; "
        "next: Wait for Maria's review of the schema\nNote: Maria is back on Monday"
    )
    facts = stored(agent)
    assert facts[ACTIVE].status == "superseded"
    assert facts[ACTIVE].superseded_by == facts[blocked].id
    assert facts[blocked].created_at == datetime(2026, 5, 7, 14, 2)

    # finished: kept as history, less important, and no longer the current task
    write_task(lynn_dir, status="done", next_step="", notes=[], updated_at="2026-05-09T18:00:00Z")
    rep = agent.import_path(lynn_dir)
    assert (rep.added, rep.superseded) == (1, 1)
    facts = stored(agent)
    done = facts["Finished task: Memory export — goal: Let users export their facts as JSONL"]
    assert (done.status, done.importance, done.event_date) == ("active", 0.3, date(2026, 5, 9))
    assert [f.content for f in _tasks(facts).values() if f.status == "active"] == [done.content]
    assert agent.import_path(lynn_dir).added == 0


def test_idle_task_without_title_is_noted_not_imported(agent, lynn_home, lynn_dir, stored):
    write_task(lynn_dir, title="", status="idle", goal="", next_step="", notes=[])
    rep = agent.import_path(lynn_dir)
    notes = [p for p in rep.skipped if p.file == "active-task.json"]
    assert [p.reason for p in notes] == [
        "no current task (status idle, no title); nothing to import"
    ]
    assert rep.added == BASE_FACTS + len(PROFILE)
    assert _tasks(stored(agent)) == {}


@pytest.mark.parametrize(
    "raw, line, reason",
    [
        (b'{\n  "title": "Memory export",\n  "status": "active"\n  "goal": "x"\n}', 4, "JSON"),
        (json.dumps({**TASK, "notes": "Keep it small"}, indent=2).encode(), 7, "'notes'"),
        (json.dumps({**TASK, "updated_at": 1746523812345}, indent=2).encode(), 14, "'updated_at'"),
        (b"[]", None, "not a task"),
        (json.dumps(TASK, indent=2).encode().replace(b"round-trip", b"round\xff-trip"), 5, "UTF-8"),
    ],
    ids=["bad-json", "notes-not-a-list", "date-as-number", "not-an-object", "bad-bytes"],
)
def test_malformed_task_is_reported_and_the_rest_imports(
    agent, lynn_home, lynn_dir, stored, raw, line, reason
):
    (lynn_dir / "active-task.json").write_bytes(raw)
    rep = agent.import_path(lynn_dir)
    [p] = [p for p in rep.skipped if p.file == "active-task.json"]
    assert p.line == line and reason in p.reason
    assert rep.added == BASE_FACTS + len(PROFILE) and rep.episodes_added == 4
    assert _tasks(stored(agent)) == {}


def test_user_edits_survive_reimport(agent, lynn_home, lynn_dir, stored):
    agent.import_path(lynn_dir)
    facts = stored(agent)
    task = agent.edit(facts[ACTIVE].id, content="Active task: Memory export (JSONL + CSV)")
    tz = agent.edit(facts["Timezone: Asia/Shanghai"].id, content="Timezone: Europe/Berlin")
    agent.delete([facts["平时用 MacBook Pro 和 VS Code"].id])

    rep = agent.import_path(lynn_dir)
    assert rep.added == 0
    after = stored(agent)
    assert after[task.content].status == "active" and ACTIVE not in after
    assert after[tz.content].status == "active" and "Timezone: Asia/Shanghai" not in after
    assert "平时用 MacBook Pro 和 VS Code" not in after


def test_bad_lines_in_the_user_profile_are_reported(agent, lynn_home, lynn_dir, stored):
    f = lynn_home / "user" / "user.md"
    f.write_bytes(USER_MD.encode().replace(b"VS Code", b"VS \xc3\x28Code"))
    rep = agent.import_path(lynn_dir)
    [p] = [p for p in rep.skipped if "user.md" in p.file]
    assert (p.file, p.line) == (display_path(f), 10) and "UTF-8" in p.reason
    assert rep.added == BASE_FACTS + 1 + len(PROFILE) - 1
    assert ACTIVE in stored(agent)


def test_cli_reports_a_broken_task_file_with_its_path(cli, lynn_home, lynn_dir):
    (lynn_dir / "active-task.json").write_text('{"title": "Memory export",', encoding="utf-8")
    rc, out, err = cli("import", "--agent", "hana", str(lynn_dir))
    assert rc == 0, err
    assert any(
        ln.strip().startswith("skipped active-task.json:1: not valid JSON")
        for ln in out.splitlines()
    )


def test_only_lynns_own_active_task_json_marks_a_lynn_dir(tmp_path):
    other = tmp_path / "project" / ".harness"
    other.mkdir(parents=True)
    (other / "active-task.json").write_text(json.dumps(TASK), encoding="utf-8")
    with pytest.raises(ImportFormatError):
        detect_format(other)
    # a fresh Lynn agent whose memory holds nothing else yet
    mem = tmp_path / ".lynn" / "agents" / "butter" / "memory"
    mem.mkdir(parents=True)
    write_task(mem)
    assert detect_format(mem) == "lynn"


def test_changed_profile_line_supersedes_and_new_lines_are_added(
    agent, lynn_home, lynn_dir, stored
):
    agent.import_path(lynn_dir)
    f = lynn_home / "user" / "user.md"
    f.write_text(
        USER_MD.replace("Asia/Shanghai", "Europe/Berlin")
        + "- Has a standing meeting every Tuesday at 10:00\n",
        encoding="utf-8",
    )
    os.utime(f, (MTIME + 86400, MTIME + 86400))
    rep = agent.import_path(lynn_dir)
    assert (rep.added, rep.superseded) == (2, 1)
    facts = stored(agent)
    assert facts["Timezone: Asia/Shanghai"].status == "superseded"
    assert facts["Timezone: Europe/Berlin"].event_date == date(2026, 5, 21)
    assert facts["Has a standing meeting every Tuesday at 10:00"].status == "active"


def test_profile_lines_bullets_and_wrapped_prose(tmp_path):
    mem = tmp_path / ".lynn" / "agents" / "hana" / "memory"
    mem.mkdir(parents=True)
    write_task(
        mem, title="", goal="", next_step="Ask the user which export format they need", notes=[]
    )
    (tmp_path / ".lynn" / "user").mkdir()
    (tmp_path / ".lynn" / "user" / "user.md").write_text(
        "## Tools\n"
        "- Uses a split keyboard with a Colemak layout for everything except games\n"
        "Works from a café on Fridays\n"
        "- Runs Arch Linux at home,\n"
        "  macOS at work\n"
        "I keep a paper notebook for planning and I would like the assistant to\n"
        "remind me to copy decisions into it\n"
        "---\n"
        "<!-- written in Lynn's settings -->\n",
        encoding="utf-8",
    )
    from services.interop.importers.service import parse_source

    parsed = parse_source(mem)
    assert [f.content for f in parsed.facts] == [
        "Active task: Ask the user which export format they need",
        "Uses a split keyboard with a Colemak layout for everything except games",
        "Works from a café on Fridays",
        "Runs Arch Linux at home, macOS at work",
        "I keep a paper notebook for planning and I would like the assistant to remind me to "
        "copy decisions into it",
    ]
    assert [f.source_ref.rsplit(":", 1)[1] for f in parsed.facts[1:]] == ["2", "3", "4", "6"]
    assert all("tools" in f.tags for f in parsed.facts[1:])

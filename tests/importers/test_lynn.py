"""Importing a Lynn memory dir (facts.db v1 and v6, session summaries, compiled files) into
the real store."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import date, datetime

from services.interop.importers.service import detect_format, parse_source


def _digest(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_v6_facts_db_summaries_and_compiled_files(agent, lynn_dir, stored):
    assert detect_format(lynn_dir) == "lynn"
    assert detect_format(lynn_dir.parent) == "lynn"  # the agent dir holding memory/
    rep = agent.import_path(lynn_dir)
    assert rep.format == "lynn"
    # 17 non-empty facts.db rows + 2 + 2 + 1 key facts from the summaries
    assert rep.added == 22 and rep.duplicates == 0
    assert rep.episodes_added == 4
    facts = stored(agent)

    cases = {
        "用户喜欢用 Vim 键位编辑代码": ("pref", 1.0),  # preference, score 12
        "lynn-desktop uses Electron 33 with a React 19 renderer": ("proj:lynn-desktop", 1.0),
        "Chose better-sqlite3 over sql.js for the fact store": ("proj:general", 0.6),
        "Never call the embedding API inside a database transaction": ("rule", 0.8),
        "Node 22 is required to build the desktop app": ("fact", 0.5),
        "Maria is the user's co-founder and handles sales": ("fact", 0.9),
        "Ship the memory export feature before the June talk": ("task", 0.7),
        "Vite dev server hangs when the project path contains a space": ("rule", 1.0),
        "Release steps: bump the version, tag it, then run npm run dist on the Mac mini": (
            "rule",
            0.4,
        ),
        "Migrated the fact store to schema v6 on Sunday morning": ("fact", 0.3),
        "GLM-5.1 reached 42 tok/s on the DGX Spark with FP8": ("fact", 0.65),
        "The user keeps a paper notebook for weekly planning": ("fact", 0.5),  # score 0: unknown
        # the category names of older Lynn builds
        "Prefers answers in Simplified Chinese unless code is involved": ("pref", 1.0),
        "The billing service lives in the payments monorepo": ("proj:payments", 1.0),
        "Use pnpm workspaces instead of lerna for new packages": ("rule", 1.0),
        "The user was born in Hangzhou": ("fact", 1.0),
    }
    for content, (cat, imp) in cases.items():
        f = facts[content]
        assert (f.category, round(f.importance, 3)) == (cat, imp), content
    vim = facts["用户喜欢用 Vim 键位编辑代码"]
    assert vim.event_date == date(2026, 5, 1) and vim.created_at == datetime(2026, 5, 1, 9, 12)
    assert vim.tags == ("偏好", "编辑器") and vim.confidence == 0.9
    assert vim.source_ref == "facts.db#1" and vim.metadata["lynn_category"] == "preference"

    # key facts from both locales' summaries; the Chinese ones dated by the session
    dark = facts["用户偏好深色主题和等宽字体"]
    assert dark.category == "pref" and dark.event_date == date(2026, 5, 3)
    assert (
        facts["Always run the linter before committing in the lynn-desktop repo"].category == "rule"
    )
    assert (
        facts["The team's staging cluster runs on Hetzner in Falkenstein"].source_ref
        == "summaries/2026-04-28-notes.md:2"
    )

    eps = {e.source_file: e for e in agent.episodes.list()}
    zh = eps["summaries/1767001200000_a1b2c3d4.json"]
    # created 06:12 UTC, first timeline stamp 14:12 local: the local time is kept
    assert (zh.day, zh.time) == (date(2026, 5, 3), "2:12 PM")
    assert (
        zh.summary.startswith("14:12 用户要求重构记忆模块的存储层") and "重要事实" not in zh.summary
    )
    en = eps["summaries/e5f6a7b8-english.json"]
    assert (en.day, en.time) == (date(2026, 5, 4), "6:05 PM")
    assert eps["summaries/2026-04-28-notes.md"].day == date(2026, 4, 28)
    assert (
        eps["summaries/f0e1d2c3-empty.json"].summary
        == "08:00 User said hello and closed the window"
    )

    problems = {(p.file, p.line): p.reason for p in rep.skipped}
    assert set(problems) == {("facts.db", None), ("summaries/b9c8d7e6-broken.json", 1)}
    assert "row id 18" in problems[("facts.db", None)]
    assert "JSON" in problems[("summaries/b9c8d7e6-broken.json", 1)]


def test_compiled_layers_are_kept_not_turned_into_facts(lynn_dir):
    parsed = parse_source(lynn_dir)
    assert set(parsed.compiled) == {"today", "week", "longterm", "memory", "facts"}
    assert parsed.compiled["memory"].startswith("## 重要事实")
    assert parsed.compiled["week"].startswith("本周主要在做记忆系统 v2")
    assert not any(
        f.source_ref.startswith(("today.md", "week.md", "longterm.md", "memory.md", "facts.md"))
        for f in parsed.facts
    )


def test_secret_in_a_lynn_fact_is_redacted(agent, lynn_dir, stored):
    rep = agent.import_path(lynn_dir)
    assert rep.redacted >= 1
    facts = stored(agent)
    key = [c for c in facts if c.startswith("The staging OpenAI key is")]
    assert key == ["The staging OpenAI key is [REDACTED:openai-key]"]


def test_reimport_adds_nothing_and_facts_db_is_untouched(agent, lynn_dir):
    db = lynn_dir / "facts.db"
    before = (_digest(db), db.stat().st_mtime_ns, sorted(p.name for p in lynn_dir.iterdir()))
    first = agent.import_path(lynn_dir)
    again = agent.import_path(lynn_dir)
    assert (again.added, again.episodes_added) == (0, 0)
    assert again.duplicates == first.added + first.duplicates
    assert again.episodes_duplicates == first.episodes_added
    assert (
        _digest(db),
        db.stat().st_mtime_ns,
        sorted(p.name for p in lynn_dir.iterdir()),
    ) == before  # not even -wal/-shm side files appeared


def test_facts_db_being_written_by_a_running_lynn(agent, lynn_dir, stored):
    """Lynn keeps facts.db open in WAL mode: rows still in the -wal file are read too, and the
    main file is not changed by the import."""
    db = lynn_dir / "facts.db"
    lynn = sqlite3.connect(db)
    try:
        lynn.execute("PRAGMA wal_autocheckpoint = 0")
        lynn.execute(
            "INSERT INTO facts (fact, tags, time, created_at, category, "
            "importance_score) VALUES ('The user switched to a split keyboard', "
            "'[]', '2026-05-06T09:00', '2026-05-06T01:00:00.000Z', 'preference', 10)"
        )
        lynn.commit()
        digest = _digest(db)
        assert (lynn_dir / "facts.db-wal").exists()
        agent.import_path(lynn_dir)
        assert stored(agent)["The user switched to a split keyboard"].category == "pref"
        assert _digest(db) == digest
    finally:
        lynn.close()


def test_old_v1_schema(agent, tmp_path, stored, make_lynn_db):
    d = tmp_path / "memory"
    d.mkdir()
    make_lynn_db(d / "facts.db", 1)
    assert [r[1] for r in sqlite3.connect(d / "facts.db").execute("PRAGMA table_info(facts)")] == [
        "id",
        "fact",
        "tags",
        "time",
        "session_id",
        "created_at",
    ]
    rep = agent.import_path(d)
    assert rep.format == "lynn" and rep.added == 3 and rep.skipped == []
    facts = stored(agent)
    mail = facts["用户每天早上先处理邮件"]
    assert mail.category == "pref"  # no category column: read from its tags
    assert mail.importance == 0.5 and mail.event_date == date(2026, 2, 10)
    assert mail.created_at == datetime(2026, 2, 10, 3, 0)
    assert facts["Backups of the notes go to an external SSD every Friday"].category == "fact"


def test_corrupt_facts_db_is_reported_and_the_rest_imports(agent, lynn_dir, stored):
    db = lynn_dir / "facts.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\x13\x37" * 3000)
    rep = agent.import_path(lynn_dir)
    assert rep.format == "lynn"
    db_problems = [p for p in rep.skipped if p.file == "facts.db"]
    assert len(db_problems) == 1 and "not a readable SQLite database" in db_problems[0].reason
    assert rep.episodes_added == 4
    facts = stored(agent)
    assert "Always run the linter before committing in the lynn-desktop repo" in facts
    # with facts.db unreadable, the compiled facts.md is the fallback source of facts
    assert facts["记忆系统 v2 决定采用 SQLite + FTS5，不再用 JSON 文件"]
    assert facts["用户偏好深色主题和等宽字体"].source_ref.startswith("summaries/")
    assert db.read_bytes().startswith(b"SQLite format 3\x00\x13\x37")


def test_facts_db_without_a_facts_table(agent, tmp_path):
    d = tmp_path / "memory"
    d.mkdir()
    sqlite3.connect(d / "facts.db").execute("CREATE TABLE notes (x TEXT)").connection.commit()
    (d / "summaries").mkdir()
    (d / "summaries" / "s1.json").write_text(
        json.dumps(
            {
                "session_id": "s1",
                "created_at": "2026-05-07T10:00:00Z",
                "updated_at": None,
                "summary": "## Key Facts\n- The user's cat is called Miso\n\n## Timeline\n"
                "10:00 Chatted about pets",
            }
        ),
        encoding="utf-8",
    )
    rep = agent.import_path(d)
    assert rep.added == 1 and rep.episodes_added == 1
    assert [p.reason for p in rep.skipped] == [
        "facts.db has no 'facts' table; its facts were not imported"
    ]


def test_unmigrated_legacy_memories_db_and_a_row_with_bad_bytes(
    agent, tmp_path, stored, make_lynn_db
):
    d = tmp_path / "memory"
    d.mkdir()
    make_lynn_db(d / "facts.db", 1)
    con = sqlite3.connect(d / "facts.db")
    con.execute(
        "INSERT INTO facts (fact, tags, created_at) VALUES (CAST(? AS TEXT), '[]', "
        "'2026-02-13T00:00:00Z')",
        (b"caf\xe9 order",),
    )
    con.commit()
    con.close()
    legacy = sqlite3.connect(d / "memories.db")
    legacy.execute("CREATE TABLE memories (content TEXT, tags TEXT, date TEXT, created_at TEXT)")
    legacy.execute(
        "INSERT INTO memories VALUES ('The first Lynn install was on a ThinkPad', "
        "'[\"device\"]', '2025-12-01', '2025-12-01T08:00:00.000Z')"
    )
    legacy.commit()
    legacy.close()
    (d / ".v2-migrated").write_text("failed: disk full", encoding="utf-8")
    rep = agent.import_path(d)
    facts = stored(agent)
    old = facts["The first Lynn install was on a ThinkPad"]
    assert old.event_date == date(2025, 12, 1) and old.source_ref == "memories.db#1"
    assert [(p.file, p.reason) for p in rep.skipped] == [
        ("facts.db", "row id 4: fact is not UTF-8 text")
    ]
    assert rep.added == 4

    # once the migration succeeded, memories.db holds copies: it is not read again
    (d / ".v2-migrated").write_text("2026-01-01T00:00:00.000Z", encoding="utf-8")
    assert not any(f.source_ref.startswith("memories.db") for f in parse_source(d).facts)


def test_dir_with_only_lynns_compiled_memory_md_is_lynn(tmp_path):
    """memory.md is also what Hermes calls its file on case-insensitive disks; Lynn's own,
    recognised by its assembled sections, must not be imported as Hermes entries."""
    d = tmp_path / "memory"
    d.mkdir()
    (d / "memory.md").write_text(
        "## Key facts\n\n(none)\n\n## Today\n\nWrote the launch post."
        "\n\n## Past week\n\nShipped v2.\n",
        encoding="utf-8",
    )
    assert detect_format(d) == "lynn"
    parsed = parse_source(d)
    assert parsed.facts == [] and parsed.compiled["memory"].startswith("## Key facts")


def test_rolling_summary_rewritten_by_lynn_updates_its_episode(agent, lynn_dir):
    """Lynn overwrites summaries/<session>.json as a session goes on: re-importing must
    update that session's episode, not add a second one."""
    agent.import_path(lynn_dir)
    f = lynn_dir / "summaries" / "e5f6a7b8-english.json"
    before = [
        e for e in agent.episodes.list() if e.source_file == "summaries/e5f6a7b8-english.json"
    ]
    assert len(before) == 1
    data = json.loads(f.read_text(encoding="utf-8"))
    data["summary"] += "\n19:40 User rehearsed the talk twice"
    data["updated_at"] = "2026-05-04T19:45:00.000Z"
    f.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    again = agent.import_path(lynn_dir)
    assert (again.episodes_added, again.episodes_updated) == (0, 1)
    after = [e for e in agent.episodes.list() if e.source_file == "summaries/e5f6a7b8-english.json"]
    assert len(after) == 1 and after[0].id == before[0].id
    assert "rehearsed the talk twice" in after[0].summary
    third = agent.import_path(lynn_dir)
    assert (third.episodes_added, third.episodes_updated) == (0, 0)

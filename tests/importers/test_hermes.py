"""Importing Hermes-native MEMORY.md/USER.md (no ``[date][cat]`` prefix) into the real store."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime

from services.interop.importers.service import detect_format, parse_source

FILE_DAY = date(2026, 5, 20)  # the fixtures' modification time (conftest.MTIME)


def test_near_miss_tags_give_category_and_date(agent, hermes_dir, stored):
    rep = agent.import_path(hermes_dir / "home")
    assert rep.format == "hermes"
    assert rep.skipped == []
    facts = stored(agent)

    def get(prefix):
        hits = [f for c, f in facts.items() if c.startswith(prefix)]
        assert len(hits) == 1, (prefix, list(facts))
        return hits[0]

    wd = get("工作目录")  # [ENV · 永久]: no date in the tag → the file's date
    assert (wd.category, wd.event_date) == ("env", FILE_DAY)
    assert "permanent" in wd.tags and not wd.content.startswith("[")
    assert wd.metadata["tag"] == "[ENV · 永久]"
    provider = get("主力模型供应商")  # [ENV · 2026-04-29]
    assert (provider.category, provider.event_date, provider.created_at) == (
        "env",
        date(2026, 4, 29),
        datetime(2026, 4, 29),
    )
    fixed = get("skills/ 子模块问题已修复")  # [FIXED · 2026-05-25]: a status word, not a category
    assert (fixed.category, fixed.event_date) == ("fact", date(2026, 5, 25))
    release = get("每次发布前必须跑完整回归测试")  # [PERMANENT · 2026-05-26] + "必须"
    assert (release.category, release.event_date) == ("rule", date(2026, 5, 26))
    assert get("提交前用 git log -S").category == "rule"  # [SECURITY · …]
    # labels Engram does not know are tags, not made-up projects
    stage = get("多智能体方案第二阶段")
    assert not stage.category.startswith("proj:") and "multi-agent" in stage.tags
    ctf = get("四个仓库加四个技能")
    assert not ctf.category.startswith("proj:") and "ctf" in ctf.tags
    name = get("用户名")
    assert name.category == "fact" and "user" in name.tags
    assert get("沟通偏好").category == "pref"
    plain = get("没有任何标签的一条记忆")
    assert plain.event_date == FILE_DAY and plain.created_at == datetime(2026, 5, 20, 12, 0)


def test_header_banner_and_separator_entries_are_not_facts(agent, hermes_dir, stored):
    rep = agent.import_path(hermes_dir / "home")
    facts = stored(agent)
    # MEMORY.md: 10 entries with content; USER.md: 3 profile lines + 3 entries
    # ("Context > Communication Style: ---" has no content)
    assert rep.added == 16 and len(facts) == 16
    assert not any("MEMORY —" in c or "═" in c or c.strip("-") == "" for c in facts)
    assert not any(c.endswith("---") for c in facts)


def test_user_md_profile_and_breadcrumbs(agent, hermes_dir, stored):
    agent.import_path(hermes_dir / "home")
    facts = stored(agent)
    assert facts["Name: Allen"].category == "fact"
    assert facts["Timezone: Asia/Shanghai (GMT+8)"].subject == "user:timezone"
    thinks = facts[
        "Context > How Allen Thinks: **First principles** — wants the root idea before the details"
    ]
    assert thinks.category == "pref" and "how-allen-thinks" in thinks.tags
    assert facts["Context > Communication Style: Prefers depth over brevity"].category == "pref"
    assert facts["Allen prefers topic-based plans over chronological ones."].category == "pref"
    assert all(
        "user" in f.tags for c, f in facts.items() if f.source_ref.startswith("memories/USER.md")
    )


def test_italic_preamble_topics_inline_dates_and_mtime(agent, hermes_dir, stored):
    f = hermes_dir / "plain" / "MEMORY.md"
    ts = datetime(2026, 3, 25, 9, 30, tzinfo=UTC).timestamp()
    os.utime(f, (ts, ts))
    assert detect_format(f) == "hermes"
    rep = agent.import_path(f)  # a single file, no trailing newline
    facts = stored(agent)
    assert rep.added == 5 and not any("Curated learnings" in c for c in facts)
    about = facts["About Allen: Software engineer working on a trading assistant"]
    assert (about.category, about.event_date, about.source_ref) == (
        "fact",
        date(2026, 3, 25),
        "MEMORY.md:3",
    )
    assert "about-allen" in about.tags
    key = next(v for c, v in facts.items() if c.startswith("Key Events:"))
    assert key.event_date == date(2026, 3, 18)  # the inline **2026-03-18:** date
    migration = next(v for c, v in facts.items() if c.startswith("Telegram Migration"))
    assert migration.category == "task" and "\nStill needs" in migration.content
    # secrets in Hermes entries are redacted too
    bot = next(v for c, v in facts.items() if c.startswith("Bot setup:"))
    assert "hunter2" not in bot.content and "[REDACTED" in bot.content
    assert rep.redacted == 1


def test_reimport_adds_nothing(agent, hermes_dir):
    first = agent.import_path(hermes_dir / "home")
    again = agent.import_path(hermes_dir / "home")
    assert first.added > 0 and again.added == 0
    assert again.duplicates == first.added + first.duplicates
    assert agent.facts.count() == first.added


def test_binary_garbage_named_memory_md(agent, tmp_path, stored):
    d = tmp_path / "h"
    d.mkdir()
    (d / "MEMORY.md").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20)
    (d / "USER.md").write_text("**Name:** Lee\n§\nLee prefers tea over coffee\n", encoding="utf-8")
    rep = agent.import_path(d)
    assert rep.format == "hermes" and rep.added == 2
    assert [(p.file, p.line) for p in rep.skipped] == [("MEMORY.md", None)]
    assert "binary" in rep.skipped[0].reason
    # pointed at the broken file itself: still a clear report, not a crash
    rep = agent.import_path(d / "MEMORY.md")
    assert rep.added == 0 and "not a text file" in rep.skipped[0].reason
    assert set(stored(agent)) == {"Name: Lee", "Lee prefers tea over coffee"}


def test_invalid_utf8_entry_is_skipped_with_its_line(agent, tmp_path, stored):
    f = tmp_path / "MEMORY.md"
    f.write_bytes(
        b"Project: the wiki runs on BookStack\n\xc2\xa7\n"
        b"Caf\xe9 notes: garbled\n\xc2\xa7\nTools: uses ripgrep for code search\n"
    )
    rep = agent.import_path(f)
    assert [(p.file, p.line) for p in rep.skipped] == [("MEMORY.md", 3)]
    assert set(stored(agent)) == {
        "Project: the wiki runs on BookStack",
        "Tools: uses ripgrep for code search",
    }


def test_notes_without_any_delimiter_split_into_items(tmp_path):
    f = tmp_path / "USER.md"
    f.write_text(
        "# User\n\n- **Name:** Kim\n- **Editor:** Zed\n\nKim likes terse replies.\n\n"
        "- Works from Lisbon\n- Never schedule calls on Fridays\n",
        encoding="utf-8",
    )
    parsed = parse_source(f)
    assert parsed.format == "hermes"
    got = [(x.content, x.category, x.source_ref) for x in parsed.facts]
    assert got == [
        ("Name: Kim", "fact", "USER.md:3"),
        ("Editor: Zed", "fact", "USER.md:4"),
        ("Kim likes terse replies.", "pref", "USER.md:6"),
        ("Works from Lisbon", "fact", "USER.md:8"),
        ("Never schedule calls on Fridays", "rule", "USER.md:9"),
    ]


def test_titled_header_prose_is_not_a_fact_but_profile_lines_are(tmp_path):
    f = tmp_path / "USER.md"
    f.write_text(
        "# About the user\nThis file is edited by hand; entries are split by §.\n"
        "- **Name:** Ines\n§\nInes prefers morning meetings\n",
        encoding="utf-8",
    )
    got = [(x.content, x.source_ref) for x in parse_source(f).facts]
    assert got == [("Name: Ines", "USER.md:3"), ("Ines prefers morning meetings", "USER.md:5")]


def test_hand_written_user_md_without_delimiters(agent, hermes_dir, stored):
    """Many ~/.hermes/memories/USER.md files are templates people filled in by hand: headings,
    `Label: value` lines, bullets; unfilled placeholders and italic notes are not facts."""
    rep = agent.import_path(hermes_dir / "handwritten")
    assert rep.format == "hermes" and rep.skipped == []
    facts = stored(agent)
    assert set(facts) == {
        "Title: Staff engineer",
        "Company stage: Series A",
        "Prefers concise, direct Markdown. Prices in USD. Verified links.",
        # a wrapped bullet: its continuation line is dedented with the marker
        "Status updates distinguish code-complete, test-verified,\nactive process, and "
        "blocker ETA.",
        "Pronouns: she/her",
        "Cost control: never use OpenRouter unless the user explicitly requests it.",
    }
    style = facts["Prefers concise, direct Markdown. Prices in USD. Verified links."]
    assert style.category == "pref" and "style" in style.tags
    assert style.source_ref == "USER.md:10"
    assert (
        facts["Cost control: never use OpenRouter unless the user explicitly requests it."].category
        == "rule"
    )


def test_import_works_without_the_embedding_model(keyword_engram, hermes_dir):
    """A user whose model is missing can still import (keyword search only)."""
    mem = keyword_engram.agent("hermes", create=True)
    rep = mem.import_path(hermes_dir / "home")
    assert rep.added == 16 and mem.import_path(hermes_dir / "home").added == 0
    hits = mem.search("Volcengine", mode="keyword")
    assert hits and hits[0].fact.content.startswith("主力模型供应商改为 Volcengine")


def test_occasional_prefixed_lines_in_a_hermes_file(tmp_path):
    """An agent that sometimes writes `[date][cat]` lines into a Hermes file: those lines keep
    their date and category, even several in one § block; the rest are read leniently."""
    f = tmp_path / "MEMORY.md"
    f.write_text(
        "Tools: uses uv for Python envs\n§\nnote about the backups\n"
        "[2026-04-01][env] Backups run at 02:00 UTC\n[2026-04-02][rule] Never delete "
        "snapshots by hand\n§\nEditor: Helix\n",
        encoding="utf-8",
    )
    ts = datetime(2026, 3, 1, 12, 0, tzinfo=UTC).timestamp()
    os.utime(f, (ts, ts))
    parsed = parse_source(f)
    assert parsed.format == "hermes"
    got = [(x.source_ref, x.category, x.content, x.event_date) for x in parsed.facts]
    assert got == [
        ("MEMORY.md:1", "env", "Tools: uses uv for Python envs", date(2026, 3, 1)),
        ("MEMORY.md:3", "fact", "note about the backups", date(2026, 3, 1)),
        ("MEMORY.md:4", "env", "Backups run at 02:00 UTC", date(2026, 4, 1)),
        ("MEMORY.md:5", "rule", "Never delete snapshots by hand", date(2026, 4, 2)),
        ("MEMORY.md:7", "fact", "Editor: Helix", date(2026, 3, 1)),
    ]
    assert parsed.facts[0].metadata["date_source"] == "file"
    assert "date_source" not in parsed.facts[2].metadata

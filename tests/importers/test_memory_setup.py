"""Importing a Memory Setup workspace into the real store (SQLite + Chroma + MiniLM)."""

from __future__ import annotations

from datetime import date, datetime

from services.interop.importers.service import detect_format, parse_source

FILE_DAY = date(2026, 5, 20)  # the fixtures' modification time (see conftest.MTIME)


def test_workspace_lands_with_dates_categories_and_statuses(agent, memory_setup_dir, stored):
    rep = agent.import_path(memory_setup_dir)
    assert rep.format == "memory-setup"
    # 12 MEMORY.md entries (one without its prefix), 4 profile lines + 1 entry in USER.md,
    # 2 pending lines
    assert rep.added == 19 and rep.duplicates == 0
    assert rep.episodes_added == 4
    facts = stored(agent)

    pnpm = facts["Prefers pnpm over npm for JavaScript projects"]
    assert (pnpm.category, pnpm.event_date, pnpm.created_at) == (
        "pref",
        date(2026, 4, 12),
        datetime(2026, 4, 12),
    )
    assert pnpm.source == "import" and pnpm.source_ref == "memories/MEMORY.md:10"
    # the older preference about the same thing is kept, marked superseded by the newer one
    yarn = facts["Prefers yarn over npm for JavaScript projects"]
    assert yarn.status == "superseded" and yarn.superseded_by == pnpm.id
    assert rep.superseded == 1

    assert facts["Never push to main without a pull request and a green CI run"].category == "rule"
    proj = facts[
        "alpha-api is a FastAPI service backed by Postgres 16;\nmigrations live in "
        "alembic/versions and run with `make migrate`."
    ]
    assert proj.category == "proj:~/code/alpha-api" and proj.event_date == date(2026, 4, 15)
    assert (
        facts["Maria Lopez reviews every database migration before it ships"].category
        == "rel:maria"
    )
    assert facts["Staging is down for maintenance until Sunday evening"].memory_type == "temporal"
    assert (
        facts["Finish the OAuth callback handler before the Friday demo"].memory_type
        == "procedural"
    )
    meta = facts["Episode tags (canonical): devops, ci, auth, testing, planning"]
    assert meta.category == "meta"

    # unknown category: kept as a fact, the original spelling stays visible
    idea = facts["Maybe cache the embeddings of unchanged files between runs"]
    assert idea.category == "fact" and "idea" in idea.tags
    assert idea.metadata["original_category"] == "idea"

    # an entry that lost its prefix in a hand edit: still a memory, dated by the file
    lost = facts["This line lost its date and category when someone edited the file by hand"]
    assert (lost.category, lost.event_date, lost.source_ref) == (
        "fact",
        FILE_DAY,
        "memories/MEMORY.md:29",
    )
    assert lost.metadata["date_source"] == "file"

    # USER.md bullet profile: one fact per line, about the user, dated by the file
    name = facts["Name: Dana Whitfield"]
    assert name.category == "fact" and "user" in name.tags
    assert name.event_date == FILE_DAY
    assert facts["Communication style: Short answers, bullet points, no filler"].category == "pref"
    assert facts["Wants code review comments grouped by severity"].event_date == date(2026, 4, 12)

    # overflow queue: pending, not active
    rotate = facts["Rotate the alpha-api signing keys after the audit"]
    assert (rotate.status, rotate.category, rotate.event_date) == (
        "pending",
        "proj:alpha-api",
        date(2026, 6, 1),
    )
    assert facts["Prefers meetings after 10am Berlin time"].status == "pending"


def test_episodes_accept_every_spelling_of_heading_summary_and_tags(agent, memory_setup_dir):
    agent.import_path(memory_setup_dir)
    eps = sorted(agent.episodes.list(), key=lambda e: e.id)
    got = [(e.day, e.time, list(e.tags), e.source_file) for e in eps]
    assert got == [
        (date(2026, 4, 12), "2:30 PM", ["devops", "ci", "testing"], "episodes/2026-04-12.md:3"),
        (date(2026, 4, 12), "5:10 PM", ["testing", "auth"], "episodes/2026-04-12.md:11"),
        (date(2026, 4, 13), "9:15 AM", ["auth", "planning"], "episodes/2026-04-13.md:1"),
        (date(2026, 4, 13), "11:40 AM", ["database"], "episodes/2026-04-13.md:7"),
    ]
    assert eps[0].summary.startswith("Set up the CI pipeline for alpha-api.")
    # episodes go through the same secret redaction as facts
    assert "Blue-Falcon-77" not in eps[1].summary and "[REDACTED" in eps[1].summary


def test_malformed_entries_are_reported_with_file_and_line_and_skipped(
    agent, memory_setup_dir, stored
):
    rep = agent.import_path(memory_setup_dir)
    problems = {(p.file, p.line): p.reason for p in rep.skipped}
    assert set(problems) == {
        ("memories/MEMORY.md", 25),  # [2026-13-45]
        ("memories/MEMORY.md", 27),  # date and category, no content
        ("episodes/.pending.md", 3),  # SOUL is not a target
        ("episodes/2026-04-13.md", 13),  # unreadable time
        ("episodes/2026-04-13.md", 18),  # no summary
    }
    assert "2026-13-45" in problems[("memories/MEMORY.md", 25)]
    assert "no content" in problems[("memories/MEMORY.md", 27)]
    assert "time" in problems[("episodes/2026-04-13.md", 13)]
    facts = stored(agent)
    assert not any("quarterly report" in c for c in facts)
    assert not any(c.startswith("The quarterly report") for c in facts)
    assert not any("Be kind" in c for c in facts)


def test_reimport_adds_nothing(agent, memory_setup_dir):
    first = agent.import_path(memory_setup_dir)
    before = agent.facts.count()
    again = agent.import_path(memory_setup_dir)
    assert (again.added, again.episodes_added, again.superseded) == (0, 0, 0)
    assert again.duplicates == first.added + first.duplicates
    assert again.episodes_duplicates == first.episodes_added
    assert agent.facts.count() == before
    assert len(agent.episodes.list()) == first.episodes_added


def test_facts_stored_before_the_import_are_kept(agent, memory_setup_dir, stored):
    mine = agent.remember("Uses a standing desk in the afternoons", category="fact").fact_id
    pinned = agent.remember("Deploys happen on Tuesdays only", category="rule", pinned=True)
    agent.import_path(memory_setup_dir)
    facts = stored(agent)
    assert facts["Uses a standing desk in the afternoons"].id == mine
    assert facts["Uses a standing desk in the afternoons"].status == "active"
    kept = facts["Deploys happen on Tuesdays only"]
    assert kept.pinned and kept.status == "active" and kept.id == pinned.fact_id


def test_secrets_in_entries_are_redacted_before_storage(agent, memory_setup_dir, stored):
    rep = agent.import_path(memory_setup_dir)
    assert rep.redacted >= 1
    facts = stored(agent)
    token = [c for c in facts if c.startswith("Staging deploy token")]
    assert len(token) == 1 and "[REDACTED" in token[0]
    assert not any("ghp_Zq8x4N2mLr7Tb9Kc3Vw1Yp6Hs0Df5Ga2Je4Q" in c for c in facts)
    hits = agent.search("Staging deploy token", mode="keyword")
    assert hits and all("ghp_" not in h.fact.content for h in hits)


def test_invalid_utf8_entry_is_reported_and_its_neighbours_import(agent, tmp_path, stored):
    ws = tmp_path / "ws"
    (ws / "memories").mkdir(parents=True)
    (ws / "memories" / "MEMORY.md").write_bytes(
        b"# MEMORY.md\n\xc2\xa7\n"
        b"[2026-04-01][fact] The build server is called hopper\n\xc2\xa7\n"
        b"[2026-04-02][fact] Caf\xe9 latte order is broken\n\xc2\xa7\n"
        b"[2026-04-03][env] Uses fish shell on the build server\n"
    )
    rep = agent.import_path(ws)
    assert rep.format == "memory-setup" and rep.added == 2
    assert [(p.file, p.line) for p in rep.skipped] == [("memories/MEMORY.md", 5)]
    assert "UTF-8" in rep.skipped[0].reason
    assert set(stored(agent)) == {
        "The build server is called hopper",
        "Uses fish shell on the build server",
    }


def test_binary_garbage_named_memory_md_is_a_clear_problem(agent, tmp_path, stored):
    ws = tmp_path / "ws"
    (ws / "memories").mkdir(parents=True)
    (ws / "episodes").mkdir()
    (ws / "memories" / "MEMORY.md").write_bytes(bytes(range(256)) * 40)
    (ws / "memories" / "USER.md").write_text(
        "§\n[2026-04-01][pref] Likes short commit messages\n", encoding="utf-8"
    )
    rep = agent.import_path(ws)
    assert rep.added == 1 and set(stored(agent)) == {"Likes short commit messages"}
    assert [(p.file, p.line) for p in rep.skipped] == [("memories/MEMORY.md", None)]
    assert "not a text file" in rep.skipped[0].reason


def test_points_at_memories_dir_single_file_and_hermes_home(memory_setup_dir, tmp_path):
    mem = memory_setup_dir / "memories"
    assert detect_format(mem) == "memory-setup"
    only_mem = parse_source(mem)
    assert only_mem.episodes == []  # pointed at memories/: that folder only
    assert {f.source_ref.split(":")[0] for f in only_mem.facts} == {
        "memories/MEMORY.md",
        "memories/USER.md",
    }
    assert detect_format(mem / "MEMORY.md") == "memory-setup"
    assert len(parse_source(mem / "MEMORY.md").facts) == 12

    # ~/.hermes laid out by memory-setup: memories/ only, no episodes/
    home = tmp_path / ".hermes"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_bytes((mem / "MEMORY.md").read_bytes())
    (home / "memories" / "MEMORY.md.lock").write_text("")
    assert detect_format(home) == "memory-setup"
    assert len(parse_source(home).facts) == 12


def test_prefixed_entries_win_detection_over_hermes(tmp_path):
    prefixed = tmp_path / "a" / "memories"
    prefixed.mkdir(parents=True)
    (prefixed / "MEMORY.md").write_text(
        "# MEMORY.md\n§\n[2026-04-01][fact] One\n§\n[2026-04-02][rule] Two\n§\nloose note\n",
        encoding="utf-8",
    )
    assert detect_format(prefixed.parent) == "memory-setup"
    native = tmp_path / "b" / "memories"
    native.mkdir(parents=True)
    (native / "MEMORY.md").write_text(
        "Topic: one\n§\nTopic: two\n§\n[2026-04-01][fact] x\n", encoding="utf-8"
    )
    assert detect_format(native.parent) == "hermes"


def test_hermes_native_memory_md_inside_a_workspace_is_read_leniently(agent, tmp_path, stored):
    ws = tmp_path / "ws"
    (ws / "memories").mkdir(parents=True)
    (ws / "episodes").mkdir()
    (ws / "episodes" / "2026-04-20.md").write_text(
        "## Episode — 10:00 AM\n**Summary:** Tidied the memory files.\n", encoding="utf-8"
    )
    (ws / "memories" / "MEMORY.md").write_text(
        "*Curated notes.*\n§\nEditor: uses Helix with the default keymap\n", encoding="utf-8"
    )
    rep = agent.import_path(ws)
    assert rep.format == "memory-setup" and rep.skipped == [] and rep.episodes_added == 1
    assert set(stored(agent)) == {"Editor: uses Helix with the default keymap"}


def test_pending_queue_in_memories_dir_older_spec(agent, tmp_path, stored):
    ws = tmp_path / "ws"
    (ws / "memories").mkdir(parents=True)
    (ws / "memories" / ".pending.md").write_text(
        "MEMORY\t[2026-05-02][task] Renew the TLS certificate for the wiki\n"
        "user\t[2026-05-02][pref] Likes reviews before lunch\n",
        encoding="utf-8",
    )
    rep = agent.import_path(ws)
    assert rep.format == "memory-setup" and rep.added == 2
    facts = stored(agent)
    assert {(f.status, f.category) for f in facts.values()} == {
        ("pending", "task"),
        ("pending", "pref"),
    }
    assert all(f.source_ref.startswith("memories/.pending.md:") for f in facts.values())


def test_topic_files_of_the_newer_spec(agent, memory_setup_dir, stored):
    mem = memory_setup_dir / "memories"
    (mem / "INDEX.md").write_text("# Index\n- alpha-api.md: the API project\n", encoding="utf-8")
    (mem / "alpha-api.md").write_text(
        "# alpha-api\n§\n[2026-04-30][proj:alpha-api] Rate limits are 100 requests per minute\n",
        encoding="utf-8",
    )
    (mem / "scratch.md").write_text("Some loose notes without entries\n", encoding="utf-8")
    rep = agent.import_path(memory_setup_dir)
    limits = stored(agent)["Rate limits are 100 requests per minute"]
    assert limits.category == "proj:alpha-api" and limits.source_ref == "memories/alpha-api.md:3"
    assert ("memories/scratch.md", None) in {(p.file, p.line) for p in rep.skipped}
    assert not any(p.file == "memories/INDEX.md" for p in rep.skipped)


def test_pending_line_variants_and_utf16_user_md(agent, tmp_path, stored):
    ws = tmp_path / "ws"
    (ws / "memories").mkdir(parents=True)
    (ws / "episodes").mkdir()
    (ws / "episodes" / ".pending.md").write_text(
        "# overflow\n\nMEMORY [2026-05-03][fact] The wiki moved to wiki.internal\n"
        "User: [2026-05-03][pref] Likes dark dashboards\n",
        encoding="utf-8",
    )
    (ws / "memories" / "USER.md").write_bytes(
        "§\n[2026-05-01][pref] Prefers Grafana to Kibana for dashboards\n".encode("utf-16")
    )
    rep = agent.import_path(ws)
    assert rep.skipped == [] and rep.added == 3
    facts = stored(agent)
    assert facts["The wiki moved to wiki.internal"].status == "pending"
    assert facts["Likes dark dashboards"].tags == ("pending", "user")
    assert facts["Prefers Grafana to Kibana for dashboards"].source_ref == "memories/USER.md:2"


def test_reimport_keeps_the_users_corrections_and_deletions(agent, memory_setup_dir, stored):
    """A user fixes one imported fact and deletes another in Engram; importing the unchanged
    source again must not bring the old wording back (or supersede the fix with it)."""
    agent.import_path(memory_setup_dir)
    facts = stored(agent)
    pnpm = facts["Prefers pnpm over npm for JavaScript projects"]
    agent.edit(pnpm.id, content="Prefers bun over npm for JavaScript projects")
    agent.delete([facts["Staging is down for maintenance until Sunday evening"].id])
    count = agent.facts.count()

    rep = agent.import_path(memory_setup_dir)
    assert rep.added == 0 and agent.facts.count() == count
    after = stored(agent)
    fixed = after["Prefers bun over npm for JavaScript projects"]
    assert fixed.id == pnpm.id and fixed.status == "active"
    assert "Prefers pnpm over npm for JavaScript projects" not in after
    assert "Staging is down for maintenance until Sunday evening" not in after


def test_episode_headings_with_more_than_a_time(agent, tmp_path):
    eps = tmp_path / "ws" / "episodes"
    eps.mkdir(parents=True)
    (eps / "2026-04-14-retro.md").write_text(
        "## Episode 2 — 2026-04-14 3:45 PM (retro)\n**Summary:** Sprint retro; agreed to cut "
        "scope.\n**Outcome:** two tickets moved to next sprint\n**Tags:** #planning, #retro\n",
        encoding="utf-8",
    )
    (eps / "2026-02-30.md").write_text(
        "## Episode — 1:00 PM\nsummary: impossible day\n", encoding="utf-8"
    )
    rep = agent.import_path(tmp_path / "ws")
    [ep] = agent.episodes.list()
    assert (ep.day, ep.time, list(ep.tags)) == (date(2026, 4, 14), "3:45 PM", ["planning", "retro"])
    assert ep.summary == (
        "Sprint retro; agreed to cut scope.\n**Outcome:** two tickets moved to next sprint"
    )
    assert [(p.file, p.line) for p in rep.skipped] == [("episodes/2026-02-30.md", None)]


def test_workspace_with_a_summaries_folder_is_not_taken_for_lynn(memory_setup_dir):
    (memory_setup_dir / "summaries").mkdir()
    (memory_setup_dir / "summaries" / "q1.md").write_text(
        "## Q1\nShipped things.\n", encoding="utf-8"
    )
    assert detect_format(memory_setup_dir) == "memory-setup"


def test_unfilled_user_md_template_adds_nothing(agent, tmp_path):
    """memory-setup seeds USER.md with placeholders; they are not facts about anyone."""
    mem = tmp_path / "ws" / "memories"
    mem.mkdir(parents=True)
    (mem / "USER.md").write_text(
        "# USER.md\n\n- **Name:** (your name)\n- **Timezone:** (e.g. America/New_York)\n"
        "- **Communication style:** (how you like to be talked to)\n"
        "- **Key preferences:** (tools, languages, frameworks you prefer)\n",
        encoding="utf-8",
    )
    (mem / "MEMORY.md").write_text(
        "# MEMORY.md\n\n> Entry format: [YYYY-MM-DD][category] content\n\n§\n", encoding="utf-8"
    )
    rep = agent.import_path(tmp_path / "ws")
    assert (rep.added, rep.skipped) == (0, [])


def test_freshly_bootstrapped_hermes_workspace(agent, tmp_path, stored):
    """memory-setup's Hermes bootstrap: headers with no § yet, an empty episodes/ folder;
    agents that append by hand then add entries one per line."""
    home = tmp_path / ".hermes"
    for d in ("memories", "episodes", "sessions"):
        (home / d).mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text(
        "# MEMORY.md\n\n> Durable facts. Loaded every session. Format: [YYYY-MM-DD][cat] "
        "content\n\n",
        encoding="utf-8",
    )
    (home / "memories" / "USER.md").write_text(
        "# USER.md\n\n- **Name:**\n- **Timezone:**\n- **Communication style:**\n"
        "- **Key preferences:**\n",
        encoding="utf-8",
    )
    assert detect_format(home) == "memory-setup"
    assert agent.import_path(home).added == 0

    with (home / "memories" / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write(
            "[2026-04-12][pref] Likes tabs over spaces in Go code\n\n"
            "[2026-04-13][rule] Never force-push\nto shared branches\n"
        )
    rep = agent.import_path(home)
    assert rep.added == 2 and rep.skipped == []
    assert (
        stored(agent)["Never force-push\nto shared branches"].source_ref == "memories/MEMORY.md:7"
    )


def test_entry_written_right_under_the_header(tmp_path):
    f = tmp_path / "memories" / "MEMORY.md"
    f.parent.mkdir()
    f.write_text(
        "# MEMORY.md\n\n> Durable facts.\n[2026-04-12][pref] Likes tabs\n§\n"
        "[2026-04-13][rule] Never force-push\n",
        encoding="utf-8",
    )
    got = [(x.content, x.source_ref) for x in parse_source(tmp_path).facts]
    assert got == [
        ("Likes tabs", "memories/MEMORY.md:4"),
        ("Never force-push", "memories/MEMORY.md:6"),
    ]

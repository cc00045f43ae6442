"""Importing the files agents keep themselves (Claude Code auto memory, instruction files,
Codex memories, basic-memory, the MCP memory server, OpenMemory, Engram's own exports) into a
real store, as a user would: what is stored, and what is not."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest

from services.interop.importers.base import ImportFormatError
from services.interop.importers.service import detect_format, format_names, parse_source

NATIVE = Path(__file__).resolve().parent / "fixtures" / "native"
FRONTMATTER_LINE = re.compile(
    r"^(---|name:|description:|type:|originSessionId:|alwaysApply:|globs:|trigger:|paths:|"
    r"metadata:|permalink:|title:)"
)


@pytest.fixture
def native(tmp_path) -> Path:
    dest = tmp_path / "native"
    shutil.copytree(NATIVE, dest)
    return dest


@pytest.fixture
def mem(keyword_engram):
    return keyword_engram.agent("claude", create=True, kind="claude-code")


def _active(memory) -> dict[str, object]:
    from services.store.facts import FactFilters

    return {f.content: f for f in memory.list(FactFilters(status="active"), limit=10_000)}


def _one(facts: dict, start: str):
    hits = [f for c, f in facts.items() if c.startswith(start)]
    assert len(hits) == 1, (start, list(facts))
    return hits[0]


def _no_frontmatter(facts: dict) -> None:
    for text in facts:
        assert not any(FRONTMATTER_LINE.match(ln.strip()) for ln in text.split("\n")), text


# --- Claude Code auto memory ---------------------------------------------------------------


def test_claude_auto_memory_one_fact_per_statement_not_per_index_line(mem, native):
    folder = native / "claude_memory"
    assert detect_format(folder) == "claude-code-memory"  # not Hermes, despite MEMORY.md
    assert detect_format(folder / "MEMORY.md") == "claude-code-memory"
    rep = mem.import_path(folder)
    facts = _active(mem)
    assert (
        rep.format == "claude-code-memory" and rep.added == len(facts) == 10
    )  # the table: one fact per row
    _no_frontmatter(facts)
    assert not any("user_role.md" in c or "feedback_testing.md" in c for c in facts)

    rule = _one(facts, "Integration tests must run against a real PostgreSQL")
    assert rule.category == "rule"
    assert "**Why:**" in rule.content and "make db-up && go test" in rule.content  # fence kept
    cm = rule.metadata["claude_memory"]
    assert cm["type"] == "feedback" and cm["name"] == "Integration tests use a real database"
    assert rule.metadata["lifecycle"] == "source"

    freeze = _one(facts, "Merges freeze every Thursday")
    assert freeze.category == f"proj:{freeze.metadata['project']}"
    assert "Except hotfixes labelled `sev1`" in freeze.content  # nested bullet kept
    user = _one(facts, "The user is a backend engineer")
    assert "user" in user.tags and not user.category.startswith("proj:")
    ref = _one(facts, "API latency graphs")  # type nested under metadata:
    assert ref.category == "reference"
    # no type in the frontmatter; a bare "**How to apply:**" opens a list that stays with it
    tables = _one(facts, "New tables use the `tree_accordion-dense__*` classes")
    assert (
        "- Touching a file that still uses" in tables.content
        and "**Side effect:**" in tables.content
    )
    assert tables.category == "rule"
    assert _one(facts, "The staging cluster is shared").metadata["claude_memory"]["file"] == (
        "MEMORY.md"
    )


def test_claude_auto_memory_sample_is_not_hermes(mem, shared_dir):
    folder = shared_dir / "formats/samples/claude-auto-memory/cotes2020-jekyll-theme-chirpy"
    folder = folder / ".claude/memory"
    assert detect_format(folder) == "claude-code-memory"
    rep = mem.import_path(folder)
    facts = _active(mem)
    assert rep.added == 3 and not any(c.startswith("[User profile]") for c in facts)
    _no_frontmatter(facts)


# --- instruction files ---------------------------------------------------------------------


def test_instruction_files_of_a_project(mem, native):
    project = native / "project"
    assert detect_format(project) == "instructions"
    rep = mem.import_path(project)
    facts = _active(mem)
    assert rep.skipped == [] and rep.added == len(facts)
    _no_frontmatter(facts)
    assert not any(c.startswith("This file provides guidance") for c in facts)

    fence = _one(facts, "Use the project's error wrapper")
    assert 'errs.Wrap(err, "loading config")' in fence.content and fence.category == "rule"
    nested = _one(facts, "Prefer table-driven tests.")
    assert "Except for the fuzz tests in `fuzz/`" in nested.content
    assert _one(facts, "Errors returned to HTTP clients").category == "rule"  # a paragraph
    assert _one(facts, "NEVER log request bodies").tags[:2] == ("claude-md", "code-style")
    # @docs/style.md is followed once; its @../CLAUDE.md back-reference does not loop
    naming = _one(facts, "Package names are single lowercase words.")
    assert naming.metadata["instruction"]["imported_from"] == "CLAUDE.md"
    local = _one(facts, "My sandbox database is on port 5433")  # CLAUDE.local.md
    assert local.metadata["instruction"]["file"] == "claude-md"

    react = _one(facts, "Prefer functional components with hooks.")
    assert "Except in `legacy/`" in react.content
    info = react.metadata["instruction"]
    assert info["globs"] == "*.tsx" and info["always_apply"] is False  # bare glob: lenient YAML
    assert info["agent"] == "cursor"
    assert _one(facts, "Never edit generated files").metadata["instruction"]["file"] == (
        "cursor-rules"
    )
    assert _one(facts, "CI must stay under ten minutes").metadata["instruction"]["trigger"] == (
        "always_on"
    )
    api = _one(facts, "Every handler validates its input")
    assert api.metadata["instruction"]["globs"] == "api/**/*.go"
    assert _one(facts, "Use `pathlib` instead").metadata["instruction"]["agent"] == "aider"
    assert _one(facts, "Install Go 1.22").category == "env"  # under "## Setup"


def test_gemini_added_memories_are_the_agents_the_rest_the_users(mem, native):
    mem.import_path(native / "project" / "GEMINI.md")
    facts = _active(mem)
    saved = [f for f in facts.values() if f.metadata.get("origin") == "agent"]
    assert sorted(f.content.split("\n")[0] for f in saved) == [
        "The CI runner image is `ghcr.io/acme/ci:2026.05`.",
        "The user prefers short commit messages",
        "The user's staging namespace is `team-pay-staging`.",
    ]
    multi = _one(facts, "The user prefers short commit messages")
    assert "in the imperative mood" in multi.content and "squash before merging" in multi.content
    assert multi.category == "pref"
    mine = _one(facts, "Answer in English")
    assert mine.metadata["origin"] == "user" and mine.category == "rule"
    # the section ends at the next "## " heading, not at the end of the file
    assert _one(facts, "Design docs live in").metadata["origin"] == "user"


def test_agents_md_symlink_to_claude_md_is_read_once(mem, native):
    project = native / "project"
    (project / "AGENTS.md").unlink()
    (project / "AGENTS.md").symlink_to("CLAUDE.md")
    parsed = parse_source(project)
    texts = [f.content for f in parsed.facts]
    assert texts.count("Lint with `make lint` before every commit.") == 1


def test_cursor_sample_rules(mem, shared_dir):
    rules = shared_dir / "formats/samples/agent-rules/0xmichalis-nftbk/.cursor/rules/general.mdc"
    rep = mem.import_path(rules)
    facts = _active(mem)
    assert rep.added == 16
    _no_frontmatter(facts)
    first = _one(facts, "Every time you provide a code change")
    assert "* tests pass" in first.content and "make all" in first.content


# --- removed statements, idempotence, user edits -------------------------------------------


def test_reimport_changes_nothing_and_keeps_user_edits(mem, native):
    project = native / "project"
    first = mem.import_path(project)
    before = {f.id: (f.content, f.status, f.updated_at) for f in _active(mem).values()}
    again = mem.import_path(project)
    assert (again.added, again.duplicates, again.archived) == (0, first.added, 0)
    assert {f.id: (f.content, f.status, f.updated_at) for f in _active(mem).values()} == before

    fid = _one(_active(mem), "Keep components under 200 lines.").id
    mem.edit(fid, content="Keep components under 150 lines.")
    third = mem.import_path(project)
    facts = _active(mem)
    assert third.added == 0 and third.archived == 0
    assert "Keep components under 150 lines." in facts
    assert "Keep components under 200 lines." not in facts


def test_statement_removed_from_file_is_archived_and_comes_back(mem, native):
    agents = native / "project" / "AGENTS.md"
    mem.import_path(agents)
    text = agents.read_text()
    agents.write_text(text.replace("- Title format: `[pkg] short description`.\n", ""))
    rep = mem.import_path(agents)
    assert rep.archived == 1
    from services.store.facts import FactFilters

    gone = mem.list(FactFilters(status="archived"))
    assert [f.content for f in gone] == ["Title format: `[pkg] short description`."]
    assert "Always run `make test lint` before opening a pull request." in _active(mem)
    agents.write_text(text)
    rep = mem.import_path(agents)
    assert rep.revived == 1 and "Title format: `[pkg] short description`." in _active(mem)


def test_removal_only_touches_the_file_imported(mem, native):
    mem.import_path(native / "project" / "AGENTS.md")
    mem.import_path(native / "project" / "CONVENTIONS.md")
    (native / "project" / "CONVENTIONS.md").write_text("# Conventions\n")
    rep = mem.import_path(native / "project" / "CONVENTIONS.md", fmt="aider")
    assert rep.archived == 2
    assert "Always run `make test lint` before opening a pull request." in _active(mem)


# --- Codex, basic-memory, MCP, OpenMemory --------------------------------------------------


def test_codex_memories(mem, native):
    folder = native / "codex" / "memories" / "user" / "memory"
    assert detect_format(folder) == "codex-memory"
    rep = mem.import_path(folder)
    facts = _active(mem)
    assert rep.added == len(facts) == 7
    assert not any(
        c.startswith(("updated_at", "cwd:", "rollout_", "scope:", "ledger, flaky")) for c in facts
    )
    assert not any(c.endswith(":") for c in facts)  # "Preference signals:" heads, not a fact
    assert not any("-count=50" in c for c in facts)  # "Key steps:" / "References:" are logs
    assert _one(facts, "Prefers `rg` over `grep`").category == "pref"
    assert _one(facts, "使用中文回答简单问题").category == "pref"
    # the lead-in travels with the item it introduces
    assert _one(facts, "Preference signals: The user asked for the smallest").category == "pref"
    assert _one(facts, "The ledger test is flaky").category != "task"


def test_basic_memory_observations_and_relations(mem, native):
    notes = native / "basic_memory" / "notes"
    assert detect_format(notes) == "basic-memory"
    rep = mem.import_path(notes)
    facts = _active(mem)
    assert rep.added == len(facts) == 5
    pour = _one(facts, "Pour over gives a cleaner cup")
    assert pour.metadata["entity"] == {"name": "Coffee Brewing", "type": "note"}
    assert "brewing" in pour.tags and "coffee" in pour.tags and "#" not in pour.content
    light = _one(facts, "The user likes light roasts from Ethiopia")
    assert light.category == "pref" and light.metadata["context"] == "said during the course"
    rel = _one(facts, "Coffee Brewing learned at Brewing Course 2026")
    assert rel.metadata["relation"] == {
        "from": "Coffee Brewing",
        "type": "learned_at",
        "to": "Brewing Course 2026",
    }
    assert not any("buy a scale" in c or "theme" in c for c in facts)


def test_mcp_memory_jsonl_dialects(mem, native, shared_dir):
    rep = mem.import_path(native / "mcp" / "memory.jsonl")
    facts = _active(mem)
    assert rep.format == "mcp-memory" and rep.added == len(facts) == 6
    obs = _one(facts, "payments-api: Has a flaky ledger test")  # think-tank object form
    assert obs.metadata["entity"] == {"name": "payments-api", "type": "service"}
    assert obs.created_at.isoformat() == "2026-05-02T10:00:00"
    owns = _one(facts, "Dana owns payments-api")
    assert owns.metadata["relation"] == {"from": "Dana", "type": "owns", "to": "payments-api"}
    real = shared_dir / "formats/samples/mcp-memory/sm-moshi-dmetrics-go/memory.jsonl"
    parsed = parse_source(real)
    assert parsed.format == "mcp-memory" and len(parsed.facts) >= 400
    assert all("entity" in f.metadata or "relation" in f.metadata for f in parsed.facts)


def _openmemory_zip(path: Path) -> Path:
    dump = {
        "user": {"id": "u-row", "user_id": "dana"},
        "apps": [{"id": "app-1", "name": "cursor"}],
        "categories": [{"id": "c1", "name": "preferences"}, {"id": "c2", "name": "work"}],
        "memories": [
            {
                "id": "m1",
                "user_id": "u-row",
                "app_id": "app-1",
                "content": "Prefers dark mode in every editor",
                "metadata": {},
                "state": "active",
                "created_at": "2025-09-01T10:00:00.123456+00:00",
                "category_ids": ["c1"],
            },
            {
                "id": "m2",
                "app_id": "app-1",
                "content": "Works at Acme on the payments team",
                "state": "archived",
                "created_at": "2025-09-02T10:00:00+00:00",
                "category_ids": ["c2"],
            },
            {"id": "m3", "content": "An old phone number", "state": "deleted"},
        ],
        "memory_categories": [],
        "export_meta": {"app_id_filter": None, "version": "1"},
    }
    lines = "\n".join(
        json.dumps({"id": m["id"], "content": m["content"], "app": "cursor"})
        for m in dump["memories"]
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("memories.json", json.dumps(dump, indent=2))
        z.writestr("memories.jsonl.gz", gzip.compress(lines.encode()))
    return path


def test_openmemory_export_zip(mem, tmp_path):
    z = _openmemory_zip(tmp_path / "memories_export_dana.zip")
    assert detect_format(z) == "openmemory"
    rep = mem.import_path(z)
    assert rep.added == 2
    facts = _active(mem)
    dark = _one(facts, "Prefers dark mode")
    assert dark.category == "pref" and "cursor" in dark.tags
    assert dark.created_at.isoformat() == "2025-09-01T10:00:00"
    from services.store.facts import FactFilters

    archived = mem.list(FactFilters(status="archived"))
    assert [f.content for f in archived] == ["Works at Acme on the payments team"]
    assert mem.import_path(z).added == 0


# --- Engram's own exports ------------------------------------------------------------------


def test_engram_exports_import_back(keyword_engram, native, tmp_path):
    from services.interop.export import export_agent

    src = keyword_engram.agent("src", create=True)
    src.import_path(native / "project")
    fid = _one(_active(src), "NEVER log request bodies").id
    src.pin(fid)
    export_agent(src, tmp_path / "out.json", "json")
    export_agent(src, tmp_path / "out.md", "markdown")

    back = keyword_engram.agent("back", create=True)
    rep = back.import_path(tmp_path / "out.json")
    assert rep.format == "engram-json" and rep.skipped == []
    a, b = _active(src), _active(back)
    assert set(a) == set(b)
    for text, f in a.items():
        g = b[text]
        assert (g.category, g.pinned, g.tags, g.importance) == (
            f.category,
            f.pinned,
            f.tags,
            f.importance,
        )
    assert back.import_path(tmp_path / "out.json").added == 0

    md = keyword_engram.agent("md", create=True)
    rep = md.import_path(tmp_path / "out.md")
    assert rep.format == "memory-setup"
    assert set(_active(md)) == set(a)


# --- refusals and format names -------------------------------------------------------------


def test_refused_file_lists_what_is_supported(tmp_path):
    odd = tmp_path / "notes.txt"
    odd.write_text("just some text\n")
    with pytest.raises(ImportFormatError) as exc:
        detect_format(odd)
    msg = str(exc.value)
    assert "--format NAME" in msg and "CLAUDE.md" in msg and "basic-memory" in msg


def test_every_format_name_is_accepted(tmp_path, native):
    for name in format_names():
        try:
            parse_source(native / "project" / "CLAUDE.md", name)
        except ImportFormatError as exc:  # it may not read CLAUDE.md, but it knows the name
            assert "unknown format" not in str(exc), name
        except (OSError, ValueError):
            pass


def test_cli_refusal_and_format_flag(cli, native):
    (native / "rules.txt").write_text("- Always run the linter.\n")
    rc, _, err = cli("import", "--agent", "x", str(native / "rules.txt"))
    assert rc == 1 and "--format NAME" in err and "instructions" in err
    rc, out, err = cli("import", "--agent", "x", "--format", "agents-md", str(native / "rules.txt"))
    assert rc == 0, err
    assert "(instructions): added 1" in out


def test_agents_md_git_symlink_blob_reads_its_target(mem, native):
    project = native / "project"
    (project / "AGENTS.md").write_text(".cursor/rules/react.mdc\n")
    parsed = parse_source(project / "AGENTS.md")
    texts = [f.content for f in parsed.facts]
    assert ".cursor/rules/react.mdc" not in texts
    assert "Keep components under 200 lines." in texts


def test_old_claude_auto_memory_without_frontmatter_is_not_hermes(tmp_path):
    folder = tmp_path / ".claude" / "projects" / "-home-dev-src-shop" / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("# Notes\n\n- [Build](build.md) — how to build\n")
    (folder / "build.md").write_text("Run `make build` with Go 1.22 installed.\n")
    assert detect_format(folder) == "claude-code-memory"
    parsed = parse_source(folder)
    assert [f.content for f in parsed.facts] == ["Run `make build` with Go 1.22 installed."]
    assert parsed.facts[0].metadata["project"] == "shop"


def test_unreadable_instruction_file_is_one_clear_problem(mem, tmp_path):
    bad = tmp_path / "CLAUDE.md"
    bad.write_bytes(b"\x00\x01\x02binary\x00" * 50)
    rep = mem.import_path(bad)
    assert rep.added == 0 and len(rep.skipped) == 1
    assert "not a text file" in rep.skipped[0].reason


def test_deeply_nested_and_numbered_lists_keep_their_parents(tmp_path):
    f = tmp_path / "AGENTS.md"
    f.write_text(
        "# Rules\n\n"
        "1. Use feature flags for risky changes.\n"
        "   - Name them `ff_<team>_<name>`.\n"
        "     - Remove them within two releases.\n"
        "2. Keep migrations reversible.\n"
    )
    texts = [x.content for x in parse_source(f).facts]
    assert texts == [
        "Use feature flags for risky changes.\n- Name them `ff_<team>_<name>`.\n"
        "  - Remove them within two releases.",
        "Keep migrations reversible.",
    ]


def test_gemini_multiline_memories_with_unindented_lists(mem, native):
    """save_memory does not indent a long memory: its pseudo-headings and column-0 lists
    belong to it; the next memory starts at a bullet that no heading or colon introduced."""
    gem = native / "gemini_home" / "GEMINI.md"
    mem.import_path(gem)
    saved = {
        f.content.split("\n")[0]: f
        for f in _active(mem).values()
        if f.metadata.get("origin") == "agent"
    }
    assert sorted(saved) == [
        "Notes on backup strategy for the home server:",
        "Suggestions for faster shell startup:",
        "The user prefers tmux over screen.",
        "The user's laptop runs NixOS with flakes enabled.",
    ]
    backup = saved["Notes on backup strategy for the home server:"].content
    assert "- Keep 7 daily and 4 weekly snapshots." in backup and "[1] https://restic" in backup
    assert (
        "- Use `zprof` to find slow plugins."
        in saved["Suggestions for faster shell startup:"].content
    )
    mine = _one(_active(mem), "Never run `rm -rf`")
    assert mine.metadata["origin"] == "user"  # "## My own section" ends the memories


def test_rules_of_one_file_never_supersede_each_other(mem, tmp_path):
    f = tmp_path / "CLAUDE.md"
    f.write_text(
        "# Layout\n\n- Design docs live in the `design/` folder.\n"
        "- Test fixtures live in `tests/fixtures/`.\n- The API is based in `api/`.\n"
    )
    rep = mem.import_path(f)
    assert rep.added == 3 and rep.superseded == 0
    mem.remember("The team moved to Berlin last year")
    assert len([c for c in _active(mem) if "live in" in c or "based in" in c]) == 3


def test_invalid_utf8_statement_is_skipped_with_its_line(mem, tmp_path):
    f = tmp_path / "AGENTS.md"
    f.write_bytes(b"# Rules\n\n- Good rule one.\n- Bad \xff\xfe bytes here.\n- Good rule two.\n")
    rep = mem.import_path(f)
    assert rep.added == 2
    assert [(p.file, p.line, p.reason) for p in rep.skipped] == [
        ("AGENTS.md", 4, "invalid UTF-8 bytes in the entry")
    ]


def test_a_rules_folder_itself_imports(tmp_path, cli):
    """Pointing at `.cursor/rules` (not the project above it) imports its rules."""
    rules = tmp_path / "proj" / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.mdc").write_text(
        "---\ndescription: style\nalwaysApply: true\n---\n- Prefer small pull requests.\n"
    )
    (rules / "notes.txt").write_text("not a rule file")
    assert cli("agent", "add", "cur")[0] == 0
    rc, out, err = cli("import", "--agent", "cur", str(rules))
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "cur")
    assert "Prefer small pull requests." in out and "not a rule file" not in out

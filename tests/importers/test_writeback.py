"""Engram's edits and deletes written back into the files that are an agent's own memory,
every other byte left as it was; conflicts reported, not resolved behind the user's back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from services.interop.writeback import write_back
from services.store.facts import FactFilters
from tests.file_tree import folder_files as _snapshot

NATIVE = Path(__file__).resolve().parent / "fixtures" / "native"


@pytest.fixture
def mem(keyword_engram):
    return keyword_engram.agent("claude-code-shop", create=True, kind="claude-code")


def _fact(memory, start: str):
    hits = [f for f in memory.list(FactFilters(status="active")) if f.content.startswith(start)]
    assert len(hits) == 1, start
    return hits[0]


def test_claude_memory_edit_and_delete_written_back_byte_exact(mem, tmp_path):
    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    before = _snapshot(folder)
    mem.import_path(folder)

    ref = _fact(mem, "API latency graphs")
    mem.edit(ref.id, content='API latency graphs are in Grafana under the "payments" folder.')
    mem.delete([_fact(mem, "The release manager rotates weekly").id])
    nested = _fact(mem, "Merges freeze every Thursday")
    mem.edit(nested.id, content=nested.content.replace("18:00", "17:00"))

    rep = write_back(mem)
    assert rep.conflicts == [] and rep.pushed == 3
    after = _snapshot(folder)
    ref_old = before["reference_dashboards.md"].decode()
    assert after["reference_dashboards.md"].decode() == ref_old.replace(
        '"checkout-api" folder', '"payments" folder'
    )
    release_old = before["project_release.md"].decode()
    expected = release_old.replace("18:00 UTC", "17:00 UTC").replace(
        "- The release manager rotates weekly; the schedule is in the team calendar.\n", ""
    )
    assert after["project_release.md"].decode() == expected
    # nothing else moved: index, frontmatter, other topic files
    for name in ("MEMORY.md", "user_role.md", "feedback_testing.md"):
        assert after[name] == before[name], name

    # the file now says what Engram says: re-importing and writing back change nothing
    again = mem.import_path(folder)
    assert again.added == 0 and again.archived == 0
    assert write_back(mem).pushed == 0 and _snapshot(folder) == after


def test_conflict_leaves_both_sides_alone(mem, tmp_path, cli):
    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    mem.import_path(folder)
    f = _fact(mem, "API latency graphs")
    mem.edit(f.id, content="API latency graphs moved to Datadog.")
    topic = folder / "reference_dashboards.md"
    topic.write_text(topic.read_text().replace("Grafana", "Grafana Cloud"))
    agent_side = topic.read_bytes()
    rep = write_back(mem)
    assert len(rep.conflicts) == 1 and rep.conflicts[0].fact_id == f.id
    assert topic.read_bytes() == agent_side
    assert mem.get(f.id).content == "API latency graphs moved to Datadog."


@pytest.mark.slow  # write-back through the CLI: make test runs it
def test_cli_writeback_exit_code_on_conflict(tmp_path, cli):
    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    rc, _, err = cli("import", "--agent", "cc", str(folder))
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "cc", "--json")
    import json

    fid = next(f["id"] for f in json.loads(out) if f["content"].startswith("API latency"))
    rc, _, err = cli("edit", str(fid), "--content", "API latency graphs live in Datadog.")
    assert rc == 0, err
    rc, out, _ = cli("writeback", "--agent", "cc", "--dry-run")
    assert rc == 0 and "written back 1" in out and "dry run" in out
    assert "Grafana" in (folder / "reference_dashboards.md").read_text()
    (folder / "reference_dashboards.md").write_text(
        (folder / "reference_dashboards.md").read_text().replace("Grafana", "Kibana")
    )
    rc, out, _ = cli("writeback", "--agent", "cc")
    assert rc == 4 and "CONFLICT" in out


def _imported_gemini_md(mem, tmp_path, fixture: str) -> tuple[Path, str]:
    """A fixture's GEMINI.md copied and imported, and its text before any write-back."""
    gemini = tmp_path / "GEMINI.md"
    shutil.copy(NATIVE / fixture / "GEMINI.md", gemini)
    original = gemini.read_text()
    mem.import_path(gemini)
    return gemini, original


def test_gemini_saved_memories_written_back_user_section_untouched(mem, tmp_path):
    gemini, original = _imported_gemini_md(mem, tmp_path, "project")
    mem.delete([_fact(mem, "The CI runner image").id])
    multi = _fact(mem, "The user prefers short commit messages")
    mem.edit(multi.id, content="The user prefers one-line commit messages.")
    user_rule = _fact(mem, "Answer in English")
    mem.edit(user_rule.id, content="Answer in French.")  # the user's own text: not written
    rep = write_back(mem)
    assert rep.pushed == 2 and rep.conflicts == []
    expected = original.replace(
        "- The user prefers short commit messages\n  in the imperative mood.\n\n"
        "**Note:** squash before merging.\n",
        "- The user prefers one-line commit messages.\n",
    ).replace("- The CI runner image is `ghcr.io/acme/ci:2026.05`.\n", "")
    assert gemini.read_text() == expected
    assert "Answer in English even when" in gemini.read_text()


def test_codex_memory_md_written_back(mem, tmp_path):
    folder = tmp_path / "memories" / "user" / "memory"
    shutil.copytree(NATIVE / "codex" / "memories" / "user" / "memory", folder)
    summary = (folder / "memory_summary.md").read_bytes()
    original = (folder / "MEMORY.md").read_text()
    mem.import_path(folder)
    f = _fact(mem, "The ledger test is flaky")
    mem.edit(f.id, content="The ledger test is flaky: inject the clock.")
    assert write_back(mem).pushed == 1
    assert (folder / "MEMORY.md").read_text() == original.replace(
        "- The ledger test is flaky because it depends on wall-clock time; inject the clock "
        "instead.",
        "- The ledger test is flaky: inject the clock.",
    )
    assert (folder / "memory_summary.md").read_bytes() == summary  # not the agent's to rewrite


def test_gemini_multiline_memory_deleted_whole(mem, tmp_path):
    gem, original = _imported_gemini_md(mem, tmp_path, "gemini_home")
    mem.delete([_fact(mem, "Notes on backup strategy").id])
    assert write_back(mem).pushed == 1
    start = original.index("- Notes on backup strategy")
    end = original.index("- The user prefers tmux")
    assert gem.read_text() == original[:start] + original[end:]


def test_forgotten_fact_leaves_the_agents_file_and_stays_out(mem, keyword_engram, tmp_path):
    from services.forget.service import ForgetScope, ForgetService

    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    mem.import_path(folder)
    f = _fact(mem, "API latency graphs")
    ForgetService(keyword_engram).execute(ForgetScope(agent=mem.slug, fact_ids=(f.id,)))
    # the forget itself took the block out of the agent's file: write-back finds nothing left
    assert write_back(mem).pushed == 0
    topic = (folder / "reference_dashboards.md").read_text()
    assert "latency" not in topic and topic.startswith("---\nmetadata:")
    rep = mem.import_path(folder)
    assert rep.added == 0
    assert not any("latency" in c for c in (x.content for x in mem.list(limit=100)))


@pytest.mark.slow  # sync through the CLI: make test runs it
def test_engram_sync_writes_back_for_an_agent_without_a_workspace(tmp_path, cli):
    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    assert cli("import", "--agent", "cc", str(folder))[0] == 0
    import json

    rc, out, _ = cli("list", "--agent", "cc", "--json")
    fid = next(f["id"] for f in json.loads(out) if f["content"].startswith("API latency"))
    assert cli("delete", str(fid), "--yes")[0] == 0
    rc, out, err = cli("sync", "--agent", "cc")
    assert rc == 0, err
    assert "pushed 1" in out and "latency" not in (folder / "reference_dashboards.md").read_text()

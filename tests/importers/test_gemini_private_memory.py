"""Gemini CLI's private project memory as Gemini CLI 0.61 keeps it (written from its source:
``Storage.getProjectMemoryTempDir`` = ``~/.gemini/tmp/<slug>/memory``, the slug registered in
``~/.gemini/projects.json``; Auto Memory's ``.inbox/<kind>/extraction.patch``), through the
CLI a user runs: import, the pending patch in `engram review`, accept applies it, reject
removes it, and write-back edits MEMORY.md where Gemini reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

MEMORY_MD = """# Project Memory

- Run the integration tests with `npm run test:int`; they need Docker running.
- The staging database is reset every Monday at 06:00 UTC.
- [Release checklist](release.md) - how releases are cut
"""
RELEASE_MD = """# Release checklist

Releases are cut from the `release/*` branches, never from main.
"""


def patch_for(memory: Path) -> str:
    return (
        f"--- {memory}/MEMORY.md\n+++ {memory}/MEMORY.md\n@@ -2,3 +2,4 @@\n \n"
        " - Run the integration tests with `npm run test:int`; they need Docker running.\n"
        " - The staging database is reset every Monday at 06:00 UTC.\n"
        "+- The user prefers squash merges for feature branches.\n"
    )


@pytest.fixture
def gemini_home(tmp_path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = tmp_path / "code" / "web-shop"
    project.mkdir(parents=True)
    gem = home / ".gemini"
    memory = gem / "tmp" / "web-shop" / "memory"
    (memory / ".inbox" / "private").mkdir(parents=True)
    (gem / "projects.json").write_text(json.dumps({"projects": {str(project): "web-shop"}}))
    (memory / "MEMORY.md").write_text(MEMORY_MD)
    (memory / "release.md").write_text(RELEASE_MD)
    (memory / ".inbox" / "private" / "extraction.patch").write_text(patch_for(memory))
    return home, memory


def test_import_review_and_accept_applies_the_patch(gemini_home, cli):
    home, memory = gemini_home
    rc, out, err = cli("import", "--agent", "gem", str(memory))
    assert rc in (0, None), err
    rc, out, _ = cli("list", "--agent", "gem", "--json")
    facts = json.loads(out)
    texts = [f["content"] for f in facts]
    assert any("npm run test:int" in t for t in texts)
    assert any("release/*" in t for t in texts)
    assert not any(t.startswith("[Release checklist]") for t in texts), "index pointer"
    rc, out, _ = cli("review", "--agent", "gem", "--json")
    items = json.loads(out)
    assert len(items) == 1 and "squash merges" in items[0]["fact"]["content"]
    rc, out, err = cli("review", "accept", str(items[0]["fact"]["id"]), "--agent", "gem")
    assert rc in (0, None), err
    text = (memory / "MEMORY.md").read_text()
    assert "- The user prefers squash merges for feature branches.\n" in text
    assert text.startswith(MEMORY_MD.split("- [Release")[0].rstrip("\n").rsplit("\n", 1)[0])
    assert not (memory / ".inbox" / "private" / "extraction.patch").exists()


def test_reject_removes_the_proposal_and_leaves_memory_as_it_was(gemini_home, cli):
    home, memory = gemini_home
    cli("import", "--agent", "gem", str(memory))
    _, out, _ = cli("review", "--agent", "gem", "--json")
    [item] = json.loads(out)
    rc, _, err = cli("review", "reject", str(item["fact"]["id"]), "--agent", "gem", "--yes")
    assert rc in (0, None), err
    assert (memory / "MEMORY.md").read_text() == MEMORY_MD
    assert not (memory / ".inbox" / "private" / "extraction.patch").exists()


def test_a_patch_that_no_longer_fits_is_refused_and_stays(gemini_home, cli):
    home, memory = gemini_home
    cli("import", "--agent", "gem", str(memory))
    (memory / "MEMORY.md").write_text("# Project Memory\n\n- Rewritten by hand.\n")
    _, out, _ = cli("review", "--agent", "gem", "--json")
    [item] = json.loads(out)
    rc, _, err = cli("review", "accept", str(item["fact"]["id"]), "--agent", "gem")
    assert rc != 0 and "changed since the patch was written" in err
    assert len(err.strip().splitlines()) == 1
    assert (memory / ".inbox" / "private" / "extraction.patch").exists()
    _, out, _ = cli("review", "--agent", "gem", "--json")
    assert len(json.loads(out)) == 1


def test_an_edit_in_engram_is_written_back_to_memory_md(gemini_home, cli):
    home, memory = gemini_home
    cli("import", "--agent", "gem", str(memory))
    _, out, _ = cli("list", "--agent", "gem", "--json")
    [fact] = [f for f in json.loads(out) if "staging database" in f["content"]]
    cli("edit", str(fact["id"]), "--content",
        "- The staging database is reset every Sunday at 06:00 UTC.")  # fmt: skip
    rc, out, err = cli("writeback", "--agent", "gem")
    assert rc in (0, None), err + out
    assert "reset every Sunday at 06:00 UTC" in (memory / "MEMORY.md").read_text()
    assert "Monday" not in (memory / "MEMORY.md").read_text()


def test_an_older_builds_hash_folder_is_named_after_its_project(tmp_path):
    """Before the slug registry, Gemini CLI named the folder sha256(project path)."""
    import hashlib

    from services.interop.discover import discover_sources

    home = tmp_path / "home"
    project = tmp_path / "code" / "web-shop"
    project.mkdir(parents=True)
    gem = home / ".gemini"
    hashed = gem / "tmp" / hashlib.sha256(str(project).encode()).hexdigest() / "memory"
    hashed.mkdir(parents=True)
    (hashed / "MEMORY.md").write_text("- Releases happen on Thursdays.\n")
    (gem / "projects.json").write_text(json.dumps({"projects": {str(project): "web-shop"}}))
    [src] = [s for s in discover_sources(home=home, project=home) if s.kind == "gemini-memory"]
    assert src.project == "web-shop" and src.entries == 1


def test_after_accepting_a_reimport_keeps_one_copy(gemini_home, cli):
    home, memory = gemini_home
    cli("import", "--agent", "gem", str(memory))
    _, out, _ = cli("review", "--agent", "gem", "--json")
    [item] = json.loads(out)
    cli("review", "accept", str(item["fact"]["id"]), "--agent", "gem")
    rc, out, err = cli("import", "--agent", "gem", str(memory))
    assert rc in (0, None), err
    active = [f for f in json.loads(cli("list", "--agent", "gem", "--json")[1])
              if "squash merges" in f["content"]]  # fmt: skip
    assert len(active) == 1, active

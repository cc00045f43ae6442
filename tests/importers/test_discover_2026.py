"""`engram discover` as a desktop launcher runs it (working folder = $HOME): projects found
from the paths the agents recorded, one agent per repository, vanished projects keep their
names, Engram's own outputs never come back in, the 2026 memory layouts are found, and memory
only a vendor's service keeps is listed with how to get it out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from services.interop.discover import discover_sources


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def enc(path: Path | str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


@pytest.fixture
def machine(tmp_path, monkeypatch):
    home = tmp_path / "home"
    code = home / "code"
    shop, blog, docs = code / "shop", code / "blog", code / "docs-site"
    write(
        shop / "CLAUDE.md", "# Shop\n\n- Use pnpm, never npm.\n- Run `make check` before pushing.\n"
    )
    (shop / "AGENTS.md").symlink_to("CLAUDE.md")
    write(shop / "GEMINI.md", "# Shop\n\n- Use pnpm, never npm.\n")
    write(shop / ".clinerules" / "style.md", "- Keep React components under 200 lines.\n")
    write(shop / ".claude" / "agent-memory" / "reviewer" / "MEMORY.md",
          "- The checkout module has flaky tests on CI.\n")  # fmt: skip
    write(blog / "AGENTS.md", "- Posts are written in British English.\n")
    write(
        docs / ".kiro" / "steering" / "product.md",
        "---\ninclusion: always\n---\n- Docs use Diátaxis.\n",
    )
    # where the agents recorded them: Claude Code, a Codex rollout's cwd, Gemini's registry
    write(home / ".claude.json", json.dumps({"projects": {str(shop): {"allowedTools": []}}}))
    rollout = (
        home / ".codex" / "sessions" / "2026" / "11" / "20" / "rollout-2026-11-20T09-00-00-x.jsonl"
    )
    write(
        rollout,
        json.dumps({"type": "session_meta", "payload": {"id": "x", "cwd": str(blog)}}) + "\n",
    )
    write(home / ".gemini" / "projects.json", json.dumps({"projects": {str(docs): "docs-site"}}))
    gmem = home / ".gemini" / "tmp" / "docs-site" / "memory"
    write(gmem / "MEMORY.md", "- The docs build needs Node 22.\n")
    write(gmem / ".inbox" / "private" / "extraction.patch",
          f"--- {gmem}/MEMORY.md\n+++ {gmem}/MEMORY.md\n@@ -1,1 +1,2 @@\n"
          " - The docs build needs Node 22.\n+- Screenshots are stored in docs/img.\n")  # fmt: skip
    # a project that is gone: its auto memory stays under its encoded path
    gone = write(home / ".claude" / "projects" / enc(code / "my-app") / "memory" / "feedback_tabs.md",
                 "---\nname: Tabs\ndescription: indent\ntype: feedback\n---\n\nIndent with tabs.\n")  # fmt: skip
    write(
        home / ".claude" / "agent-memory" / "planner" / "MEMORY.md", "- Plans go in docs/plans/.\n"
    )
    write(home / ".cursor" / "projects" / enc(shop).lstrip("-") / "agent-transcripts" / "a1.txt",
          "user:\n<user_query>\nkeep the API on port 8080\n</user_query>\n\nassistant:\nDone.\n")  # fmt: skip
    write(
        home / ".letta" / "agents" / "agent-1" / "memory" / "human.md", "The user is called Sam.\n"
    )
    (home / ".codeium" / "windsurf").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home, shop, blog, docs, gone


def test_a_launcher_started_in_home_finds_the_recorded_projects(machine):
    home, shop, blog, docs, _ = machine
    found = discover_sources(home=home, project=home)
    paths = {s.path for s in found}
    assert shop / "CLAUDE.md" in paths, "from ~/.claude.json"
    assert blog / "AGENTS.md" in paths, "from a Codex rollout's cwd"
    assert docs / ".kiro" / "steering" / "product.md" in paths, "from Gemini's projects.json"


def test_one_repository_is_one_agent_and_a_symlink_is_one_source(machine):
    home, shop, *_ = machine
    found = discover_sources(home=home, project=shop)
    mine = [s for s in found if s.project == "shop" and s.importable]
    assert {s.suggested_agent for s in mine} == {"claude-code-shop"}
    assert shop / "AGENTS.md" not in {s.path for s in found}, "AGENTS.md -> CLAUDE.md is one file"
    kinds = {s.agent_kind for s in mine}
    assert {"claude-code", "gemini", "cline"} <= kinds
    split = discover_sources(home=home, project=shop, split=True)
    assert len({s.suggested_agent for s in split if s.project == "shop" and s.importable}) > 1


def test_a_vanished_project_keeps_its_name(machine):
    home, *_, gone = machine
    found = discover_sources(home=home, project=home)
    [auto] = [s for s in found if s.kind == "claude-code-memory" and s.path == gone.parent]
    assert auto.project == "my-app" and auto.suggested_agent == "claude-code-my-app"


def test_the_2026_layouts_and_vendor_kept_memory_are_listed(machine, cli):
    home, shop, *_ = machine
    rc, out, err = cli("discover", "--json", "--home", str(home), "--project", str(home))
    assert rc == 0, err
    rows = json.loads(out)["sources"]
    kinds = {r["kind"] for r in rows}
    assert {"claude-subagent-memory", "gemini-memory", "cursor-transcripts", "agent-rules"} <= kinds
    cur = next(r for r in rows if r["kind"] == "cursor-transcripts")
    assert cur["entries"] == 1 and cur["unit"] == "sessions" and cur["project"] == "shop"
    vendor = {r["label"]: r for r in rows if r["kind"] == "vendor-service"}
    assert "Windsurf Cascade memories (kept by the vendor's service)" in vendor
    assert "Cursor User and Team Rules (kept by the vendor's service)" in vendor
    assert all(r["export"] and not r["importable"] for r in vendor.values())
    rc, out, _ = cli("discover", "--home", str(home), "--project", str(home))
    assert "Windsurf Cascade memories (kept by the vendor's service): kept by Windsurf" in out


def test_discover_import_brings_the_new_memory_in_and_the_inbox_patch_to_review(machine, cli):
    home, *_ = machine
    rc, out, err = cli("discover", "--import", "--home", str(home), "--project", str(home))
    assert rc == 0, err + out
    _, out, _ = cli("agents", "--json")
    slugs = {a["slug"] for a in json.loads(out)}
    assert {"claude-code-shop", "gemini-docs-site", "claude-code-my-app"} <= slugs
    _, out, _ = cli("review", "--agent", "gemini-docs-site", "--json")
    [item] = json.loads(out)
    assert "Screenshots are stored in docs/img" in item["fact"]["content"]


def test_engrams_own_outputs_are_never_imported(machine, cli):
    home, shop, *_ = machine
    cli("remember", "--agent", "claude", "The compiled secret phrase is zebra-lantern.")
    cli("compile", "--agent", "claude")
    for target in ("claude-code", "cursor"):
        rc, out, err = cli("hooks", "install", target, "--agent", "claude", "--home", str(home),
                           "--project", str(shop), "--no-mcp", "--yes")  # fmt: skip
        assert rc in (0, None), err
    assert (shop / ".cursor" / "rules" / "engram-memory.mdc").exists()
    found = discover_sources(home=home, project=shop)
    assert not [s for s in found if s.path.name == "engram-memory.mdc"]
    cli("discover", "--import", "--home", str(home), "--project", str(shop))
    _, out, _ = cli("list", "--agent", "claude-code-shop", "--json")
    texts = [f["content"] for f in json.loads(out)]
    assert texts and not any("zebra-lantern" in t for t in texts)


def test_auto_memory_directory_from_settings_with_only_an_index(tmp_path, monkeypatch):
    home = tmp_path / "home"
    custom = tmp_path / "notes" / "claude-memory"
    write(custom / "MEMORY.md", "- The user reviews PRs in the morning.\n")
    write(home / ".claude" / "settings.json", json.dumps({"autoMemoryDirectory": str(custom)}))
    [src] = [s for s in discover_sources(home=home, project=home) if s.path == custom]
    assert src.kind == "claude-code-memory" and src.entries == 1 and src.problem is None

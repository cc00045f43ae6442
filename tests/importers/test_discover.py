"""`engram discover` on a fake $HOME holding what real agents keep, and a project folder."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from services.interop.discover import discover_sources, import_discovered

NATIVE = Path(__file__).resolve().parent / "fixtures" / "native"


def _encode(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


@pytest.fixture
def machine(tmp_path, monkeypatch) -> tuple[Path, Path]:
    home = tmp_path / "home"
    shop = home / "code" / "shop-api"
    shutil.copytree(NATIVE / "project", shop)
    claude = home / ".claude"
    (claude / "rules").mkdir(parents=True)
    (claude / "CLAUDE.md").write_text("# Me\n\n- Answer tersely.\n- Never push to main.\n")
    proj = claude / "projects" / _encode(shop)
    shutil.copytree(NATIVE / "claude_memory", proj / "memory")
    (proj / "5d1c7a2e-93f4-4a8e-b0a1-1f6c2d9e7b3a.jsonl").write_text('{"type":"summary"}\n')
    codex = home / ".codex"
    shutil.copytree(NATIVE / "codex" / "memories", codex / "memories")
    proj_cwd = "/home/dev/src/payments-api"
    hashed = codex / "memories" / hashlib.sha256(proj_cwd.encode()).hexdigest()[:16] / "memory"
    hashed.mkdir(parents=True)
    (hashed / "memory_summary.md").write_text(
        f"# Memory Summary\n\ncwd: {proj_cwd}\n\n## General Tips\n- Run `make ci` before pushing.\n"
    )
    (codex / "AGENTS.md").write_text("- Always show the diff before applying it.\n")
    sess = codex / "sessions" / "2026" / "05" / "02"
    sess.mkdir(parents=True)
    (sess / "rollout-2026-05-02T10-11-12-0195a6e2.jsonl").write_text("{}\n")
    (home / ".gemini").mkdir()
    (home / ".gemini" / "GEMINI.md").write_text(
        "## Gemini Added Memories\n- The user's name is Dana.\n"
    )
    (home / ".hermes" / "memories").mkdir(parents=True)
    (home / ".hermes" / "memories" / "MEMORY.md").write_text("First\n§\nSecond\n")
    shutil.copytree(NATIVE / "basic_memory" / "notes", home / "basic-memory")
    data = home / "data"
    data.mkdir()
    shutil.copy(NATIVE / "mcp" / "memory.jsonl", data / "memory.jsonl")
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "memory": {
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-memory"],
                        "env": {"MEMORY_FILE_PATH": str(data / "memory.jsonl")},
                    }
                }
            }
        )
    )
    (home / ".config" / "opencode").mkdir(parents=True)  # no AGENTS.md: nothing to report
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home, shop


def _by(found, kind: str, name: str):
    hits = [s for s in found if s.kind == kind and s.path.name == name]
    assert len(hits) == 1, (kind, name, [(s.kind, str(s.path)) for s in found])
    return hits[0]


def test_discover_finds_every_source(machine):
    home, shop = machine
    found = discover_sources(home=home, project=shop)
    auto = _by(found, "claude-code-memory", "memory")
    assert auto.entries == 10 and auto.project == "shop-api"  # a table: one entry per row
    assert auto.suggested_agent == "claude-code-shop-api" and auto.imported_by is None
    assert _by(found, "claude-code-transcripts", auto.path.parent.name).entries == 1
    user_md = [s for s in found if s.path == home / ".claude" / "CLAUDE.md"][0]
    assert (user_md.entries, user_md.suggested_agent) == (2, "claude-code")
    codex_mem = {s.project: s for s in found if s.kind == "codex-memory"}
    assert codex_mem[None].entries == 7 and codex_mem[None].suggested_agent == "codex"
    assert codex_mem["payments-api"].entries == 1
    assert codex_mem["payments-api"].suggested_agent == "codex-payments-api"
    assert _by(found, "codex-sessions", "sessions").entries == 1
    assert not _by(found, "codex-sessions", "sessions").importable
    gemini = [s for s in found if s.path == home / ".gemini" / "GEMINI.md"][0]
    assert (gemini.agent_kind, gemini.entries, gemini.suggested_agent) == ("gemini", 1, "gemini")
    assert _by(found, "hermes", ".hermes").entries == 2
    assert _by(found, "basic-memory", "basic-memory").entries == 5
    assert _by(found, "mcp-memory", "memory.jsonl").entries == 6  # via ~/.claude.json
    project_files = {s.path.name for s in found if s.project == "shop-api"}
    assert {"CLAUDE.md", "AGENTS.md", "GEMINI.md", "react.mdc", "CONVENTIONS.md"} <= (project_files)
    assert discover_sources() and {s.path for s in discover_sources(project=shop)} == {
        s.path for s in found
    }  # $HOME is the default home


def test_discover_import_creates_one_agent_per_agent_and_project(machine, keyword_engram):
    home, shop = machine
    found = discover_sources(home=home, project=shop, engram=keyword_engram)
    done = import_discovered(keyword_engram, found)
    assert all(err is None for _, _, err in done), done
    slugs = {a.slug for a in keyword_engram.agents()}
    assert {"claude-code", "claude-code-shop-api", "codex", "gemini", "hermes"} <= slugs
    again = discover_sources(home=home, project=shop, engram=keyword_engram)
    for s in again:
        if s.importable:
            assert s.imported_by == s.suggested_agent, s
        else:
            assert s.imported_by is None
    assert import_discovered(keyword_engram, again) == []  # nothing new: nothing done


def test_cli_discover_json_and_import(machine, cli):
    home, shop = machine
    rc, out, err = cli("discover", "--json", "--home", str(home), "--project", str(shop))
    assert rc == 0, err
    data = json.loads(out)
    kinds = {s["kind"] for s in data["sources"]}
    assert {"claude-code-memory", "instructions", "codex-memory", "codex-sessions"} <= kinds
    rc, out, err = cli("discover", "--import", "--home", str(home), "--project", str(shop))
    assert rc == 0, err
    assert "imported" in out and "claude-code-shop-api" in out
    rc, out, _ = cli("discover", "--home", str(home), "--project", str(shop))
    assert "imported by claude-code-shop-api" in out


def test_discover_reports_a_damaged_source_and_goes_on(tmp_path):
    home = tmp_path / "home"
    (home / "Downloads").mkdir(parents=True)
    (home / "Downloads" / "memories_export_dana.zip").write_bytes(b"PK\x03\x04 not really a zip")
    (home / ".gemini").mkdir()
    (home / ".gemini" / "GEMINI.md").write_text("## Gemini Added Memories\n- Likes tea.\n")
    (home / ".claude.json").write_text('{"mcpServers": ["not", "a", "map"]}')
    found = discover_sources(home=home, project=home)
    assert [s.path.name for s in found if s.kind == "instructions"] == ["GEMINI.md"]
    (broken,) = [s for s in found if s.kind == "openmemory"]
    assert "no memories.json" in (broken.problem or "") and not broken.importable

"""The memory agents keep on disk in late 2026, in their documented layouts (fixture trees
written here from each agent's docs), imported through the CLI a user runs: Claude Code
subagent memory, the instruction/memory files of Cline, Roo, Kilo, Kiro, Continue, Zed,
Copilot and Letta through one adapter, Codex's flat memories folder with rollout summaries,
and Cursor's agent transcripts as sessions."""

from __future__ import annotations

import json
from pathlib import Path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def facts(cli, agent: str) -> list[dict]:
    rc, out, err = cli("list", "--agent", agent, "--json")
    assert rc in (0, None), err
    return json.loads(out)


def test_claude_code_subagent_memory_in_all_three_scopes(tmp_path, cli):
    repo = tmp_path / "shop"
    write(repo / ".claude" / "agents" / "reviewer.md",
          "---\nname: reviewer\ndescription: Reviews diffs\nmemory: project\n---\nReview code.\n")  # fmt: skip
    mem = repo / ".claude" / "agent-memory" / "reviewer"
    write(mem / "MEMORY.md", "# Reviewer memory\n\n- [House style](feedback_style.md) - naming\n"
          "- The payments module has no tests yet; ask before touching it.\n")  # fmt: skip
    write(mem / "feedback_style.md",
          "---\nname: House style\ndescription: naming rules\ntype: feedback\n---\n\n"
          "Use snake_case for database columns.\n\n**Why:** the ORM maps them one to one.\n")  # fmt: skip
    local = repo / ".claude" / "agent-memory-local" / "reviewer"
    write(local / "MEMORY.md", "- My review checklist lives in ~/notes/review.md.\n")
    for folder in (mem, local):
        rc, out, err = cli("import", "--agent", "reviewer", str(folder))
        assert rc in (0, None), err
    got = facts(cli, "reviewer")
    texts = {f["content"] for f in got}
    assert any("snake_case" in t and "ORM" in t for t in texts), "the Why stays with the rule"
    assert any("payments module has no tests" in t for t in texts)
    assert any("review checklist" in t for t in texts)
    assert not any(t.startswith("- [House style]") for t in texts)
    style = next(f for f in got if "snake_case" in f["content"])
    assert style["category"] == "rule" and "subagent" in style["tags"]


def test_subagent_topic_file_edit_is_written_back(tmp_path, cli):
    mem = tmp_path / "shop" / ".claude" / "agent-memory" / "reviewer"
    topic = write(mem / "feedback_style.md",
                  "---\nname: House style\ndescription: naming\ntype: feedback\n---\n\n"
                  "Use snake_case for database columns.\n")  # fmt: skip
    write(mem / "MEMORY.md", "- [House style](feedback_style.md)\n")
    cli("import", "--agent", "reviewer", str(mem))
    [fact] = facts(cli, "reviewer")
    cli("edit", str(fact["id"]), "--content", "Use snake_case for all column and table names.")
    rc, out, err = cli("writeback", "--agent", "reviewer")
    assert rc in (0, None), err + out
    text = topic.read_text()
    assert "all column and table names" in text and text.startswith("---\nname: House style")


RULE_FILES = {
    "memory-bank/activeContext.md": "# Active context\n\n- We are migrating auth to OAuth 2.1.\n",
    ".clinerules/testing.md": "# Testing\n\n- Run `pytest -q` before every commit.\n",
    ".roo/rules-code/style.md": "- Prefer dataclasses over dicts for records.\n",
    ".kiro/steering/tech.md": "---\ninclusion: always\n---\n# Tech\n\n- The API is served by FastAPI 0.118.\n",
    ".continue/rules/review.md": "---\nglobs: '**/*.py'\n---\n- Type-annotate every public function.\n",
    ".rules": "- Never commit generated protobuf files.\n",
    ".github/copilot-instructions.md": "- Use `uv` to manage Python dependencies.\n",
    ".github/instructions/sql.instructions.md": "---\napplyTo: '**/*.sql'\n---\n- Write SQL keywords in upper case.\n",
    ".kilocode/rules/memory-bank/brief.md": "# Brief\n\nThe shop sells refurbished cameras.\n",
}


def test_one_adapter_reads_every_agents_rule_and_memory_files(tmp_path, cli):
    repo = tmp_path / "shop"
    for rel, text in RULE_FILES.items():
        write(repo / rel, text)
    rc, out, err = cli("import", "--agent", "rules", "--format", "agent-rules", str(repo))
    assert rc in (0, None), err
    got = facts(cli, "rules")
    texts = " ".join(f["content"] for f in got)
    for needle in ("OAuth 2.1", "pytest -q", "dataclasses", "FastAPI 0.118", "Type-annotate",
                   "protobuf", "`uv`", "upper case", "refurbished cameras"):  # fmt: skip
        assert needle in texts, needle
    assert "inclusion" not in texts and "applyTo" not in texts, "frontmatter is not a fact"
    kiro = next(f for f in got if "FastAPI" in f["content"])
    assert "kiro-steering" in kiro["tags"]


def test_cline_memory_bank_edit_goes_back_but_user_rules_stay_read_only(tmp_path, cli):
    repo = tmp_path / "shop"
    bank = write(
        repo / "memory-bank" / "activeContext.md", RULE_FILES["memory-bank/activeContext.md"]
    )
    rules = write(repo / ".clinerules" / "testing.md", RULE_FILES[".clinerules/testing.md"])
    cli("import", "--agent", "cline", "--format", "agent-rules", str(repo))
    for f in facts(cli, "cline"):
        new = f["content"].replace("OAuth 2.1", "OAuth 2.2").replace("pytest -q", "pytest -x")
        cli("edit", str(f["id"]), "--content", new)
    cli("writeback", "--agent", "cline")
    assert "OAuth 2.2" in bank.read_text()
    assert rules.read_text() == RULE_FILES[".clinerules/testing.md"]


def test_letta_memfs_and_kilo_cli_memory_under_home(tmp_path, cli):
    letta = tmp_path / ".letta" / "agents" / "agent-7f3a" / "memory"
    write(letta / "system" / "human.md",
          "---\ndescription: what I know about the user\nlimit: 2000\n---\n"
          "The user is a backend engineer who prefers Go.\n")  # fmt: skip
    (letta / ".git").mkdir()
    write(letta / ".git" / "COMMIT_EDITMSG", "update memory\n")
    kilo = tmp_path / ".local" / "share" / "kilo" / "memory" / "shop"
    write(kilo / "notes.md", "- Deploys go through the `release` GitHub workflow.\n")
    for folder, agent in ((letta, "letta"), (kilo, "kilo")):
        rc, _, err = cli("import", "--agent", agent, "--format", "agent-rules", str(folder))
        assert rc in (0, None), err
    assert any("prefers Go" in f["content"] for f in facts(cli, "letta"))
    assert any("release" in f["content"] for f in facts(cli, "kilo"))


def test_codex_flat_memories_folder_with_rollout_summaries(tmp_path, cli):
    mem = tmp_path / ".codex" / "memories"
    write(mem / "memory_summary.md", "# User profile\n\n- Prefers small, reviewable commits.\n")
    write(
        mem / "MEMORY.md",
        "# Task Group: CI\n\n- The CI cache key must include the lockfile hash.\n",
    )
    write(
        mem / "raw_memories.md",
        "- cwd: /home/me/shop\n- The staging URL is https://staging.shop.test.\n",
    )
    write(mem / "rollout_summaries" / "2026-11-03T10-00-00-ci-cache.md",
          "# CI cache fix\n\nFixed the flaky cache by keying it on the lockfile hash.\n")  # fmt: skip
    rc, out, err = cli("import", "--agent", "codex", str(mem))
    assert rc in (0, None), err
    texts = " ".join(f["content"] for f in facts(cli, "codex"))
    assert (
        "reviewable commits" in texts and "lockfile hash" in texts and "staging.shop.test" in texts
    )
    assert "cwd:" not in texts
    rc, out, _ = cli("episodes", "--agent", "codex", "--json")
    eps = json.loads(out)
    assert any(
        "keying it on the lockfile hash" in e["summary"] and e["day"] == "2026-11-03" for e in eps
    )


def test_cursor_agent_transcripts_are_read_as_sessions(tmp_path, cli):
    proj = tmp_path / ".cursor" / "projects" / "home-me-shop" / "agent-transcripts"
    sid = "3f1e2d4c-0000-4000-8000-000000000001"
    lines = [
        {"role": "user", "message": {"content": [{"type": "text", "text":
            "<user_query>\nFrom now on always use pnpm in this repo, never npm.\n</user_query>"}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text":
            "Understood: pnpm from now on. I switched the scripts to pnpm."}]}},
    ]  # fmt: skip
    write(proj / sid / f"{sid}.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    write(proj / "9a8b7c6d-old.txt",
          "user:\n<user_query>\nThe dev server port is 5173; keep it.\n</user_query>\n\n"
          "assistant:\n[Thinking] checking vite config\n\nNoted, the dev server stays on 5173.\n")  # fmt: skip
    rc, out, err = cli("ingest-session", "--agent", "cur", str(proj.parent), "--json")
    assert rc in (0, None), err
    rep = json.loads(out)
    assert len(rep["sessions"]) == 2 and not rep["skipped"], rep
    assert all(s["turns"] == 1 for s in rep["sessions"])
    rc, out, _ = cli("episodes", "--agent", "cur", "--json")
    assert len(json.loads(out)) >= 2


def test_forgetting_memory_from_the_new_sources_holds_on_reimport(tmp_path, cli):
    """Forget what a Cline memory bank, a subagent memory and a Gemini note said: the facts go,
    and importing the same files again does not bring them back (the forget rule)."""
    repo = tmp_path / "shop"
    write(repo / "memory-bank" / "activeContext.md", "- The vendor contact is Quentin Blake.\n")
    sub = repo / ".claude" / "agent-memory" / "reviewer"
    write(sub / "MEMORY.md", "- Quentin Blake approves schema changes.\n")
    gem = tmp_path / "home" / ".gemini" / "tmp" / "shop" / "memory"
    write(gem / "MEMORY.md", "- Call Quentin Blake before a release.\n")

    def load():
        cli("import", "--agent", "shop", "--format", "agent-rules", str(repo))
        cli("import", "--agent", "shop", str(sub))
        cli("import", "--agent", "shop", str(gem))

    load()
    assert sum("Quentin Blake" in f["content"] for f in facts(cli, "shop")) == 3
    rc, out, err = cli("forget", "--agent", "shop", "--matching", "Quentin Blake", "--yes")
    assert rc in (0, None), err
    load()
    rc, out, _ = cli("list", "--agent", "shop", "--status", "all", "--json")
    assert not [f for f in json.loads(out) if "Quentin" in f["content"]]

"""Labels a user reads in memory.md: a session's facts file under the repository (not the
ticket its worktree is named after), an MCP graph's observations keep their entity's type, and
``## About the User`` lists only what is about the user."""

from __future__ import annotations

import json

from cc_builder import Session

from app.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_a_worktree_named_after_a_ticket_files_facts_under_the_repository(tmp_path, capsys):
    d = str(tmp_path / "store")
    s = Session(
        "33333333-2222-4333-8444-000000000001", cwd="/home/dev/code/shop/.worktrees/ENG-4521"
    )
    s.user("We decided to use black for formatting.")
    s.say("Will do.")
    s.write(tmp_path / "projects" / "-home-dev-code-shop--worktrees-ENG-4521")
    rc, _, err = run(
        capsys, "--data-dir", d, "ingest-session", "--agent", "cc", str(tmp_path / "projects")
    )
    assert rc == 0, err
    rc, out, _ = run(capsys, "--data-dir", d, "list", "--agent", "cc", "--json")
    cats = {f["content"]: f["category"] for f in json.loads(out)}
    assert cats["We decided to use black for formatting."] == "proj:shop", cats
    assert not any("eng-4521" in c for c in cats.values())


GRAPH = [
    {
        "type": "entity",
        "name": "default_user",
        "entityType": "person",
        "observations": ["Prefers short answers", "Lives in Lisbon"],
    },
    {
        "type": "entity",
        "name": "checkout-api",
        "entityType": "project",
        "observations": ["Runs on PostgreSQL 16"],
    },
    {
        "type": "entity",
        "name": "Maya",
        "entityType": "person",
        "observations": ["Reviews every database migration"],
    },
    {
        "type": "entity",
        "name": "ruff",
        "entityType": "tool",
        "observations": ["Configured with line length 100"],
    },
    {"type": "relation", "from": "checkout-api", "relationType": "depends_on", "to": "ledger"},
]


def test_graph_types_and_about_the_user(tmp_path, capsys):
    d = str(tmp_path / "store")
    f = tmp_path / "memory.jsonl"
    f.write_text("\n".join(json.dumps(o) for o in GRAPH) + "\n", encoding="utf-8")
    rc, _, err = run(capsys, "--data-dir", d, "import", "--agent", "mcp", str(f))
    assert rc == 0, err
    rc, out, _ = run(capsys, "--data-dir", d, "list", "--agent", "mcp", "--json")
    cats = {x["content"]: x["category"] for x in json.loads(out)}
    assert cats["checkout-api: Runs on PostgreSQL 16"] == "proj:checkout-api"
    assert cats["Maya: Reviews every database migration"] == "rel:maya"
    assert cats["ruff: Configured with line length 100"] == "env"
    assert cats["default_user: Prefers short answers"] == "pref"

    rc, _, err = run(capsys, "--data-dir", d, "compile", "--agent", "mcp")
    assert rc == 0, err
    md = next((tmp_path / "store").rglob("memory.md")).read_text(encoding="utf-8")
    about = md.split("## About the User")[1].split("\n## ")[0]
    assert "Prefers short answers" in about and "Lives in Lisbon" in about
    for other in ("depends on ledger", "PostgreSQL 16", "line length 100"):
        assert other not in about, about
        assert other in md  # still in memory.md, under its own heading

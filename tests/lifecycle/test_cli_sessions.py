"""The session CLI on a real store: ingest-session on folders (Claude Code project folder and
a Codex sessions tree), the review inbox, episodes, and recall over facts and episodes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cc_builder import SUMMARY, Session

from tests.cli_runs import engram_cli

CODEX_TREE = Path(__file__).parent / "fixtures" / "codex" / "sessions"


def claude_project(tmp_path: Path) -> Path:
    proj = tmp_path / "projects" / "-home-dev-projects-shop"
    s = Session("11111111-2222-4333-8444-000000000001")
    s.user("the checkout total is off by a cent again")
    s.compact(SUMMARY)
    s.say("Done. Totals are summed in cents.")
    s.write(proj)
    low = Session("11111111-2222-4333-8444-000000000002")
    low.user("I use the staging box for demos.")  # a weak statement: a review candidate
    low.say("Noted.")
    low.write(proj)
    warm = Session("11111111-2222-4333-8444-000000000001")
    warm.user("Warmup")
    for line in warm.lines:
        line.update(isSidechain=True, agentId="a1b2c3d")
    warm.write(proj, "agent-a1b2c3d.jsonl")
    cleared = Session("11111111-2222-4333-8444-000000000003")
    cleared.clear_preamble()
    cleared.write(proj)
    (proj / "notes.jsonl").write_text("this is not json\n", encoding="utf-8")
    return proj


def test_ingest_folders_once_review_and_episodes(tmp_path, capsys):
    d = str(tmp_path / "store")
    proj = claude_project(tmp_path)
    rc, out, _ = engram_cli(capsys, d, "ingest-session", "--agent", "claude", str(proj))
    assert rc == 0
    # the warm-up sub-agent file is left out; two candidates wait for review
    assert "3 session(s), 3 new" in out and "(2 for review)" in out
    assert "skipped: " in out and "notes.jsonl" in out
    # again: every session was taken once already
    rc, out, _ = engram_cli(capsys, d, "ingest-session", "--agent", "claude", str(proj), "--json")
    data = json.loads(out)
    assert data["facts_added"] == 0 and data["episodes_added"] == 0
    assert all(s["already_processed"] for s in data["sessions"])

    # a Codex sessions tree, as ~/.codex/sessions is laid out
    tree = tmp_path / "codex-sessions"
    shutil.copytree(CODEX_TREE, tree)
    rc, out, _ = engram_cli(capsys, d, "ingest-session", "--agent", "codex", str(tree), "--json")
    data = json.loads(out)
    assert rc == 0 and len(data["sessions"]) == 1 and data["episodes_added"] == 1
    rc, out, _ = engram_cli(capsys, d, "recall", "--agent", "codex", "cp1252", "--facts-only")
    assert "Don't add dependencies; decode the file as cp1252 instead" in out

    # the review inbox
    rc, out, _ = engram_cli(capsys, d, "review", "--json")
    items = {i["fact"]["content"]: i for i in json.loads(out)}
    # the weak "I use …" and the summary's constraint-shaped ask wait for the user
    assert set(items) == {
        "I use the staging box for demos.",
        "Store all money amounts as integer cents, never floats",
    }
    item = items["I use the staging box for demos."]
    assert item["agent"] == "claude" and item["reason"] == "low-confidence"
    assert item["detail"]["session"] == "11111111-2222-4333-8444-000000000002"
    fid = str(item["fact"]["id"])
    other = str(items["Store all money amounts as integer cents, never floats"]["fact"]["id"])
    rc, out, _ = engram_cli(capsys, d, "review", "accept", other, "--agent", "claude")
    assert rc == 0 and "accepted 1 candidate(s)" in out
    rc, out, _ = engram_cli(
        capsys,
        d,
        "review",
        "edit",
        fid,
        "--agent",
        "claude",
        "--content",
        "Demos run on the staging box",
    )
    assert rc == 0 and "edited and accepted 1" in out
    rc, out, _ = engram_cli(capsys, d, "review")
    assert "nothing to review" in out
    rc, out, _ = engram_cli(
        capsys, d, "recall", "--agent", "claude", "demos staging", "--facts-only"
    )
    assert "Demos run on the staging box" in out
    rc, _, err = engram_cli(capsys, d, "review", "reject", "--agent", "claude")
    assert rc != 0 and "candidate id" in err

    # episodes: /clear and warm-up made none; the edit in review erased the original
    # candidate everywhere (issue #30, finding 10), the episode that only quoted it too
    rc, out, _ = engram_cli(capsys, d, "episodes", "--agent", "claude", "--json")
    eps = json.loads(out)
    assert len(eps) == 1
    assert not any("I use the staging box" in e["summary"] for e in eps)
    assert any("Ended: done" in e["summary"] and "integer cents" in e["summary"] for e in eps)
    rc, out, _ = engram_cli(capsys, d, "episodes", "--agent", "claude", "--since", "2099-01-01")
    assert "no episodes since 2099-01-01" in out

    # recall covers episodes; the flag restricts it
    rc, out, _ = engram_cli(
        capsys, d, "recall", "--agent", "claude", "checkout total cents", "--json"
    )
    kinds = {h.get("kind", "fact") for h in json.loads(out)}
    assert kinds == {"fact", "episode"}
    rc, out, _ = engram_cli(
        capsys,
        d,
        "recall",
        "--agent",
        "claude",
        "checkout total cents",
        "--episodes-only",
        "--json",
    )
    hits = json.loads(out)
    assert hits and all(h["kind"] == "episode" for h in hits)
    assert "integer cents" in hits[0]["episode"]["summary"]

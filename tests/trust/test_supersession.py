"""Issue #27 item 1: supersession only within one subject, never silent; antonyms go to review.

Real store, real Chroma, real embedding model; the CLI cases run `engram remember` itself."""

from __future__ import annotations

import json

import pytest

from bench import supersession
from bench.supersession_pairs import PAIRS


@pytest.mark.slow  # 207 pairs through the pipeline: make test runs it
def test_the_labelled_matrix_loses_no_distinct_subject(engram, capsys):
    assert len(PAIRS) >= 200
    r = supersession.run(engram)
    with capsys.disabled():
        print("\n" + supersession.table(r))
    assert r["distinct_subject_losses"] == 0, r["wrong"]
    assert r["silent_supersessions"] == 0
    assert r["matrix"]["keep"]["kept both"] == sum(1 for p in PAIRS if p[2] == "keep")
    assert r["matrix"]["conflict"]["conflict"] == sum(1 for p in PAIRS if p[2] == "conflict")
    # a correction is never merged away, a restatement never replaces its twin
    assert r["matrix"]["supersede"]["merged"] == 0
    assert r["matrix"]["merge"]["superseded"] == 0
    assert r["accuracy"] >= 0.95


def _active(cli, agent: str) -> list[str]:
    rc, out, _ = cli("list", "--agent", agent, "--json")
    assert rc in (0, None)
    return sorted(f["content"] for f in json.loads(out) if f["status"] == "active")


def test_cli_remember_keeps_other_peoples_facts_and_says_when_it_supersedes(cli):
    cli("agent", "add", "claude")
    for text in (
        "Alice works at Google",
        "Bob works at Meta",
        "My dog's name is Rex",
        "My cat's name is Tom",
        "User's mother lives in Paris",
        "User's father lives in Lyon",
        "Ticket ENG-101 is blocked",
        "ENG-102 is blocked",
        "Repo A uses Node 18",
        "Repo B uses Node 20",
    ):
        rc, out, err = cli("remember", "--agent", "claude", text)
        assert rc in (0, None) and out.strip().isdigit(), (text, err)
        assert "supersede" not in err, (text, err)
    assert len(_active(cli, "claude")) == 10

    rc, out, _ = cli("remember", "--agent", "claude", "Alice works at Meta", "--json")
    res = json.loads(out)
    assert len(res["superseded"]) == 1
    assert "supersedes fact" in res["reason"]
    rc, out, err = cli("remember", "--agent", "claude", "Bob works at Amazon")
    assert f"supersedes fact {res['superseded'][0] + 1}" in err  # Bob's, not Alice's
    active = _active(cli, "claude")
    assert "Alice works at Meta" in active and "Bob works at Amazon" in active
    assert "Alice works at Google" not in active and "Bob works at Meta" not in active
    assert "My cat's name is Tom" in active and "ENG-102 is blocked" in active


def test_cli_a_value_change_supersedes_its_own_subject_not_a_twin_named_like_it(cli):
    """Harness finding: "host" read as the verb made both sentences about "staging", so the
    second host's move superseded the first host's current value and left its own old one."""
    cli("agent", "add", "claude")
    for text in (
        "The staging host for alpha moved to alpha2.internal",
        "The staging host for beta is beta1.internal",
    ):
        cli("remember", "--agent", "claude", text)
    rc, out, err = cli(
        "remember", "--agent", "claude", "The staging host for beta moved to beta2.internal"
    )
    assert rc in (0, None), err
    assert _active(cli, "claude") == [
        "The staging host for alpha moved to alpha2.internal",
        "The staging host for beta moved to beta2.internal",
    ]


def test_cli_antonyms_on_one_subject_wait_in_the_review_inbox(cli):
    cli("agent", "add", "claude")
    rc, out, _ = cli("remember", "--agent", "claude", "User likes cilantro")
    first = int(out)
    rc, out, err = cli("remember", "--agent", "claude", "User dislikes cilantro")
    second = int(out)
    assert f"contradicts fact {first}" in err
    rc, out, _ = cli("review", "--agent", "claude", "--json")
    waiting = json.loads(out)
    items = waiting if isinstance(waiting, list) else waiting.get("items", [])
    assert [i.get("id") or i.get("fact", {}).get("id") for i in items] == [second]
    assert _active(cli, "claude") == ["User likes cilantro"]


@pytest.mark.slow  # 750 imports through the CLI with the real model: make test runs it
def test_importing_750_organisations_keeps_750(cli, tmp_path):
    lines = [
        json.dumps(
            {
                "type": "entity",
                "name": f"Org{n}",
                "entityType": "organization",
                "observations": [f"is based in city {n}"],
            }
        )
        for n in range(750)
    ]
    path = tmp_path / "memory.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli("agent", "add", "graph")
    rc, out, err = cli("import", "--agent", "graph", str(path))
    assert rc in (0, None), err
    active = _active(cli, "graph")
    assert len(active) == 750
    assert len(set(active)) == 750

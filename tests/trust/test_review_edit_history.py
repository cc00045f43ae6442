"""Issue #30, finding 10: "Review → Edit (dropping an e-mail before accepting) keeps the
address in the fact's history." A candidate the user corrects before accepting leaves no
trace of its original text: not in the audit history, the FTS index, free pages or the WAL
of engram.db, not in Chroma, not in the compiled layers. Through the CLI a user runs, with
the real model and Chroma; afterwards every file of the data dir is read as raw bytes."""

from __future__ import annotations

import json

from tests.trust.on_disk import files_holding

EMAIL = "yvaine.trelawney@example.org"
ORIGINAL = f"Reach the plumber at {EMAIL} about the boiler"
CORRECTED = "Reach the plumber through the landlord about the boiler"


def _pending(cli) -> list[dict]:
    rc, out, err = cli("review", "--agent", "a", "--json")
    assert rc == 0, err
    return json.loads(out)


def test_an_edited_candidate_leaves_no_trace_of_its_original_text(cli, tmp_path):
    data = tmp_path / "cli-store"  # where the cli fixture keeps its store
    assert cli("remember", "--agent", "a", "--create-agent", "Prefers tea")[0] == 0
    assert cli("pii", "--agent", "a", "--kind", "email", "ask")[0] == 0
    rc, _, err = cli("remember", "--agent", "a", ORIGINAL, "--tags", "home")
    assert rc == 0, err
    [item] = _pending(cli)
    assert item["fact"]["content"] == ORIGINAL and item["reason"] == "personal-data"
    assert files_holding(data, "trelawney"), "the candidate waits in the store (the test's premise)"

    rc, out, err = cli(
        "review", "edit", str(item["fact"]["id"]), "--agent", "a", "--content", CORRECTED
    )
    assert rc == 0, err
    assert "edited and accepted 1 candidate" in out
    assert cli("compile", "--agent", "a")[0] == 0

    assert _pending(cli) == []
    rc, out, _ = cli("list", "--agent", "a", "--json")
    facts = {f["content"]: f for f in json.loads(out)}
    assert facts[CORRECTED]["status"] == "active" and facts[CORRECTED]["tags"] == ["home"]
    assert ORIGINAL not in facts
    rc, out, _ = cli("show", str(facts[CORRECTED]["id"]), "--json")
    assert rc == 0 and "trelawney" not in out
    # the address is in no file: not the history, the indexes, the vectors or the layers
    assert (data / "chroma").is_dir()
    assert files_holding(data, "trelawney") == []
    assert files_holding(data, "plumber through the landlord"), "the corrected memory is stored"


def test_an_edit_that_changes_nothing_is_a_plain_accept(cli):
    assert cli("remember", "--agent", "a", "--create-agent", "Prefers tea")[0] == 0
    assert cli("pii", "--agent", "a", "ask")[0] == 0
    assert cli("remember", "--agent", "a", ORIGINAL)[0] == 0
    [item] = _pending(cli)
    fid = item["fact"]["id"]
    rc, out, err = cli("review", "edit", str(fid), "--agent", "a", "--content", ORIGINAL)
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "a", "--json")
    [kept] = [f for f in json.loads(out) if f["content"] == ORIGINAL]
    assert kept["id"] == fid and kept["status"] == "active"

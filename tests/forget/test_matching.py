"""What a forget matches is the same in the preview, the purge and ``--verify``: text folded
(soft hyphens and zero-width spaces removed, NFKC, case), whole words only ("Python 3.9"
is not "Python 3.11" nor "reviewing Python"), a person by the parts of their name in any
case; each match says why; ``--fact`` proves that fact's erasure, not other facts'."""

from __future__ import annotations

import json

import pytest

# out of make test-fast (each test forgets through the CLI over a real store): make test runs it
pytestmark = pytest.mark.slow


def _ids(cli, agent: str) -> dict[str, int]:
    rc, out, _ = cli("list", "--agent", agent, "--json")
    assert rc == 0
    return {f["content"]: f["id"] for f in json.loads(out)}


def test_soft_hyphen_and_zero_width_space_do_not_hide_a_mention(cli, tmp_path):
    cli("agent", "add", "a")
    hidden = ["The Frob\u00adnitz service runs on port 8080", "Ask Frob\u200bnitz support first"]
    for text in [*hidden, "The billing service runs on port 9090"]:
        assert cli("remember", "--agent", "a", text)[0] == 0
    rc, out, _ = cli("forget", "--verify", "FROBNITZ")
    assert rc == 1 and out.count("remains: a/fact") == 2  # --verify sees them before
    rc, out, _ = cli("forget", "--agent", "a", "--matching", "Frobnitz", "--keyword-only")
    assert "2 fact(s)" in out
    rc, out, err = cli(
        "forget", "--agent", "a", "--matching", "Frobnitz", "--keyword-only", "--yes"
    )
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    rc, out, _ = cli("forget", "--verify", "Frobnitz")
    assert rc == 0 and "nothing remains" in out
    assert list(_ids(cli, "a")) == ["The billing service runs on port 9090"]


def test_versions_and_words_are_whole(cli):
    cli("agent", "add", "a")
    texts = [
        "The user prefers Python 3.9 for the billing scripts",
        "The data team moved to Python 3.11 last spring",
        "The user is reviewing Python packaging docs",
        "Python 3.90 does not exist yet",
    ]
    for t in texts:
        cli("remember", "--agent", "a", t)
    rc, out, _ = cli("forget", "--agent", "a", "--matching", "Python 3.9", "--json")
    facts = json.loads(out)["agents"][0]["facts"]
    assert [f["content"] for f in facts] == [texts[0]]
    assert facts[0]["reason"] == 'contains "Python 3.9" as whole words'
    rc, out, _ = cli("forget", "--agent", "a", "--matching", "Python 3.9", "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out
    assert sorted(_ids(cli, "a")) == sorted(texts[1:])


def test_a_person_is_forgotten_by_short_and_upper_case_names(cli):
    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "My manager is Margarethe Schulz.")
    cli("remember", "--agent", "a", "Margarethe Schulz works at Contoso as head of audit")
    cli("remember", "--agent", "a", "MARGARETHE asked for the quarterly numbers by Friday")
    cli("remember", "--agent", "a", "The build uses Gradle")
    assert cli("entity", "type", "--agent", "a", "Margarethe Schulz", "person")[0] == 0
    rc, out, err = cli("forget", "--agent", "a", "--entity", "Margarethe Schulz", "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert "The build uses Gradle" in _ids(cli, "a") and len(_ids(cli, "a")) == 1
    for name in ("Margarethe Schulz", "MARGARETHE", "Schulz"):
        rc, out, _ = cli("forget", "--verify", name)
        assert rc == 0 and "nothing remains" in out, (name, out)


def test_forget_one_of_two_facts_sharing_words_succeeds(cli):
    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "The deploy key lives in the vault")
    cli("remember", "--agent", "a", "The deploy key lives in the vault under ops/keys")
    ids = _ids(cli, "a")
    gone, kept = (
        ids["The deploy key lives in the vault"],
        ids["The deploy key lives in the vault under ops/keys"],
    )
    rc, out, err = cli("forget", "--fact", str(gone), "--yes")
    assert rc == 0, out + err
    assert "remaining_after_verify 0" in out and "verified by the fact's own traces" in out
    assert list(_ids(cli, "a").values()) == [kept]
    rc, out, _ = cli("show", str(kept))
    assert "create by user" in out  # the kept fact's own history stays


def test_verify_reads_engrams_own_files_folded(cli, tmp_path):
    """A soft hyphen hides a name from a raw byte scan of the compiled memory.md; --verify
    reads Engram's text files folded, as the forget did."""
    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "The Frob\u00adnitz service runs on port 8080")
    assert cli("compile", "--agent", "a")[0] == 0
    out_file = tmp_path / "a.md"
    assert cli("export", "--agent", "a", "--format", "markdown", str(out_file))[0] == 0
    rc, out, _ = cli("forget", "--verify", "Frobnitz")
    assert rc == 1 and "memory.md" in out and f"remains: text: {out_file}" in out
    cli("forget", "--agent", "a", "--matching", "Frobnitz", "--keyword-only", "--yes")
    rc, out, _ = cli("forget", "--verify", "Frobnitz")
    assert rc == 0 and "Engram's text files" in out
    assert "Frob\u00adnitz" not in out_file.read_text()

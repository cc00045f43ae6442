"""Finding 5: a name split across facts does not escape forget or its proof."""

from __future__ import annotations

import pytest

from services.forget.service import ForgetScope, ForgetService


def test_several_words_are_a_phrase_unless_they_are_a_known_name(keyword_engram):
    """Issue #30 finding 2 replaced the word-by-word match: an unknown name is a phrase."""
    mem = keyword_engram.agent("a", create=True)
    first = mem.remember("Frobnitz is the codename of the new router").fact_id
    second = mem.remember("The landlord's surname is Wexleythorpe").fact_id
    svc = ForgetService(keyword_engram)
    pv = svc.preview(ForgetScope(agent="a", matching="Frobnitz Wexleythorpe", semantic=False))
    assert pv.agents[0].facts == [] and pv.agents[0].partial == []
    # --verify reads the text as the forget does: no fact holds the phrase
    assert svc.verify(["Frobnitz Wexleythorpe"], each_word=True).ok
    # once it is a known name, its parts are checked one by one
    mem.remember("My landlord is Frobnitz Wexleythorpe.")
    after = svc.verify(["Frobnitz Wexleythorpe"], each_word=True)
    places = {place for place, _ in after.remaining}
    assert {f"a/fact {first}", f"a/fact {second}"} <= places, places


def test_common_words_are_not_forgotten_one_by_one(keyword_engram):
    mem = keyword_engram.agent("a", create=True)
    mem.remember("The user likes the new theme")
    svc = ForgetService(keyword_engram)
    pv = svc.preview(ForgetScope(agent="a", matching="new user name", semantic=False))
    assert pv.agents[0].facts == []


@pytest.mark.slow  # forget and verify through the CLI: make test runs it
def test_cli_verify_fails_while_either_half_remains(cli):
    """The halves of a known name are listed apart and go with --include-partial."""
    assert cli("remember", "--agent", "a", "--create-agent", "Frobnitz router codename")[0] == 0
    assert cli("remember", "--agent", "a", "Landlord surname Wexleythorpe")[0] == 0
    assert cli("remember", "--agent", "a", "My landlord is Frobnitz Wexleythorpe.")[0] == 0
    rc, out, _err = cli("forget", "--verify", "Frobnitz Wexleythorpe")
    assert rc == 1 and "remain" in out
    rc, out, _err = cli("forget", "--agent", "a", "--matching", "Frobnitz Wexleythorpe")
    assert rc == 0 and "part of the name: frobnitz" in out
    assert "part of the name: wexleythorpe" in out
    args = ("forget", "--agent", "a", "--matching", "Frobnitz Wexleythorpe", "--include-partial")
    assert cli(*args, "--yes")[0] == 0
    rc, out, _err = cli("forget", "--verify", "Frobnitz Wexleythorpe")
    assert rc == 0, out


def test_a_sentence_is_meant_whole_not_word_by_word():
    from services.forget.scope import distinct_words

    assert distinct_words("I am allergic to peanuts") == []
    assert distinct_words("Frobnitz Wexleythorpe") == ["frobnitz", "wexleythorpe"]

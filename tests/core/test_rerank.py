"""The second ranking stage (services/search/rerank.py) on a small fixed transcript, through
`engram recall --json` on a real store with the real model; and a store without the model
still answers, saying it is keyword-only."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from services.search.hybrid import DEFAULT_WEIGHTS
from services.search.rerank import tells_time
from services.search.speakers import speaker_of

TURNS = [
    "Ben: Ana keeps talking about her pottery class, she loves it.",
    "Ana: I finally made a blue bowl at the pottery class!",
    "Ben: My pottery class teacher says Ana is talented.",
    "Cleo: The weather was rainy all weekend.",
]
ANSWER = TURNS[1]


@pytest.fixture
def transcript(cli):
    for t in TURNS:
        rc, _, err = cli("remember", "--agent", "chat", "--create-agent", t)
        assert rc in (0, None), err
    return cli


def recall(cli, query, *extra):
    rc, out, err = cli("recall", "--agent", "chat", "--scope", "facts", "--json", *extra, query)
    assert rc in (0, None), err
    return json.loads(out), err


def test_the_turn_spoken_by_the_person_a_question_names_comes_first(transcript, tmp_path):
    query = "What did Ana make at her pottery class?"
    hits, _ = recall(transcript, query)
    assert hits[0]["content"] == ANSWER
    assert hits[0]["pipeline"] == "hybrid+rerank" and hits[0]["keyword_only"] is False
    assert hits[0]["signals"]["speaker"] > 0
    # the hit still explains its score
    assert hits[0]["score"] == pytest.approx(sum(hits[0]["signals"].values()), abs=1e-4)
    # Ben's turns repeat more of the question's words: the first stage alone ranks one of
    # them first, so it is the second stage that moved Ana's answer up
    from services.config import StoreConfig
    from services.engram import Engram

    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store")) as eng:
        first = eng.agent("chat").search(
            query, k=4, touch=False, weights=replace(DEFAULT_WEIGHTS, speaker=0.0, when=0.0)
        )
    assert first[0].fact.content.startswith("Ben:")
    assert first[0].pipeline == "hybrid"


def test_a_question_that_names_nobody_keeps_the_first_stage_order(transcript, tmp_path):
    query = "what did they make at the pottery class"
    hits, _ = recall(transcript, query, "-k", "4")
    from services.config import StoreConfig
    from services.engram import Engram

    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store")) as eng:
        first = eng.agent("chat").search(
            query, k=4, touch=False, weights=replace(DEFAULT_WEIGHTS, speaker=0.0, when=0.0)
        )
    assert [h["id"] for h in hits] == [h.fact.id for h in first]
    assert not any(h["signals"].get("speaker") for h in hits)


def test_keyword_mode_says_it_is_keyword_only(transcript):
    hits, _ = recall(transcript, "pottery bowl", "--mode", "keyword")
    assert hits and all(h["pipeline"] == "keyword-only" and h["keyword_only"] for h in hits)


def test_a_store_without_the_model_still_answers_and_says_keyword_only(cli, tmp_path, monkeypatch):
    empty = tmp_path / "no-model"
    empty.mkdir()
    monkeypatch.setenv("ENGRAM_MODEL_DIR", str(empty))
    for t in TURNS:
        rc, _, err = cli("remember", "--agent", "chat", "--create-agent", t)
        assert rc in (0, None), err
    hits, err = recall(cli, "What did Ana make at her pottery class?")
    assert "not installed" in err
    assert ANSWER in [h["content"] for h in hits]
    assert all(h["pipeline"] == "keyword-only" and h["keyword_only"] for h in hits)


@pytest.mark.parametrize(
    "text,who",
    [
        ("Ana: hi", "Ana"),
        ("Dr. Ng: take two", "Dr. Ng"),
        ("note: buy milk", None),  # a lower-case label is not a speaker
        ("Error code ERR_4471 means: signature failed", None),
        ("https://example.com/x", None),
    ],
)
def test_speaker_of(text, who):
    assert speaker_of(text) == who


EXHIBITION = [
    "Ben: How was the pottery exhibition at the town hall?",
    "Ana: The pottery exhibition at the town hall was great, so many bowls.",
    "Ana: We went to the exhibition last Saturday with my sister.",
    "Ben: The weather was rainy all weekend.",
]


def test_a_when_question_puts_the_turn_that_tells_the_time_first(cli, tmp_path):
    # one chat session (one source), stored as an importer would; asked through the CLI
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.pipeline import NewFact

    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store")) as eng:
        eng.agent("chat", create=True).remember_many(
            [NewFact(t, source_ref="chat:1", subject=f"t{i}") for i, t in enumerate(EXHIBITION)],
            near_duplicate=None,
        )
        query = "When did Ana visit the pottery exhibition?"
        without = eng.agent("chat").search(
            query, k=4, touch=False, weights=replace(DEFAULT_WEIGHTS, when=0.0)
        )
    assert without[0].fact.content == EXHIBITION[1]  # the words' turn, which tells no time
    hits, _ = recall(cli, query)
    assert hits[0]["content"] == EXHIBITION[2]
    assert hits[0]["signals"]["when"] > 0 and hits[1]["signals"]["when"] == 0


@pytest.mark.parametrize(
    "text,told",
    [
        ("Ana: We went there last Saturday.", True),
        ("Ana: I moved here in 2019", True),
        ("Ana: I did that yesterday!", True),
        ("Ana: The exhibition was great.", False),
        ("Last: a speaker named Last says nothing of time", False),
    ],
)
def test_tells_time(text, told):
    assert tells_time(text) is told


def test_a_possessive_names_the_speaker():
    from services.search.speakers import named_in

    assert "ana" in named_in("What is Ana's favourite class?")


def test_only_names_that_speak_in_the_store_leave_the_keyword_query(transcript, tmp_path):
    # the second stage rewards what a named speaker said; in the words the name only matches
    # every turn addressed to them. A capitalised word nobody speaks as stays a search word.
    from services.config import StoreConfig
    from services.engram import Engram
    from services.search.speakers import speakers_named, without_names

    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store")) as eng:
        m = eng.agent("chat")
        query = "Did Ana's class use Python or did Ben teach it?"
        names = speakers_named(m.db, m.agent_id, query)
    assert names == {"ana", "ben"}
    assert without_names(query, names) == "Did class use Python or did teach it?"
    assert without_names("Ana?", {"ana"}) == "Ana?"  # nothing else left: the query stays

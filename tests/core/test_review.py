"""The review inbox (services/store/review.py): what waits for the user, and what their
decision does. Real SQLite store, keyword-only (the inbox does not need the model)."""

from __future__ import annotations

from datetime import datetime

import pytest

from services.errors import InvalidInput, NotFound
from services.ingest.pipeline import NewFact
from services.lifecycle.gc import run_gc
from services.store.review import review_metadata


@pytest.fixture
def mem(keyword_engram):
    keyword_engram.add_agent("a")
    keyword_engram.update_agent("a", settings={"pii": "ask"})
    return keyword_engram.agent("a")


def _candidate(mem, text: str):
    """What a session proposes with low confidence: it waits in the review inbox."""
    item = NewFact(
        content=text,
        status="pending",
        source="session",
        metadata=review_metadata("low-confidence", 0.4),
    )
    [r] = mem.remember_many([item])
    return r


def test_personal_data_under_ask_waits_in_the_inbox(mem):
    r = mem.remember("The dentist's number is +44 20 7946 0958")
    assert mem.get(r.fact_id).status == "pending"
    [item] = mem.review.items()
    assert item.fact.id == r.fact_id and item.reason == "personal-data"
    assert item.detail["kinds"] == ["phone"]
    assert mem.review.count() == 1
    assert mem.review.accept([r.fact_id]) == [r.fact_id]
    assert mem.get(r.fact_id).status == "active" and mem.review.count() == 0
    assert [h["action"] for h in mem.facts.history(r.fact_id)][-1] == "review.accept"


def test_not_now_keeps_a_candidate_hidden_and_it_is_not_proposed_again(mem):
    text = "Prefers the staging cluster for load tests"
    r = _candidate(mem, text)
    mem.review.not_now([r.fact_id])
    assert mem.get(r.fact_id).status == "archived"
    again = mem.remember(text, source="session")  # a later session says it again
    assert again.status == "duplicate" and mem.get(r.fact_id).status == "archived"
    assert mem.review.count() == 0
    with pytest.raises(InvalidInput, match="not waiting for review"):
        mem.review.accept([r.fact_id])
    # kept means the user can still erase it for good
    assert mem.review.reject([r.fact_id]) == [r.fact_id]
    with pytest.raises(NotFound):
        mem.get(r.fact_id)


def test_a_rejected_candidate_is_erased_and_not_proposed_again(mem):
    text = "Prefers the blue-green rollout for the billing service"
    r = _candidate(mem, text)
    assert mem.review.reject([r.fact_id]) == [r.fact_id]
    receipt = mem.review.last_receipt
    assert receipt["counts"].get("remaining_after_verify", 0) == 0
    with pytest.raises(NotFound):
        mem.get(r.fact_id)
    assert mem.facts.history(r.fact_id) == []  # no audit snapshot keeps the text
    again = mem.remember(text, source="session")  # a later session says it again
    assert again.status == "blocked" and mem.review.count() == 0


def test_gc_drains_the_overflow_queue_but_never_the_inbox(mem):
    [queued, waiting] = mem.remember_many(
        [
            NewFact(
                content="Overflowed fact about the build cache",
                status="pending",
                metadata={"tier": "short"},
            ),
            NewFact(
                content="Maybe prefers dark roast",
                status="pending",
                metadata=review_metadata("low-confidence", 0.3),
            ),
        ]
    )
    run_gc(mem, now=datetime(2026, 12, 1))
    assert mem.get(queued.fact_id).status == "active"
    assert mem.get(waiting.fact_id).status == "pending"
    assert [i.fact.id for i in mem.review.items()] == [waiting.fact_id]


def test_editing_in_personal_data_under_ask_sends_the_fact_back_to_review(mem):
    fid = mem.remember("Sees a physiotherapist on Tuesdays").fact_id
    mem.edit(fid, content="Sees a physiotherapist on Tuesdays, physio@example.org")
    assert mem.get(fid).status == "pending" and mem.review.items()[0].fact.id == fid

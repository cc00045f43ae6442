"""Recall over episodes and the context block's minimum relevance, on a real store with the
embedding model (the cosine half of relevance is what is tested)."""

from __future__ import annotations

import json
from datetime import date

from services.ingest.pipeline import NewFact
from services.search.context import build_context, token_counter


def _stock(agent):
    agent.remember_many(
        [
            NewFact(content="Prefers pnpm over npm for JavaScript projects", category="pref"),
            NewFact(content="The billing service is written in Go", category="proj:billing"),
        ]
        + [
            NewFact(
                content=f"Build log {i}: the nightly pipeline step {i} took {i * 7} seconds",
                category="tmp",
            )
            for i in range(40)
        ],
        near_duplicate=None,
    )
    agent.add_episode(
        date(2026, 3, 2),
        "Fix checkout rounding. Asked: the checkout total is off by a cent. "
        "Did: edited cart.py. Ended: done — totals are summed in cents.",
        time="9:10 AM",
    )
    agent.add_episode(
        date(2026, 3, 3), "Rename orders table. Ended: done — renamed.", time="10:00 AM"
    )


def test_unrelated_query_gets_a_short_block(agent):
    _stock(agent)
    count = token_counter(agent)
    noise = build_context(agent, "what is the capital of Mongolia", budget=1500)
    assert "Build log" not in noise and count(noise) < 300
    related = build_context(agent, "nightly pipeline seconds", budget=1500)
    assert related.count("Build log") >= 30
    # semantic relevance counts too: no word in common with the pnpm fact
    js = build_context(agent, "which package manager for node", budget=1500)
    assert "Prefers pnpm over npm" in js and "Build log" not in js
    # with no minimum the old behaviour is back: the budget fills with whatever matched best
    loose = build_context(agent, "what is the capital of Mongolia", budget=1500, min_relevance=0)
    assert count(loose) > count(noise)


def test_recall_finds_the_session_a_question_is_about(agent):
    _stock(agent)
    (hit, *_) = agent.recall_episodes("when did we fix the checkout rounding?")
    assert hit.episode.summary.startswith("Fix checkout rounding")
    assert set(hit.matched) >= {"fix", "checkout", "rounding"}
    long = "yesterday we talked about why the checkout total kept rounding wrong, what did we do?"
    assert [h.episode.id for h in agent.recall_episodes(long)] == [hit.episode.id]
    assert agent.recall_episodes("the and of") == []  # only stop words: nothing, not everything
    assert agent.recall_episodes("kubernetes ingress") == []
    # the context block puts that session first among the episodes
    text = build_context(agent, "checkout rounding", budget=800)
    eps = text.split("## Recent episodes", 1)[1]
    assert eps.index("Fix checkout rounding") < eps.index("Rename orders table")


def test_a_later_session_updates_what_an_earlier_one_taught(agent, tmp_path):
    from cc_builder import Session

    from models import AuditEvent
    from services.capture.sessions import ingest_session
    from services.lifecycle.config import LifecycleConfig

    def session(sid: str, said: str, folder: str):
        s = Session(sid)
        s.user(said)
        s.say("Noted.")
        return s.write(tmp_path / folder)

    first = session(
        "d1111111-2222-4333-8444-555555555555",
        "We decided to use Postgres 15 for the orders service.",
        "a",
    )
    ingest_session(agent, first, config=LifecycleConfig())
    (old,) = agent.list()
    later = session(
        "d2222222-2222-4333-8444-555555555555",
        "We decided to use Postgres 16 for the orders service.",
        "b",
    )
    r = ingest_session(agent, later, config=LifecycleConfig())
    assert (r.facts_added, r.facts_updated) == (0, 1)
    (now,) = agent.list()
    assert (
        now.id == old.id and now.content == "We decided to use Postgres 16 for the orders service."
    )
    assert now.metadata["provenance"]["session"] == "d2222222-2222-4333-8444-555555555555"
    assert now.metadata["earlier"][0]["session"] == "d1111111-2222-4333-8444-555555555555"
    # the old wording is in the fact's history
    history = [
        e.before for e in AuditEvent.select().where(AuditEvent.fact_id == old.id) if e.before
    ]
    assert any("Postgres 15" in json.dumps(h) for h in history)

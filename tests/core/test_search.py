"""Hybrid search: each signal finds what the other misses, and the fusion keeps both."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from services.errors import ModelUnavailable
from services.ingest.pipeline import NewFact
from services.store.facts import FactFilters

# every store test runs on the local store and on a team store (PostgreSQL + Chroma server)
pytestmark = pytest.mark.backends("sqlite", "postgres")


CORPUS = [
    ("The user adopted a golden retriever puppy named Biscuit", "fact"),
    ("Production database is PostgreSQL 16 on a dedicated host", "env"),
    ("Error code ERR_4471 means the billing webhook signature failed", "fact"),
    ("Prefers short answers without bullet lists", "pref"),
    ("The team ships releases every second Tuesday", "proj:release"),
    ("Runs the test suite with pytest -x before each commit", "rule"),
    ("Allergic to peanuts and shellfish", "fact"),
    ("Error code ERR_4417 means the login session expired", "fact"),
    ("Error code ERR_7441 means the upload was too large", "fact"),
    ("Uses a 34 inch ultrawide monitor at home", "env"),
]


@pytest.fixture
def corpus(agent):
    res = agent.remember_many([NewFact(c, category=cat) for c, cat in CORPUS], near_duplicate=None)
    return {c: r.fact_id for (c, _), r in zip(CORPUS, res)}


def ids(hits):
    return [h.fact.id for h in hits]


def test_paraphrase_found_by_hybrid_but_missed_by_keyword(agent, corpus):
    query = "what kind of pet dog do they own"
    target = corpus[CORPUS[0][0]]
    assert target not in ids(agent.search(query, k=3, mode="keyword", touch=False))
    assert ids(agent.search(query, k=1, mode="semantic", touch=False)) == [target]
    assert ids(agent.search(query, k=1, mode="hybrid")) == [target]


def test_exact_token_found_by_hybrid_but_missed_by_vectors(agent, corpus):
    query = "ERR_4471"
    target = corpus[CORPUS[2][0]]
    assert ids(agent.search(query, k=1, mode="keyword", touch=False)) == [target]
    # the near-identical codes look alike to the embedding model
    assert ids(agent.search(query, k=1, mode="semantic", touch=False)) != [target]
    assert ids(agent.search(query, k=1, mode="hybrid")) == [target]


def test_hits_carry_each_signal_contribution(agent, corpus):
    hit = agent.search("golden retriever puppy", k=1)[0]
    assert set(hit.signals) >= {"keyword", "semantic", "recency", "importance"}
    assert hit.signals["keyword"] > 0 and hit.signals["semantic"] > 0
    assert hit.score == pytest.approx(sum(hit.signals.values()))
    assert hit.raw["keyword_rank"] == 1 and hit.raw["semantic_rank"] == 1


def test_exact_phrase_query(agent):
    agent.remember_many(
        [NewFact("deploy the blue green cluster"), NewFact("green tea and a blue notebook")],
        near_duplicate=None,
    )
    hits = agent.search('"blue green"', k=5, mode="keyword")
    assert [h.fact.content for h in hits] == ["deploy the blue green cluster"]


def test_fts_syntax_in_user_queries_is_harmless(agent, corpus):
    for q in ['"unbalanced', "AND OR NOT", "col:umn*", "(((", "NEAR(a b)", "-"]:
        agent.search(q, k=3)  # must not raise


def test_filters_apply_to_both_signals(agent, corpus):
    hits = agent.search("database host monitor", k=10, filters=FactFilters(category="env"))
    assert hits and all(h.fact.category == "env" for h in hits)
    pinned = agent.search("database", k=10, filters=FactFilters(pinned=True))
    assert pinned == []


def test_superseded_and_deleted_facts_do_not_come_back(agent):
    old = agent.remember("The user lives in Berlin").fact_id
    new = agent.remember("The user moved to Lisbon").fact_id
    assert old not in ids(agent.search("where does the user live", k=5))
    assert new in ids(agent.search("where does the user live", k=5))
    agent.delete(new)
    assert new not in ids(agent.search("Lisbon", k=5))
    hist = agent.search("Berlin", k=5, filters=FactFilters(status="superseded"))
    assert ids(hist) == [old]


def test_retrieval_updates_access_stats(agent, corpus):
    target = corpus[CORPUS[6][0]]
    assert agent.get(target).access_count == 0
    agent.search("peanut allergy", k=1)
    agent.search("shellfish", k=1)
    f = agent.get(target)
    assert f.access_count == 2 and f.last_accessed is not None
    agent.search("shellfish", k=1, touch=False)
    assert agent.get(target).access_count == 2


def test_date_range_filter(agent):
    now = datetime(2026, 11, 30)
    agent.remember_many(
        [
            NewFact("Standup notes from October", created_at=now - timedelta(days=50)),
            NewFact("Standup notes from November", created_at=now - timedelta(days=5)),
        ],
        near_duplicate=None,
    )
    hits = agent.search("standup notes", k=5, filters=FactFilters(since=date(2026, 11, 1)))
    assert [h.fact.content for h in hits] == ["Standup notes from November"]


def test_keyword_only_store_without_model(keyword_engram):
    assert not keyword_engram.semantic_enabled
    mem = keyword_engram.agent("solo", create=True)
    fid = mem.remember("Staging runs on Hetzner").fact_id
    assert [h.fact.id for h in mem.search("Hetzner", k=3)] == [fid]
    with pytest.raises(ModelUnavailable):
        mem.search("Hetzner", mode="semantic")


def test_search_all_agents(engram):
    a = engram.agent("a", create=True)
    b = engram.agent("b", create=True)
    a.remember("Kafka cluster has 3 brokers")
    b.remember("Kafka topics are compacted")
    got = engram.search_all("Kafka", k=5)
    assert {slug for slug, _ in got} == {"a", "b"}


def test_chinese_substring_is_found_by_keyword_search(agent):
    """FTS5's unicode61 does not split CJK text; a Hermes memory written in Chinese must
    still be found by the words a user types."""
    target = agent.remember("今天做了回归测试，修复了登录问题", category="fact").fact_id
    agent.remember("The regression suite runs nightly", category="fact")
    assert [h.fact.id for h in agent.search("回归测试", k=3, mode="keyword")][:1] == [target]
    assert [h.fact.id for h in agent.search("登录", k=3)][:1] == [target]
    assert agent.search("数据库", k=3, mode="keyword") == []


def test_facts_stored_by_a_hook_without_the_model_get_vectors_later(tmp_path):
    """A hook opens the store keyword-only (fast) and leaves the fact owed a vector; the next
    process with the model embeds it before its first semantic search answers."""
    from services.config import StoreConfig
    from services.engram import Engram

    hook = Engram.open(StoreConfig(data_dir=tmp_path / "s", semantic=False))
    fid = hook.agent("claude", create=True).remember("Adopted a greyhound named Comet").fact_id
    hook.close()
    app = Engram.open(StoreConfig(data_dir=tmp_path / "s"))
    try:
        mem = app.agent("claude")
        assert [h.fact.id for h in mem.search("what pet dog", k=1, mode="semantic")] == [fid]
        assert mem.embed_missing() == 0  # nothing left: a count comparison only
    finally:
        app.close()


@pytest.mark.parametrize(
    "text, want",
    [
        ("What did Maria donate on May 3, 2023?", [(2023, 5, 3)]),
        ("what happened on 3 June, 2023", [(2023, 6, 3)]),
        ("the 1st of May 2022", [(2022, 5, 1)]),
        ("What class did she start in December 2023?", [(2023, 12, None)]),
        ("When did Melanie go camping in June?", [(None, 6, None)]),
        ("notes from 2024-02-29", [(2024, 2, 29)]),
        ("I may go to the beach", []),  # the verb is no month
        ("everything in 2023", []),  # a year alone is too broad
        ("on February 30, 2023", []),  # no such day
    ],
)
def test_query_dates(text, want):
    from services.store.text import query_dates

    assert query_dates(text) == want


def test_memory_dated_at_the_date_a_query_names_ranks_first(agent):
    # three equally relevant memories; only the date the question names tells them apart
    days = [date(2023, 2, 20), date(2023, 5, 3), date(2023, 8, 14)]
    res = agent.remember_many(
        [
            NewFact(
                f"Went to the pottery class with {who}",
                event_date=d,
                created_at=datetime(d.year, d.month, d.day, 12),
                subject=f"turn{i}",
            )
            for i, (d, who) in enumerate(zip(days, ("Anna", "Bert", "Cleo")))
        ],
        near_duplicate=None,
    )
    fids = [r.fact_id for r in res]
    assert len(set(fids)) == 3
    for q, want in (
        ("What did she do at the pottery class on May 3, 2023?", fids[1]),
        ("pottery class in August 2023", fids[2]),
        ("pottery class in February", fids[0]),
    ):
        hits = agent.search(q, k=3, touch=False)
        assert ids(hits)[0] == want, q
        assert hits[0].signals["temporal"] > 0
        assert all(h.signals["temporal"] == 0 for h in hits[1:])
        assert hits[0].score == pytest.approx(sum(hits[0].signals.values()))
    # with no date in the query the signal is off
    assert all(h.signals["temporal"] == 0 for h in agent.search("pottery class", k=3, touch=False))
    # and the weight switches it off
    from dataclasses import replace

    from services.search.hybrid import DEFAULT_WEIGHTS

    off = agent.search(
        "pottery class on May 3, 2023",
        k=3,
        touch=False,
        weights=replace(DEFAULT_WEIGHTS, temporal=0.0),
    )
    assert all(h.signals["temporal"] == 0 for h in off)


def test_the_answer_after_a_question_outranks_the_question(agent):
    # a transcript: the question repeats the words of the query, its answer does not
    ref = "chat:2023-05-03"
    turns = [
        "Ana: Any plans for the long weekend?",
        "Ben: How did your sister like the pottery class last weekend?",
        "Ana: My sister loved the pottery class, she wants to go every Saturday.",
        "Ben: Nice, I should try that too.",
        "Ana: Our cat knocked a vase off the shelf again.",
    ]
    res = agent.remember_many(
        [NewFact(t, source_ref=ref, subject=f"t{i}") for i, t in enumerate(turns)],
        near_duplicate=None,
    )
    fids = [r.fact_id for r in res]
    query = "how did the sister like the pottery class"
    # keyword mode ranks by the words alone: the question first
    assert ids(agent.search(query, k=1, mode="keyword", touch=False)) == [fids[1]]
    hits = {h.fact.id: h for h in agent.search(query, k=5, touch=False)}
    assert max(hits, key=lambda i: hits[i].score) == fids[2]
    # without the discount the question would win
    from dataclasses import replace

    from services.search.hybrid import DEFAULT_WEIGHTS

    plain = {
        h.fact.id: h
        for h in agent.search(
            query, k=5, touch=False, weights=replace(DEFAULT_WEIGHTS, question=1.0)
        )
    }
    assert max(plain, key=lambda i: plain[i].score) == fids[1]
    # the question keeps `question` of its score, still passes all of its relevance on as
    # context, and a memory that asks nothing is untouched
    q = DEFAULT_WEIGHTS.question
    for sig in ("keyword", "semantic", "context"):
        assert hits[fids[1]].signals[sig] == pytest.approx(q * plain[fids[1]].signals[sig])
        assert hits[fids[2]].signals[sig] == pytest.approx(plain[fids[2]].signals[sig])
    assert hits[fids[2]].signals["context"] == pytest.approx(plain[fids[2]].signals["context"])
    assert hits[fids[1]].score == pytest.approx(sum(hits[fids[1]].signals.values()))


@pytest.mark.backends("sqlite")  # FTS5's own ranking window
def test_keyword_search_finds_an_agents_few_matches_under_another_agents_many(
    keyword_engram, monkeypatch
):
    """FTS5 ranks the whole table first (big stores); when another agent's facts fill that top
    (here 900 'deploy' facts against 3), the agent's own matches must still all come back,
    filtered."""
    from services.search import keyword_sqlite
    from services.search.hybrid import keyword_candidates

    monkeypatch.setattr(keyword_sqlite, "FTS_FIRST_FROM", 0)  # as in a store of 30k+ facts

    busy = keyword_engram.agent("busy", create=True)
    quiet = keyword_engram.agent("quiet", create=True)
    busy.remember_many(
        [NewFact(f"deploy note {i}: deploy the deploy script") for i in range(900)],
        near_duplicate=None,
    )
    mine = quiet.remember_many(
        [
            NewFact("We deploy on Fridays", category="rule"),
            NewFact("The deploy key rotates monthly", category="env"),
            NewFact("Never deploy without a backup", category="rule"),
        ]
    )
    hits = quiet.search("deploy", k=10, mode="keyword", touch=False)
    assert {h.fact.id for h in hits} == {r.fact_id for r in mine}
    rules = quiet.search(
        "deploy", k=10, mode="keyword", touch=False, filters=FactFilters(category="rule")
    )
    assert {h.fact.content for h in rules} == {
        "We deploy on Fridays",
        "Never deploy without a backup",
    }
    # the busy agent's top scores are those of ranking its joined rows (ties may reorder ids)
    top = keyword_candidates(
        keyword_engram.db, busy.agent_id, "deploy", FactFilters(status=["active"]), 20
    )
    joined = keyword_engram.db.execute_sql(
        "SELECT -bm25(fact_fts, 1.0, 0.4, 0.4) FROM fact_fts JOIN fact f ON f.id = "
        "fact_fts.rowid WHERE fact_fts MATCH '\"deploy\"' AND f.agent_id = ? "
        "ORDER BY bm25(fact_fts, 1.0, 0.4, 0.4) LIMIT 20",
        (busy.agent_id,),
    ).fetchall()
    assert [round(s, 9) for _, s in top] == [round(r[0], 9) for r in joined]


def test_a_search_reads_its_candidates_by_rowid_not_by_walking_the_agent(keyword_engram):
    """At 100k facts SQLite walked the agent's whole (agent_id, status) index for each id
    list a hybrid search reads (7 ms, three times a query); the lists are read by rowid."""
    from services.search.sql import facts_by_id, ids_in, sql_filters

    m = keyword_engram.agent("plan", create=True)
    m.remember_many([NewFact(f"fact number {i} about the plan") for i in range(50)])
    db = keyword_engram.db
    first = min(r.id for r in m.facts.list(limit=100))
    clause, param = ids_in(db, [first + 3, first + 5, first + 8])
    sql, params = sql_filters(
        f"SELECT f.id FROM {facts_by_id(db)} WHERE f.agent_id = ? AND f.id {clause}",
        [m.agent_id, param],
        FactFilters(status=["active"]),
    )
    from models.db import is_postgres
    from services.search.sql import run

    ids = sorted(r[0] for r in run(db, sql, params).fetchall())
    assert len(ids) == 3 and set(ids) <= {r.id for r in m.facts.list(limit=100)}
    if not is_postgres(db):  # PostgreSQL sizes its array parameter itself
        plan = " ".join(str(r) for r in db.execute_sql("EXPLAIN QUERY PLAN " + sql, params))
        assert "INTEGER PRIMARY KEY" in plan and "fact_rank" not in plan


def test_the_second_stage_puts_the_named_speakers_turn_first_on_both_backends(agent):
    # the SQL that reads the candidates' text runs on SQLite and on PostgreSQL alike
    turns = [
        "Ben: Ana keeps talking about her pottery class, she loves it.",
        "Ana: I finally made a blue bowl at the pottery class!",
        "Ben: My pottery class teacher says Ana is talented.",
    ]
    res = agent.remember_many([NewFact(t) for t in turns], near_duplicate=None)
    query = "What did Ana make at her pottery class?"
    hits = agent.search(query, k=3, touch=False)
    assert hits[0].fact.id == res[1].fact_id
    assert hits[0].pipeline == "hybrid+rerank" and hits[0].signals["speaker"] > 0
    assert all(h.pipeline == "keyword-only" for h in agent.search(query, k=3, mode="keyword"))
    # the speaker lookup that takes a named speaker out of the keyword query, on both backends
    from services.search.speakers import speakers_named

    assert speakers_named(agent.db, agent.agent_id, query + " Pottery Ben") == {"ana", "ben"}

"""Keyword search on a large store prunes everyday words (services/search/keyword_pruned.py).

The thresholds are lowered so a few hundred facts behave like a million: a word in more than
``DF_CAP`` facts is "common". What a user notices: the fact with the rare word still comes
first, facts matching only everyday words still fill the list, and a deleted fact never
comes back."""

from __future__ import annotations

import pytest

from services.ingest.pipeline import NewFact
from services.search import keyword_pruned, keyword_sqlite


@pytest.fixture
def big(keyword_engram, monkeypatch):
    monkeypatch.setattr(keyword_sqlite, "FTS_FIRST_FROM", 50)
    monkeypatch.setattr(keyword_pruned, "DF_CAP", 20)
    m = keyword_engram.agent("a", create=True)
    m.remember_many(
        [NewFact(content=f"Deploy the release on Friday, batch {i}") for i in range(120)]
        + [NewFact(content=f"Review the release notes with team {i}") for i in range(60)],
        near_duplicate=None,
    )
    rare = m.remember("Priya signs off every release deploy").fact_id
    return m, rare


def test_rare_word_ranks_first_and_common_matches_fill_the_list(big):
    m, rare = big
    hits = m.search("Priya release deploy", k=10, mode="keyword", touch=False)
    assert hits[0].fact.id == rare
    assert len(hits) == 10
    assert all("release" in h.fact.content for h in hits)


def test_everyday_words_only_rank_facts_with_all_of_them_first(big):
    m, _ = big
    hits = m.search("release Friday", k=5, mode="keyword", touch=False)
    assert len(hits) == 5
    assert all("Friday" in h.fact.content for h in hits)


def test_a_deleted_fact_is_not_found_through_the_pruned_path(big):
    m, rare = big
    m.delete([rare])
    hits = m.search("Priya release deploy", k=10, mode="keyword", touch=False)
    assert rare not in [h.fact.id for h in hits]
    assert not any("Priya" in h.fact.content for h in hits)

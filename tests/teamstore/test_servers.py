"""The team store on real servers: PostgreSQL (rows, full text) and a Chroma server."""

from __future__ import annotations

from services.ingest.pipeline import NewFact
from services.store.facts import FactFilters


def test_a_team_store_keeps_facts_and_finds_them_by_keyword_phrase_and_filter(keyword_engram_pg):
    mem = keyword_engram_pg.agent("team", create=True)
    mem.remember_many(
        [
            NewFact("We deploy the billing service on Fridays", category="rule"),
            NewFact("The staging database runs PostgreSQL 15", category="env"),
            NewFact("Deployments need a second reviewer", category="rule"),
        ]
    )
    hits = mem.search("deploying", k=5, mode="keyword", touch=False)
    assert [h.fact.content for h in hits][:2] == [
        "We deploy the billing service on Fridays",
        "Deployments need a second reviewer",
    ] or {h.fact.content for h in hits} >= {"We deploy the billing service on Fridays"}
    phrase = mem.search('"billing service"', k=5, mode="keyword", touch=False)
    assert [h.fact.content for h in phrase] == ["We deploy the billing service on Fridays"]
    env = mem.search("postgresql", k=5, mode="keyword", filters=FactFilters(category="env"))
    assert [h.fact.content for h in env] == ["The staging database runs PostgreSQL 15"]
    # no FTS5 on PostgreSQL: the full text is the generated tsvector column
    db = keyword_engram_pg.db
    tables = {r[0] for r in db.execute_sql("SELECT tablename FROM pg_tables").fetchall()}
    assert not {"fact_fts", "episode_fts"} & tables
    assert db.execute_sql("SELECT count(*) FROM fact WHERE fts IS NOT NULL").fetchone()[0] == 3

"""Migration 9: a fact's history (shown on every row selection in the app) walks the
``superseded_by`` chain through an index, not through every fact of the agent."""

from __future__ import annotations

from services.ingest.pipeline import NewFact


def test_history_follows_corrections_through_the_new_index(keyword_engram):
    m = keyword_engram.agent("a", create=True)
    m.remember_many([NewFact(content=f"Filler memory number {i}") for i in range(50)])
    first = m.remember("The staging server is called kestrel").fact_id
    second = m.edit(first, content="The staging server is called osprey").id
    history = m.facts.history(second)
    assert [e["action"] for e in history][:1] == ["create"]
    assert {e["fact_id"] for e in history} >= {first}

    db = keyword_engram.db
    names = {r[0] for r in db.execute_sql("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "fact_agent_superseded" in names
    plan = " ".join(
        str(r[-1])
        for r in db.execute_sql(
            "EXPLAIN QUERY PLAN SELECT id FROM fact WHERE agent_id = ? AND superseded_by_id IN (?)",
            (m.agent_id, second),
        )
    )
    assert "fact_agent_superseded" in plan

"""Keyword candidates on the local store: SQLite FTS5, BM25 (content weighs more than
subject/tags)."""

from __future__ import annotations

from peewee import Database

from services.search.sql import sql_filters
from services.search.terms import content_terms
from services.store.facts import FactFilters


def keyword_query(text: str, stopwords: bool = True, mode: str = "any") -> str:
    """A safe FTS5 MATCH expression: quoted phrases stay phrases, every other word becomes a
    quoted token (so user text can never inject FTS5 syntax), function words are dropped
    unless nothing else is left, repeats are merged."""
    phrases, words = content_terms(text, stopwords)
    parts = phrases + [f'"{w}"' for w in words]
    return (" OR " if mode == "any" else " AND ").join(parts)


def keyword_candidates(
    db: Database,
    agent_id: int,
    query: str,
    filters: FactFilters,
    n: int,
    mode: str,
    stopwords: bool,
) -> list[tuple[int, float]]:
    match = keyword_query(query, stopwords=stopwords, mode=mode)
    if not match:
        return []
    hits = None
    size = _store_size(db)
    if mode == "any" and size >= FTS_FIRST_FROM:
        from services.search.keyword_pruned import pruned_top

        phrases, words = content_terms(query, stopwords)
        ranked = pruned_top(db, phrases + [f'"{w}"' for w in words], max(4 * n, 200), size)
        if ranked is not None:
            hits = _agent_window(db, agent_id, ranked, filters, n, max(4 * n, 200))
    if hits is None:
        hits = _top_in_fts(db, agent_id, match, filters, n)
    if hits is None:
        sql = (
            "SELECT f.id, -bm25(fact_fts, 1.0, 0.4, 0.4) AS s FROM fact_fts "
            "JOIN fact f ON f.id = fact_fts.rowid WHERE fact_fts MATCH ? AND f.agent_id = ?"
        )
        params: list = [match, agent_id]
        sql, params = sql_filters(sql, params, filters)
        sql += " ORDER BY bm25(fact_fts, 1.0, 0.4, 0.4) LIMIT ?"
        params.append(n)
        hits = [(int(i), float(s)) for i, s in db.execute_sql(sql, params).fetchall()]
    return hits


# Side by side on the bench's stores (p50, join-then-rank vs this): 10k facts 1.4 vs 2.3 ms,
# 100k 12.4 vs 8.5 ms, 1M 180 vs 70 ms. Small stores keep the plain join.
FTS_FIRST_FROM = 30_000


def _top_in_fts(
    db: Database, agent_id: int, match: str, filters: FactFilters, n: int
) -> list[tuple[int, float]] | None:
    """The best ``n`` matches ranked inside FTS5 alone, then checked against the agent and the
    filters; None when too few of them pass (another agent's facts fill the top), and the
    caller ranks the joined rows instead. Joining every match to its row before ranking is
    what made a common word cost 200+ ms at a million facts; BM25 scores are the same either
    way (its statistics are the whole table's)."""
    if _store_size(db) < FTS_FIRST_FROM:
        return None
    limit = max(4 * n, 200)
    ranked = db.execute_sql(
        "SELECT rowid, -bm25(fact_fts, 1.0, 0.4, 0.4) FROM fact_fts WHERE fact_fts MATCH ? "
        "ORDER BY bm25(fact_fts, 1.0, 0.4, 0.4) LIMIT ?",
        (match, limit),
    ).fetchall()
    return _agent_window(db, agent_id, ranked, filters, n, limit)


def _store_size(db: Database) -> int:
    return db.execute_sql("SELECT max(rowid) FROM fact").fetchone()[0] or 0


def _agent_window(
    db: Database, agent_id: int, ranked: list, filters: FactFilters, n: int, limit: int
) -> list[tuple[int, float]] | None:
    if not ranked:
        return []
    # NOT INDEXED: look the window up by rowid; left to itself SQLite walks the agent's whole
    # (agent, status) index instead (110 ms at a million facts, against 3)
    sql = "SELECT f.id FROM fact f NOT INDEXED WHERE f.id IN (%s) AND f.agent_id = ?" % ",".join(
        "?" * len(ranked)
    )
    sql, params = sql_filters(sql, [r[0] for r in ranked] + [agent_id], filters)
    ok = {r[0] for r in db.execute_sql(sql, params).fetchall()}
    hits = [(int(i), float(s)) for i, s in ranked if i in ok][:n]
    if len(hits) < n and len(ranked) == limit:
        return None  # the agent's own best may lie below this window
    return hits

"""Keyword candidates on the local store: SQLite FTS5, BM25 (content weighs more than
subject/tags), exact.

The top ``n`` is exhaustive BM25's top ``n``, in one total order (score, then the newer fact
first), on every path: a ranking that changes what the user gets to be fast is not a speed-up.
An earlier version pruned everyday words on stores of 30k+ facts; at 160k facts it kept 0.83
of exact BM25's top-10 score mass and scored ties 1.000 (docs/speed.md).

Measured before choosing (300k synthetic facts; the profile is in docs/speed.md): counting a
word's documents is cheap (1-19 ms for 10k-90k rows), scoring is not (~3 µs a row: FTS5's
``bm25()`` reads every row's column sizes), so the cost is the number of rows scored. An early
stop (MaxScore) needs each word's largest possible share; FTS5 gives only ``(k1 + 1) · idf``,
about twice a real one, and with that bound no candidate set built from the rarer words ever
closes the top ``4 n`` = 800 window. A faster exact top-k needs per-block maxima (block-max
WAND: Tantivy), a second copy of every memory's text whose deleted bytes live until a segment
merge: the next step in docs/speed.md, not taken here.
"""

from __future__ import annotations

from peewee import Database

from services.search.sql import sql_filters
from services.search.terms import content_terms
from services.store.facts import FactFilters

BM25 = "bm25(fact_fts, 1.0, 0.4, 0.4)"


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
    """(fact id, BM25 ≥ 0) best first: ties go to the newer fact, so the same store and query
    always give the same list."""
    match = keyword_query(query, stopwords=stopwords, mode=mode)
    if not match:
        return []
    hits = _top_in_fts(db, agent_id, match, filters, n)
    if hits is None:
        hits = exhaustive(db, agent_id, match, filters, n)
    return hits


def exhaustive(
    db: Database, agent_id: int, match: str, filters: FactFilters, n: int
) -> list[tuple[int, float]]:
    """Every match of the agent joined to its row, then ranked: the reference the fast path
    must equal (tests and ``bench speed`` compare with it). CROSS JOIN: the match first; left
    to itself SQLite may walk the agent's facts and run the MATCH once per fact (540 s for one
    query at 300k facts, against 0.4 s, when nothing bounds the result)."""
    sql = (
        f"SELECT f.id, -{BM25} AS s FROM fact_fts "
        "CROSS JOIN fact f ON f.id = fact_fts.rowid WHERE fact_fts MATCH ? AND f.agent_id = ?"
    )
    params: list = [match, agent_id]
    sql, params = sql_filters(sql, params, filters)
    sql += " ORDER BY s DESC, f.id DESC LIMIT ?"
    params.append(n)
    return [(int(i), float(s)) for i, s in db.execute_sql(sql, params).fetchall()]


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
    way (its statistics are the whole table's), and so is the order (the same tie-break): the
    agent's rows in the table's top window are the head of the agent's own ranking."""
    if _store_size(db) < FTS_FIRST_FROM:
        return None
    limit = max(4 * n, 200)
    ranked = db.execute_sql(
        f"SELECT rowid, -{BM25} AS s FROM fact_fts WHERE fact_fts MATCH ? "
        "ORDER BY s DESC, rowid DESC LIMIT ?",
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

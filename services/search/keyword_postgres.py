"""Keyword candidates on a team store: PostgreSQL full text.

``fact.fts`` is a generated ``tsvector`` (content weight A, subject and tags B; english
stemming, like FTS5's porter) with a GIN index (schema v4). The query is built from the same
terms as on SQLite, each through ``plainto_tsquery``/``phraseto_tsquery`` as a bound
parameter, so user text never becomes tsquery syntax. ``ts_rank_cd`` (cover density, weights
D..A = 0.1, 0.2, 0.4, 1.0) takes BM25's place; the fusion normalises by the best hit, so only
the order and the ratios matter.
"""

from __future__ import annotations

from peewee import Database

from services.search.sql import run, sql_filters
from services.search.terms import content_terms
from services.store.facts import FactFilters

CONFIG = "english"
WEIGHTS = "'{0.1, 0.2, 0.4, 1.0}'"


def tsquery_sql(text: str, stopwords: bool = True, mode: str = "any") -> tuple[str, list]:
    """(SQL expression of a tsquery, its parameters); ('', []) when nothing is searchable."""
    phrases, words = content_terms(text, stopwords)
    parts = [f"phraseto_tsquery('{CONFIG}', ?)" for _ in phrases]
    parts += [f"plainto_tsquery('{CONFIG}', ?)" for _ in words]
    params = [p.strip('"') for p in phrases] + list(words)
    if not parts:
        return "", []
    return "(" + (" || " if mode == "any" else " && ").join(parts) + ")", params


def keyword_candidates(
    db: Database,
    agent_id: int,
    query: str,
    filters: FactFilters,
    n: int,
    mode: str,
    stopwords: bool,
) -> list[tuple[int, float]]:
    q, qparams = tsquery_sql(query, stopwords, mode)
    if not q:
        return []
    sql = (
        f"SELECT f.id, ts_rank_cd({WEIGHTS}, f.fts, q.q) AS s FROM fact f, (SELECT {q} AS q) AS q "
        "WHERE q.q <> ''::tsquery AND f.fts @@ q.q AND f.agent_id = ?"
    )
    sql, params = sql_filters(sql, [*qparams, agent_id], filters)
    sql += " ORDER BY s DESC, f.id DESC LIMIT ?"
    params.append(n)
    return [(int(i), float(s)) for i, s in run(db, sql, params).fetchall()]

"""Keyword top-k on a large local store without scoring every row that shares a common word.

FTS5 answers an OR query by scoring every row that matches any term: at a million facts a
query with one everyday word ("deploy", "project") scores hundreds of thousands of rows, and
``bm25()`` also walks each term's whole posting list to count its documents (the 652-1871 ms
of the issue). Measured first (bench/speed.py, 1M synthetic facts): the cost is entirely in
the high-document-frequency terms; rare terms answer in a millisecond.

Chosen: query-side pruning in the manner of a "common terms" query, kept inside SQLite so the
forget guarantee (FTS5 external content + ``secure_delete``, no second index holding text)
is untouched. An engine with block-max WAND (Tantivy) would be exact and fast too, but it is a
second copy of every memory's text whose deleted bytes live on until a segment merge, and a
second ranking next to PostgreSQL's: not worth it while this meets the aim.

1. Each term's document frequency, counted up to ``DF_CAP`` rows (reading at most that many
   rowids: a bounded cost, whatever the store's size).
2. Rare terms (fewer than ``DF_CAP`` rows) pick the candidates and are scored by FTS5's own
   BM25. The common terms only add to the score of those candidates: a common term's share is
   its BM25 idf, with its document frequency estimated from how often it co-occurs with the
   candidates (read by an ``AND`` that seeks, never scans), at term frequency 1.
3. Too few candidates (no rare term, or rare terms that match little): rows holding all the
   common terms, then any of them, newest first, without scoring (see ``_common_newest``).

Rows matching only common words are not candidates when rarer words match: their BM25 is
below a rare word's idf, so they could only fill places past the rows that do match one. The
hybrid fusion normalises by the best keyword hit, so these scores mix exactly like BM25's.
"""

from __future__ import annotations

import math

from peewee import Database

DF_CAP = 1500
K1 = 1.2  # FTS5's bm25 constant


def pruned_top(
    db: Database, terms: list[str], limit: int, n_docs: int
) -> list[tuple[int, float]] | None:
    """(rowid, relevance) best first over the whole FTS table, or None when pruning buys
    nothing (every term is rare: the plain OR query is already cheap). ``n_docs`` is the
    table's size (the largest rowid will do: idf is a logarithm)."""
    if not terms:
        return []
    df = {t: _capped_df(db, t) for t in terms}
    rare = [t for t in terms if df[t] < DF_CAP]
    common = [t for t in terms if df[t] >= DF_CAP]
    if not common:
        return None
    score = _rare_first(db, rare, common, max(n_docs, 1)) if rare else {}
    if len(score) < limit:
        for rowid, s in _common_newest(db, common, limit, max(n_docs, 1)):
            if rowid not in score:
                score[rowid] = s
    return sorted(score.items(), key=lambda t: (-t[1], -t[0]))[:limit]


def _capped_df(db: Database, term: str) -> int:
    return db.execute_sql(
        "SELECT count(*) FROM (SELECT rowid FROM fact_fts WHERE fact_fts MATCH ? LIMIT ?)",
        (term, DF_CAP),
    ).fetchone()[0]


def _rare_first(db: Database, rare: list[str], common: list[str], n_docs: int) -> dict[int, float]:
    any_rare = " OR ".join(rare)
    score = {
        int(r): float(s)
        for r, s in db.execute_sql(
            "SELECT rowid, -bm25(fact_fts, 1.0, 0.4, 0.4) FROM fact_fts WHERE fact_fts MATCH ?",
            (any_rare,),
        ).fetchall()
    }
    if not score:
        return score
    for term in common:
        with_term = [
            int(r)
            for (r,) in db.execute_sql(
                "SELECT rowid FROM fact_fts WHERE fact_fts MATCH ?",
                (f"({term}) AND ({any_rare})",),
            ).fetchall()
        ]
        # co-occurrence with the candidates estimates the term's share of all rows
        est = max(DF_CAP, round(n_docs * len(with_term) / len(score)))
        idf = max(1e-6, math.log((n_docs - est + 0.5) / (est + 0.5)))
        for r in with_term:
            score[r] += idf  # tf 1 at the average length: (k1 + 1) / (1 + k1) = 1
    return score


def _common_newest(
    db: Database, common: list[str], limit: int, n_docs: int
) -> list[tuple[int, float]]:
    """Rows holding only everyday words: those holding all of them first, then any; among
    them the newest ``limit``. FTS5 walks rowids backwards without scoring anything (calling
    ``bm25()`` here would count each word's documents over its whole posting list: 20-40 ms
    at a million facts); each row gets the idf of an everyday word (its document frequency
    taken at ``DF_CAP``, an upper bound) per word it is known to hold."""
    sql = "SELECT rowid FROM fact_fts WHERE fact_fts MATCH ? ORDER BY rowid DESC LIMIT ?"
    idf = max(1e-6, math.log((n_docs - DF_CAP + 0.5) / (DF_CAP + 0.5)))
    got: dict[int, float] = {}
    exprs = [(" AND ".join(common), idf * len(common))] if len(common) > 1 else []
    exprs.append((" OR ".join(common), idf))
    for expr, score in exprs:
        for (r,) in db.execute_sql(sql, (expr, limit)).fetchall():
            got.setdefault(int(r), score)
        if len(got) >= limit:
            break
    return list(got.items())

"""Hybrid search: FTS5 BM25 and vector top-k, fused by weighted normalised scores, then
rescored with recency, importance and access. Every hit carries each signal's contribution.

Why not plain reciprocal-rank fusion: RRF throws away how *much* better the first keyword hit
is than the tenth, and on LoCoMo it ranked below BM25 alone (see ``bench/``). Scores are
normalised per query (best keyword hit = 1, cosine clipped at 0) and mixed with weights.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from models import Fact
from models.entities import utcnow
from services.facts import FactFilters, fact_view
from services.text import fts_query
from services.views import SearchHit

MODES = ("hybrid", "keyword", "semantic")


@dataclass(frozen=True)
class SearchWeights:
    keyword: float = 0.5
    semantic: float = 0.5
    recency: float = 0.03
    importance: float = 0.03
    access: float = 0.01
    half_life_days: float = 60.0
    candidates: int = 60


DEFAULT_WEIGHTS = SearchWeights()


def keyword_candidates(db, agent_id: int, query: str, filters: FactFilters, n: int,
                       mode: str = "any") -> list[tuple[int, float]]:
    """(fact id, BM25 relevance ≥ 0) best first. Content weighs more than subject/tags."""
    match = fts_query(query, mode)
    if not match:
        return []
    sql = ("SELECT f.id, -bm25(fact_fts, 1.0, 0.4, 0.4) AS s FROM fact_fts "
           "JOIN fact f ON f.id = fact_fts.rowid WHERE fact_fts MATCH ? AND f.agent_id = ?")
    params: list = [match, agent_id]
    sql, params = _sql_filters(sql, params, filters)
    sql += " ORDER BY bm25(fact_fts, 1.0, 0.4, 0.4) LIMIT ?"
    params.append(n)
    return [(int(i), float(s)) for i, s in db.execute_sql(sql, params).fetchall()]


def _sql_filters(sql: str, params: list, f: FactFilters):
    if f.status:
        sql += " AND f.status IN (%s)" % ",".join("?" * len(f.status))
        params += list(f.status)
    if f.category:
        conds = []
        for c in f.category:
            if c.endswith(":"):
                conds.append("f.category LIKE ?")
                params.append(c + "%")
            else:
                conds.append("f.category = ?")
                params.append(c)
        sql += " AND (" + " OR ".join(conds) + ")"
    if f.memory_type:
        sql += " AND f.memory_type IN (%s)" % ",".join("?" * len(f.memory_type))
        params += list(f.memory_type)
    if f.pinned is not None:
        sql += " AND f.pinned = ?"
        params.append(1 if f.pinned else 0)
    if f.since is not None:
        sql += " AND f.created_at >= ?"
        params.append(_iso(f.since))
    if f.until is not None:
        sql += " AND f.created_at <= ?"
        params.append(_iso(f.until, end=True))
    return sql, params


def _iso(v, end: bool = False) -> str:
    if isinstance(v, datetime):
        return v.isoformat(sep=" ")
    return v.isoformat() + (" 23:59:59" if end else "")


class Searcher:
    def __init__(self, memory, weights: SearchWeights = DEFAULT_WEIGHTS):
        self.m = memory
        self.weights = weights

    def search(self, query: str, k: int = 10, filters: FactFilters | None = None,
               mode: str = "hybrid", touch: bool = True,
               weights: SearchWeights | None = None, now: datetime | None = None) -> list[SearchHit]:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        w = weights or self.weights
        filters = filters or FactFilters()
        if not filters.status:
            filters = _with_status(filters, ["active"])
        n = max(w.candidates, k)
        kw: dict[int, float] = {}
        kw_rank: dict[int, int] = {}
        if mode in ("hybrid", "keyword"):
            for r, (fid, s) in enumerate(keyword_candidates(self.m.db, self.m.agent_id, query,
                                                            filters, n)):
                kw[fid], kw_rank[fid] = s, r + 1
        sem: dict[int, float] = {}
        sem_rank: dict[int, int] = {}
        engram = self.m.engram
        if mode in ("hybrid", "semantic") and engram.embedder is not None and query.strip():
            qv = engram.embedder.embed_one(query)
            # Chroma holds every status; over-fetch, then keep what the filters allow.
            got = engram.index.query(self.m.agent_id, qv, k=n * 3)
            allowed = self._allowed([fid for fid, _ in got], filters)
            got = [(fid, s) for fid, s in got if fid in allowed][:n]
            for r, (fid, s) in enumerate(got):
                sem[fid], sem_rank[fid] = s, r + 1
        ids = set(kw) | set(sem)
        if not ids:
            return []
        rows = {f.id: f for f in Fact.select().where(
            (Fact.agent == self.m.agent_id) & Fact.id.in_(list(ids)))}
        kmax = max(kw.values()) if kw else 1.0
        now = now or utcnow()
        amax = max((rows[i].access_count for i in rows), default=0)
        hits = []
        for fid, row in rows.items():
            s_kw = (kw.get(fid, 0.0) / kmax) if kmax > 0 else 0.0
            s_sem = max(0.0, sem.get(fid, 0.0))
            when = row.created_at
            if row.event_date:
                when = datetime(row.event_date.year, row.event_date.month, row.event_date.day)
            age = max(0.0, (now - when).total_seconds() / 86400.0)
            rec = math.exp(-math.log(2) * age / w.half_life_days)
            acc = math.log1p(row.access_count) / math.log1p(amax) if amax else 0.0
            kw_w, sem_w = w.keyword, w.semantic
            if mode == "keyword":
                kw_w, sem_w = 1.0, 0.0
            elif mode == "semantic":
                kw_w, sem_w = 0.0, 1.0
            signals = {
                "keyword": kw_w * s_kw, "semantic": sem_w * s_sem,
                "recency": w.recency * rec,
                "importance": w.importance * (1.0 if row.pinned else row.importance),
                "access": w.access * acc,
            }
            raw = {"bm25": round(kw.get(fid, 0.0), 6), "cosine": round(sem.get(fid, 0.0), 6),
                   "keyword_rank": kw_rank.get(fid), "semantic_rank": sem_rank.get(fid)}
            hits.append(SearchHit(fact_view(row), sum(signals.values()), signals, raw))
        hits.sort(key=lambda h: (-h.score, -h.fact.id))
        hits = hits[:k]
        if touch and hits:
            self.m.facts.touch([h.fact.id for h in hits])
        return hits

    def _allowed(self, ids: list[int], filters: FactFilters) -> set[int]:
        if not ids:
            return set()
        q = filters.apply(Fact.select(Fact.id).where(
            (Fact.agent == self.m.agent_id) & Fact.id.in_(ids)))
        return {r[0] for r in q.tuples()}


def _with_status(f: FactFilters, status: list[str]) -> FactFilters:
    g = FactFilters(status=status, category=f.category, memory_type=f.memory_type,
                    pinned=f.pinned, since=f.since, until=f.until, text=f.text)
    return g

"""Hybrid search: full-text relevance and vector top-k, fused by weighted normalised scores,
spread to neighbouring memories of the same source, then rescored with recency, importance
and access. Every hit carries each signal's contribution.

The full text comes from the store's own backend (``keyword_sqlite``: FTS5 BM25 on the local
store; ``keyword_postgres``: ``ts_rank_cd`` over a generated tsvector on a team store); the
SQL both share is in ``sql.py``; everything below the candidates is one code path.

What the LoCoMo benchmark (``python -m bench locomo``) taught, and why the code is shaped so:

* Plain reciprocal-rank fusion throws away how *much* better the first keyword hit is than
  the tenth; on LoCoMo it ranked below BM25 alone. Scores are normalised per query (best
  keyword hit = 1; cosine min-max scaled over the semantic candidate pool) and mixed with
  weights; keyword leads because names, places and rare words decide most questions.
* Both normalised scores are squared (``sharpen``) before mixing: a memory that matches
  the one rare word of a question should clearly beat ten that share only a name.
* Function words ("what", "did", "the") only add noise to an OR query: they match nearly every
  memory. They are dropped unless the query has nothing else.
* Memories imported from one source (a chat session, a transcript, a notes file) are a
  sequence: the turn that answers a question often does not repeat its words, the turn
  before it does. A memory gets a ``context`` share of the best relevance of its neighbours
  (up to ``context_window`` places away in the same ``source_ref``, decaying by
  ``context_decay`` per step). On LoCoMo this lifted Recall@5 from ~0.56 to ~0.62.
* A question that names a date ("on May 3, 2023", "in December 2023", "in June") asks about
  what happened then. Memories dated on it (event date, else creation time; up to
  ``temporal_after_days`` later, since events are often told some days after) get a
  ``temporal`` share of their own relevance, so the date ranks among equally relevant
  memories without lifting an unrelated one. On LoCoMo: Recall@5 +0.01–0.02 overall, on the
  held-out conversations too (12 % of its questions name a date).
* A memory that ends in a question ("How has your family been supportive?") asks; the one
  after it tells. In hybrid mode such a memory keeps only ``question`` of its score (its
  own keyword and semantic relevance and the context it inherits), but still passes its
  full relevance on as context, so the answer next to it can win. On LoCoMo: Recall@5
  +0.018, MRR +0.026 (held-out +0.013 / +0.025).
* A name in the question that is a speaker in the store ("What did Melanie paint?") is left
  out of the keyword query in hybrid mode (``speakers.py``): as a word it matches every turn
  addressed to her; the second stage rewards what she said instead.
* Then a second stage (``rerank.py``) re-orders the best ``rerank_depth`` candidates with
  what one memory alone cannot say: whether the query names who said it, whether it asks
  "when" of a memory that tells a time. Hybrid mode only;
  keyword mode ranks by the words alone. Each hit says which ``pipeline`` ranked it, and
  ``keyword-only`` when no vectors took part (no model loaded yet, a store without vectors).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from peewee import Database

from models.db import is_postgres
from models.tables import utcnow
from services.ingest.limits import trim_query
from services.records import SearchHit
from services.search.keyword_backend import keyword_backend
from services.search.rerank import rerank
from services.search.speakers import speakers_named, without_names
from services.search.sql import facts_by_id, ids_in, run, sql_filters
from services.search.terms import merge_substring_hits
from services.store import fact_rows
from services.store.facts import FactFilters, fact_view
from services.store.text import query_dates

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle


class SearchMode(StrEnum):
    HYBRID = "hybrid"
    KEYWORD = "keyword"
    SEMANTIC = "semantic"


MODES = tuple(m.value for m in SearchMode)


class Pipeline(StrEnum):
    """What ranked a result, as the recall JSON and the MCP text report it."""

    RERANKED = "hybrid+rerank"
    HYBRID = "hybrid"
    SEMANTIC = "semantic"
    KEYWORD_ONLY = "keyword-only"


def pipeline_for(memory: MemoryHandle, mode: str, weights: SearchWeights | None = None) -> str:
    """The pipeline a search in ``mode`` runs on this store now: keyword-only whenever no
    vectors can take part (keyword mode, or hybrid with no model or index loaded)."""
    w = weights or DEFAULT_WEIGHTS
    engram = memory.engram
    vectors = engram.embedder is not None and engram.index is not None
    if mode == "keyword" or (mode == "hybrid" and not vectors):
        return Pipeline.KEYWORD_ONLY.value
    if mode == "semantic":
        return Pipeline.SEMANTIC.value
    reranked = (w.speaker > 0 or w.when > 0) and w.rerank_depth > 0
    return (Pipeline.RERANKED if reranked else Pipeline.HYBRID).value


@dataclass(frozen=True)
class SearchWeights:
    keyword: float = 1.0
    semantic: float = 0.5
    sharpen: float = 2.0  # normalised keyword/semantic scores are raised to this power
    context: float = 0.5  # share of a neighbour's relevance a memory inherits
    context_decay: float = 0.7  # per step further away
    context_window: int = 2  # neighbours on each side, same source_ref
    context_sources: int = 50  # most relevant candidates that pass relevance on
    recency: float = 0.03
    importance: float = 0.03
    access: float = 0.01
    temporal: float = 2.0  # boost for memories dated at a date the query names
    temporal_after_days: float = 14.0  # told up to this long after the named date
    temporal_before_days: float = 3.0
    question: float = 0.6  # share of its own relevance kept by a memory that ends in a "?"
    half_life_days: float = 60.0
    candidates: int = 200  # per signal, before fusion
    speaker: float = 0.4  # second stage: share of the best score for a speaker the query names
    when: float = 0.3  # second stage: the same for a memory that tells a time, to a "when"
    rerank_depth: int = 40  # candidates the second stage re-orders
    speaker_words: bool = False  # keep a named speaker in the keyword query (``speakers.py``)


DEFAULT_WEIGHTS = SearchWeights()


def keyword_candidates(
    db: Database,
    agent_id: int,
    query: str,
    filters: FactFilters,
    n: int,
    mode: str = "any",
    stopwords: bool = True,
) -> list[tuple[int, float]]:
    """(fact id, keyword relevance ≥ 0) best first, from the store's own full-text index:
    FTS5 BM25 on SQLite, ``ts_rank_cd`` on PostgreSQL. The fusion below is the same for both."""
    backend = keyword_backend(db)
    hits = backend.keyword_candidates(db, agent_id, query, filters, n, mode, stopwords)
    return merge_substring_hits(db, agent_id, query, filters, n, hits)


def semantic_scale(sims: dict[int, float]) -> dict[int, float]:
    """Cosine → [0, 1] over the candidate pool: the best candidate 1, the pool's floor 0.
    Raw MiniLM cosines crowd into a narrow band, so unscaled they barely move a ranking."""
    if not sims:
        return {}
    hi, lo = max(sims.values()), min(sims.values())
    span = max(hi - lo, 0.05)
    return {i: min(1.0, max(0.0, (s - lo) / span)) for i, s in sims.items()}


class Searcher:
    def __init__(self, memory: MemoryHandle, weights: SearchWeights = DEFAULT_WEIGHTS) -> None:
        self.m = memory
        self.weights = weights

    def search(
        self,
        query: str,
        k: int = 10,
        filters: FactFilters | None = None,
        mode: str = "hybrid",
        touch: bool = True,
        weights: SearchWeights | None = None,
        now: datetime | None = None,
    ) -> list[SearchHit]:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        query = trim_query(query)  # a pasted book costs what a sentence costs
        w = weights or self.weights
        filters = filters or FactFilters()
        if not filters.status:
            filters = _with_status(filters, ["active"])
        n = max(w.candidates, k)
        pipeline = pipeline_for(self.m, mode, w)
        kw_query = query
        if pipeline == Pipeline.RERANKED and w.speaker > 0 and not w.speaker_words:
            # the second stage rewards a named speaker; in the words they only add noise
            kw_query = without_names(query, speakers_named(self.m.db, self.m.agent_id, query))
        kw = self._keyword(kw_query, filters, n) if mode in ("hybrid", "keyword") else {}
        sem = self._semantic(query, filters, n) if mode in ("hybrid", "semantic") else {}
        if not kw and not sem:
            return []
        scored = self._score(query, mode, w, filters, kw, sem, now or utcnow())
        if pipeline == Pipeline.RERANKED:
            scored = rerank(self.m, query, scored, w.speaker, w.when, w.rerank_depth)
        hits = self._hits(scored[:k], kw, sem, pipeline)
        if touch and hits:
            self.m.facts.touch([h.fact.id for h in hits])
        return hits

    def _keyword(self, query: str, filters: FactFilters, n: int) -> dict[int, float]:
        """fact id → keyword relevance, in rank order (dicts keep insertion order)."""
        return dict(keyword_candidates(self.m.db, self.m.agent_id, query, filters, n))

    def _semantic(self, query: str, filters: FactFilters, n: int) -> dict[int, float]:
        engram = self.m.engram
        if engram.embedder is None or engram.index is None or not query.strip():
            return {}
        qv = engram.embedder.embed_one(query)
        # Chroma holds every status; over-fetch when filtering, keep what the filters allow.
        fetch = n + n // 2 if _only_active(filters) else n * 3
        got = engram.index.query(self.m.agent_id, qv, k=fetch)
        allowed = self._allowed([fid for fid, _ in got], filters)
        return dict([(fid, s) for fid, s in got if fid in allowed][:n])

    def _score(
        self,
        query: str,
        mode: str,
        w: SearchWeights,
        filters: FactFilters,
        kw: dict[int, float],
        sem: dict[int, float],
        now: datetime,
    ) -> list[tuple[float, int, dict[str, float]]]:
        """(score, fact id, signals) best first: the one fusion both backends feed."""
        kw_w, sem_w = {"keyword": (1.0, 0.0), "semantic": (0.0, 1.0)}.get(
            mode, (w.keyword, w.semantic)
        )
        kmax = max(kw.values()) if kw else 0.0
        p = w.sharpen
        kw_n = {i: (s / kmax) ** p for i, s in kw.items()} if kmax > 0 else {}
        sem_n = {i: s**p for i, s in semantic_scale(sem).items()}
        rel = {
            fid: kw_w * kw_n.get(fid, 0.0) + sem_w * sem_n.get(fid, 0.0)
            for fid in set(kw) | set(sem)
        }
        ctx: dict[int, float] = {}
        if mode == "hybrid" and w.context > 0 and w.context_window > 0:
            ctx = self._context(rel, filters, w)
        # score on a few light columns; build full rows only for the hits returned
        light = self._light_rows(set(rel) | set(ctx))
        amax = max((r[4] for r in light.values()), default=0)
        dates = query_dates(query) if w.temporal > 0 else []
        scored: list[tuple[float, int, dict[str, float]]] = []
        for fid, (created, event_date, importance, pinned, access, asks) in light.items():
            when = _as_datetime(event_date) or _as_datetime(created) or now
            age = max(0.0, (now - when).total_seconds() / 86400.0)
            own = w.question if asks and mode == "hybrid" else 1.0
            signals = {
                "keyword": own * kw_w * kw_n.get(fid, 0.0),
                "semantic": own * sem_w * sem_n.get(fid, 0.0),
                "context": own * ctx.get(fid, 0.0),
            }
            near = date_match(when, dates, w.temporal_after_days, w.temporal_before_days)
            signals["temporal"] = w.temporal * near * sum(signals.values())
            signals |= {
                "recency": w.recency * math.exp(-math.log(2) * age / w.half_life_days),
                "importance": w.importance * (1.0 if pinned else importance),
                "access": w.access * (math.log1p(access) / math.log1p(amax) if amax else 0.0),
            }
            scored.append((sum(signals.values()), fid, signals))
        scored.sort(key=lambda t: (-t[0], -t[1]))
        return scored

    def _hits(
        self,
        scored: list[tuple[float, int, dict[str, float]]],
        kw: dict[int, float],
        sem: dict[int, float],
        pipeline: str,
    ) -> list[SearchHit]:
        kw_rank = {fid: r + 1 for r, fid in enumerate(kw)}
        sem_rank = {fid: r + 1 for r, fid in enumerate(sem)}
        rows = {f.id: f for f in fact_rows.rows(self.m.agent_id, [fid for _, fid, _ in scored])}
        hits = []
        for score, fid, signals in scored:
            if fid not in rows:  # deleted between the two reads
                continue
            raw = {
                "bm25": round(kw.get(fid, 0.0), 6),
                "cosine": round(sem.get(fid, 0.0), 6),
                "keyword_rank": kw_rank.get(fid),
                "semantic_rank": sem_rank.get(fid),
            }
            hits.append(SearchHit(fact_view(rows[fid]), score, signals, raw, pipeline))
        return hits

    def _light_rows(self, ids: set[int]) -> dict[int, tuple]:
        if not ids:
            return {}
        db = self.m.db
        clause, param = ids_in(db, ids)
        # asks: the memory ends in a question mark (cheaper in SQL than reading every text)
        asks = (
            "right(rtrim(f.content, ' ' || chr(9) || chr(10) || chr(13)), 1) = chr(63)"
            if is_postgres(db)
            else "substr(rtrim(f.content, ' ' || char(9, 10, 13)), -1) = char(63)"
        )
        sql = (
            "SELECT f.id, f.created_at, f.event_date, f.importance, f.pinned, f.access_count, "
            f"{asks} FROM {facts_by_id(db)} WHERE f.agent_id = ? AND f.id {clause}"
        )
        cur = run(db, sql, (self.m.agent_id, param))
        return {
            int(r[0]): (r[1], r[2], float(r[3]), bool(r[4]), int(r[5] or 0), bool(r[6]))
            for r in cur
        }

    def _context(
        self, rel: dict[int, float], filters: FactFilters, w: SearchWeights
    ) -> dict[int, float]:
        """Each memory's inherited share of its neighbours' relevance.

        Neighbours are the memories of the same ``source_ref`` next to it in insertion (id)
        order. Only the ``context_sources`` most relevant candidates pass relevance on (a
        neighbour of a weak candidate cannot reach the top anyway), and the ids around them
        are read in one indexed query, so the cost does not grow with the store. Only
        memories the filters allow take part, on both ends.
        """
        if not rel:
            return {}
        win = w.context_window
        slack = win + 3  # ids of other sources may sit between two turns of one source
        top = sorted(rel, key=lambda i: -rel[i])[: w.context_sources]
        around: set[int] = set()
        for fid in top:
            around.update(range(max(1, fid - slack), fid + slack + 1))
        clause, param = ids_in(self.m.db, around)
        sql = (
            f"SELECT f.id, f.source_ref FROM {facts_by_id(self.m.db)} WHERE f.agent_id = ? "
            f"AND f.id {clause} AND f.source_ref IS NOT NULL"
        )
        sql, params = sql_filters(sql, [self.m.agent_id, param], filters)
        src = {int(i): ref for i, ref in run(self.m.db, sql, params).fetchall()}
        by_src: dict[str, list[int]] = {}
        for fid in sorted(src):
            by_src.setdefault(src[fid], []).append(fid)
        topset = set(top)
        out: dict[int, float] = {}
        for seq in by_src.values():
            for j, fid in enumerate(seq):
                total = 0.0
                for d in range(1, win + 1):
                    best = 0.0
                    for nb in (j - d, j + d):
                        # every id within `slack` of a source was read, so a position counted
                        # towards a source that close is exact
                        if 0 <= nb < len(seq) and seq[nb] in topset and abs(seq[nb] - fid) <= slack:
                            best = max(best, rel[seq[nb]])
                    total += w.context * (w.context_decay ** (d - 1)) * best
                if total > 0:
                    out[fid] = total
        return out

    def _allowed(self, ids: list[int], filters: FactFilters) -> set[int]:
        if not ids:
            return set()
        clause, param = ids_in(self.m.db, ids)
        sql = f"SELECT f.id FROM {facts_by_id(self.m.db)} WHERE f.agent_id = ? AND f.id {clause}"
        sql, params = sql_filters(sql, [self.m.agent_id, param], filters)
        return {int(r[0]) for r in run(self.m.db, sql, params).fetchall()}


def date_match(
    when: datetime,
    dates: Sequence[tuple[int | None, int, int | None]],
    after_days: float,
    before_days: float,
) -> float:
    """How well a memory dated ``when`` fits the dates a query names (``query_dates``): 1 on
    the named day or in the named month, falling linearly to 0 ``after_days`` later (a memory
    often tells of an event some days after it) or ``before_days`` earlier; a month named
    without a year fits that month of any year."""
    d = when.date()
    best = 0.0
    for y, mo, day in dates:
        for year in (y,) if y else (d.year - 1, d.year, d.year + 1):
            try:
                if day:
                    lo = hi = date(year, mo, day)
                else:
                    lo = date(year, mo, 1)
                    hi = date(year + (mo == 12), mo % 12 + 1, 1) - timedelta(days=1)
            except ValueError:
                continue
            if d < lo:
                fit = 1.0 - (lo - d).days / before_days if before_days > 0 else 0.0
            elif d > hi:
                fit = 1.0 - (d - hi).days / after_days if after_days > 0 else 0.0
            else:
                fit = 1.0
            best = max(best, fit)
    return best


def _as_datetime(v: object) -> datetime | None:
    """SQLite hands dates back as text; recency needs a datetime (None when absent)."""
    if v is None or v == "":
        return None
    if isinstance(v, datetime):
        return v
    if isinstance(v, date):
        return datetime(v.year, v.month, v.day)
    try:
        return datetime.fromisoformat(str(v))
    except ValueError:
        return None


def _only_active(f: FactFilters) -> bool:
    return list(f.status or []) == ["active"] and not any(
        [f.category, f.memory_type, f.pinned is not None, f.since, f.until, f.text, f.tags]
    )


def _with_status(f: FactFilters, status: list[str]) -> FactFilters:
    g = copy.copy(f)  # the caller's filters stay as they were
    g.status = list(status)
    return g

"""Hybrid search: FTS5 BM25 and vector top-k, fused by weighted normalised scores, spread to
neighbouring memories of the same source, then rescored with recency, importance and access.
Every hit carries each signal's contribution.

What the LoCoMo benchmark (``python -m bench locomo``) taught, and why the code is shaped so:

* Plain reciprocal-rank fusion throws away how *much* better the first keyword hit is than
  the tenth; on LoCoMo it ranked below BM25 alone. Scores are normalised per query (best
  keyword hit = 1; cosine min-max scaled over the semantic candidate pool) and mixed with
  weights; keyword leads because names, places and rare words decide most questions.
* Function words ("what", "did", "the") only add noise to an OR query: they match nearly every
  memory. They are dropped unless the query has nothing else.
* Memories imported from one source (a chat session, a transcript, a notes file) are a
  sequence: the turn that answers a question often does not repeat its words, the turn
  before it does. A memory gets a ``context`` share of the best relevance of its neighbours
  (up to ``context_window`` places away in the same ``source_ref``, decaying by
  ``context_decay`` per step). On LoCoMo this lifted Recall@5 from ~0.56 to ~0.62.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime

from models import Fact
from models.entities import utcnow
from services.facts import FactFilters, fact_view
from services.text import WORD
from services.views import SearchHit

MODES = ("hybrid", "keyword", "semantic")


@dataclass(frozen=True)
class SearchWeights:
    keyword: float = 1.0
    semantic: float = 0.5
    context: float = 0.5  # share of a neighbour's relevance a memory inherits
    context_decay: float = 0.7  # per step further away
    context_window: int = 2  # neighbours on each side, same source_ref
    recency: float = 0.03
    importance: float = 0.03
    access: float = 0.01
    half_life_days: float = 60.0
    candidates: int = 200  # per signal, before fusion


DEFAULT_WEIGHTS = SearchWeights()

# English function words and question words. Dropped from OR queries: each one matches most
# memories and drowns the few content words that decide the answer.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing done down during each else ever few for
from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me might more most must my myself no nor not now of off on once only or
other our ours ourselves out over own same shall she should so some such than that the their
theirs them themselves then there these they this those through to too under until up upon us
very was we were what when where which while who whom whose why will with would you your yours
yourself yourselves also may yet
""".split())


def keyword_query(text: str, stopwords: bool = True, mode: str = "any") -> str:
    """A safe FTS5 MATCH expression: quoted phrases stay phrases, every other word becomes a
    quoted token (so user text can never inject FTS5 syntax), function words are dropped
    unless nothing else is left, repeats are merged."""
    phrases: list[str] = []
    words: list[str] = []
    for m in re.finditer(r'"([^"]+)"|(\S+)', text):
        if m.group(1):
            toks = WORD.findall(m.group(1))
            if toks:
                phrases.append('"' + " ".join(toks) + '"')
        else:
            words.extend(WORD.findall(m.group(2)))
    if stopwords:
        content = [w for w in words if w.casefold() not in STOPWORDS]
        if content or phrases:
            words = content
    seen: set[str] = set()
    parts = list(phrases)
    for w in words:
        if w.casefold() not in seen:
            seen.add(w.casefold())
            parts.append(f'"{w}"')
    return (" OR " if mode == "any" else " AND ").join(parts)


def keyword_candidates(db, agent_id: int, query: str, filters: FactFilters, n: int,
                       mode: str = "any", stopwords: bool = True) -> list[tuple[int, float]]:
    """(fact id, BM25 relevance ≥ 0) best first. Content weighs more than subject/tags."""
    match = keyword_query(query, stopwords=stopwords, mode=mode)
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


def semantic_scale(sims: dict[int, float]) -> dict[int, float]:
    """Cosine → [0, 1] over the candidate pool: the best candidate 1, the pool's floor 0.
    Raw MiniLM cosines crowd into a narrow band, so unscaled they barely move a ranking."""
    if not sims:
        return {}
    hi, lo = max(sims.values()), min(sims.values())
    span = max(hi - lo, 0.05)
    return {i: min(1.0, max(0.0, (s - lo) / span)) for i, s in sims.items()}


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
            # Chroma holds every status; over-fetch when filtering, keep what the filters allow.
            fetch = n + n // 2 if _only_active(filters) else n * 3
            got = engram.index.query(self.m.agent_id, qv, k=fetch)
            allowed = self._allowed([fid for fid, _ in got], filters)
            got = [(fid, s) for fid, s in got if fid in allowed][:n]
            for r, (fid, s) in enumerate(got):
                sem[fid], sem_rank[fid] = s, r + 1
        if not kw and not sem:
            return []
        kw_w, sem_w = w.keyword, w.semantic
        if mode == "keyword":
            kw_w, sem_w = 1.0, 0.0
        elif mode == "semantic":
            kw_w, sem_w = 0.0, 1.0
        kmax = max(kw.values()) if kw else 0.0
        sem_n = semantic_scale(sem)
        rel: dict[int, float] = {}
        for fid in set(kw) | set(sem):
            rel[fid] = (kw_w * kw.get(fid, 0.0) / kmax if kmax > 0 else 0.0) \
                + sem_w * sem_n.get(fid, 0.0)
        ctx: dict[int, float] = {}
        if mode == "hybrid" and w.context > 0 and w.context_window > 0:
            ctx = self._context(rel, filters, w)
        ids = set(rel) | set(ctx)
        rows = {}
        idl = list(ids)
        for s in range(0, len(idl), 500):
            for f in Fact.select().where((Fact.agent == self.m.agent_id)
                                         & Fact.id.in_(idl[s:s + 500])):
                rows[f.id] = f
        now = now or utcnow()
        amax = max((rows[i].access_count for i in rows), default=0)
        hits = []
        for fid, row in rows.items():
            when = row.created_at
            if row.event_date:
                when = datetime(row.event_date.year, row.event_date.month, row.event_date.day)
            age = max(0.0, (now - when).total_seconds() / 86400.0)
            rec = math.exp(-math.log(2) * age / w.half_life_days)
            acc = math.log1p(row.access_count) / math.log1p(amax) if amax else 0.0
            signals = {
                "keyword": kw_w * kw.get(fid, 0.0) / kmax if kmax > 0 else 0.0,
                "semantic": sem_w * sem_n.get(fid, 0.0),
                "context": ctx.get(fid, 0.0),
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

    def _context(self, rel: dict[int, float], filters: FactFilters,
                 w: SearchWeights) -> dict[int, float]:
        """Each memory's inherited share of its neighbours' relevance.

        Neighbours are the memories of the same ``source_ref`` next to it in insertion (id)
        order, looked up by primary-key ranges around the candidates, so the cost is a few
        hundred indexed reads whatever the store's size. Only memories the filters allow take
        part, on both ends.
        """
        if not rel:
            return {}
        win = w.context_window
        slack = win + 3  # ids of other sources may sit between two turns of one source
        around: set[int] = set()
        for fid in rel:
            around.update(range(fid - slack, fid + slack + 1))
        src: dict[int, str] = {}
        ids = [i for i in around if i > 0]
        for s in range(0, len(ids), 900):
            q = filters.apply(Fact.select(Fact.id, Fact.source_ref).where(
                (Fact.agent == self.m.agent_id) & Fact.id.in_(ids[s:s + 900])
                & Fact.source_ref.is_null(False)))
            for fid, ref in q.tuples():
                src[fid] = ref
        by_src: dict[str, list[int]] = {}
        for fid in sorted(src):
            by_src.setdefault(src[fid], []).append(fid)
        out: dict[int, float] = {}
        for seq in by_src.values():
            for j, fid in enumerate(seq):
                # every id within `slack` of a candidate was fetched, so positions counted
                # towards a candidate that close are exact
                total = 0.0
                for d in range(1, win + 1):
                    best = 0.0
                    for nb in (j - d, j + d):
                        if 0 <= nb < len(seq) and abs(seq[nb] - fid) <= slack:
                            best = max(best, rel.get(seq[nb], 0.0))
                    total += w.context * (w.context_decay ** (d - 1)) * best
                if total > 0:
                    out[fid] = total
        return out

    def _allowed(self, ids: list[int], filters: FactFilters) -> set[int]:
        if not ids:
            return set()
        out: set[int] = set()
        for s in range(0, len(ids), 900):
            q = filters.apply(Fact.select(Fact.id).where(
                (Fact.agent == self.m.agent_id) & Fact.id.in_(ids[s:s + 900])))
            out.update(r[0] for r in q.tuples())
        return out


def _only_active(f: FactFilters) -> bool:
    return list(f.status or []) == ["active"] and not any(
        [f.category, f.memory_type, f.pinned is not None, f.since, f.until, f.text])


def _with_status(f: FactFilters, status: list[str]) -> FactFilters:
    g = FactFilters(status=status, category=f.category, memory_type=f.memory_type,
                    pinned=f.pinned, since=f.since, until=f.until, text=f.text)
    return g

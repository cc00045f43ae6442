"""Hybrid search: FTS5 BM25 and vector top-k, fused by weighted normalised scores, spread to
neighbouring memories of the same source, then rescored with recency, importance and access.
Every hit carries each signal's contribution.

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
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from models import Fact
from models.entities import utcnow
from services.records import SearchHit
from services.store.facts import FactFilters, fact_view
from services.store.text import query_dates, query_terms

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.engram import AgentMemory


class SearchMode(StrEnum):
    HYBRID = "hybrid"
    KEYWORD = "keyword"
    SEMANTIC = "semantic"


MODES = tuple(m.value for m in SearchMode)


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


DEFAULT_WEIGHTS = SearchWeights()

# English function words and question words. Dropped from OR queries: each one matches most
# memories and drowns the few content words that decide the answer.
STOPWORDS = frozenset(
    """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing done down during each else ever few for
from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me might more most must my myself no nor not now of off on once only or
other our ours ourselves out over own same shall she should so some such than that the their
theirs them themselves then there these they this those through to too under until up upon us
very was we were what when where which while who whom whose why will with would you your yours
yourself yourselves also may yet
""".split()
)


def keyword_query(text: str, stopwords: bool = True, mode: str = "any") -> str:
    """A safe FTS5 MATCH expression: quoted phrases stay phrases, every other word becomes a
    quoted token (so user text can never inject FTS5 syntax), function words are dropped
    unless nothing else is left, repeats are merged."""
    phrases, words = query_terms(text)
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


def keyword_candidates(
    db,
    agent_id: int,
    query: str,
    filters: FactFilters,
    n: int,
    mode: str = "any",
    stopwords: bool = True,
) -> list[tuple[int, float]]:
    """(fact id, BM25 relevance ≥ 0) best first. Content weighs more than subject/tags."""
    match = keyword_query(query, stopwords=stopwords, mode=mode)
    if not match:
        return []
    hits = _top_in_fts(db, agent_id, match, filters, n)
    if hits is None:
        sql = (
            "SELECT f.id, -bm25(fact_fts, 1.0, 0.4, 0.4) AS s FROM fact_fts "
            "JOIN fact f ON f.id = fact_fts.rowid WHERE fact_fts MATCH ? AND f.agent_id = ?"
        )
        params: list = [match, agent_id]
        sql, params = _sql_filters(sql, params, filters)
        sql += " ORDER BY bm25(fact_fts, 1.0, 0.4, 0.4) LIMIT ?"
        params.append(n)
        hits = [(int(i), float(s)) for i, s in db.execute_sql(sql, params).fetchall()]
    runs = CJK_RUN.findall(query)
    if runs:
        hits = _merge_substring_hits(db, agent_id, runs, filters, n, hits)
    return hits


# Side by side on the bench's stores (p50, join-then-rank vs this): 10k facts 1.4 vs 2.3 ms,
# 100k 12.4 vs 8.5 ms, 1M 180 vs 70 ms. Small stores keep the plain join.
FTS_FIRST_FROM = 30_000


def _top_in_fts(
    db, agent_id: int, match: str, filters: FactFilters, n: int
) -> list[tuple[int, float]] | None:
    """The best ``n`` matches ranked inside FTS5 alone, then checked against the agent and the
    filters; None when too few of them pass (another agent's facts fill the top), and the
    caller ranks the joined rows instead. Joining every match to its row before ranking is
    what made a common word cost 200+ ms at a million facts; BM25 scores are the same either
    way (its statistics are the whole table's)."""
    if (db.execute_sql("SELECT max(rowid) FROM fact").fetchone()[0] or 0) < FTS_FIRST_FROM:
        return None
    limit = max(4 * n, 200)
    ranked = db.execute_sql(
        "SELECT rowid, -bm25(fact_fts, 1.0, 0.4, 0.4) FROM fact_fts WHERE fact_fts MATCH ? "
        "ORDER BY bm25(fact_fts, 1.0, 0.4, 0.4) LIMIT ?",
        (match, limit),
    ).fetchall()
    if not ranked:
        return []
    # NOT INDEXED: look the window up by rowid; left to itself SQLite walks the agent's whole
    # (agent, status) index instead (110 ms at a million facts, against 3)
    sql = "SELECT f.id FROM fact f NOT INDEXED WHERE f.id IN (%s) AND f.agent_id = ?" % ",".join(
        "?" * len(ranked)
    )
    sql, params = _sql_filters(sql, [r[0] for r in ranked] + [agent_id], filters)
    ok = {r[0] for r in db.execute_sql(sql, params).fetchall()}
    hits = [(int(i), float(s)) for i, s in ranked if i in ok][:n]
    if len(hits) < n and len(ranked) == limit:
        return None  # the agent's own best may lie below this window
    return hits


# unicode61 does not segment Chinese/Japanese/Korean: "回归测试" inside "今天做了回归测试" is
# not a token of its own, so FTS5 cannot find it. CJK runs in a query are also looked up as
# substrings (a bounded LIKE scan of one agent's facts), scored below a full BM25 hit.
CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}")


def _merge_substring_hits(db, agent_id, runs, filters, n, hits):
    best = max((s for _, s in hits), default=1.0)
    found: dict[int, int] = {}
    for run in runs:
        sql = "SELECT f.id FROM fact f WHERE f.agent_id = ? AND f.content LIKE ?"
        params: list = [agent_id, f"%{run}%"]
        sql, params = _sql_filters(sql, params, filters)
        sql += " ORDER BY f.id DESC LIMIT ?"
        params.append(n)
        for (fid,) in db.execute_sql(sql, params).fetchall():
            found[fid] = found.get(fid, 0) + 1
    scores = dict(hits)
    for fid, k in found.items():
        scores[fid] = max(scores.get(fid, 0.0), 0.9 * best * k / len(runs))
    return sorted(scores.items(), key=lambda t: -t[1])[:n]


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
    if f.text:
        sql += " AND f.content LIKE ? ESCAPE '\\'"
        esc = f.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params.append(f"%{esc}%")
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
    def __init__(self, memory: AgentMemory, weights: SearchWeights = DEFAULT_WEIGHTS):
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
        w = weights or self.weights
        filters = filters or FactFilters()
        if not filters.status:
            filters = _with_status(filters, ["active"])
        n = max(w.candidates, k)
        kw: dict[int, float] = {}
        kw_rank: dict[int, int] = {}
        if mode in ("hybrid", "keyword"):
            for r, (fid, s) in enumerate(
                keyword_candidates(self.m.db, self.m.agent_id, query, filters, n)
            ):
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
        p = w.sharpen
        kw_n = {i: (s / kmax) ** p for i, s in kw.items()} if kmax > 0 else {}
        sem_n = {i: s**p for i, s in semantic_scale(sem).items()}
        rel: dict[int, float] = {}
        for fid in set(kw) | set(sem):
            rel[fid] = kw_w * kw_n.get(fid, 0.0) + sem_w * sem_n.get(fid, 0.0)
        ctx: dict[int, float] = {}
        if mode == "hybrid" and w.context > 0 and w.context_window > 0:
            ctx = self._context(rel, filters, w)
        # score on a few light columns; build full rows only for the hits returned
        now = now or utcnow()
        light = self._light_rows(set(rel) | set(ctx))
        amax = max((r[4] for r in light.values()), default=0)
        dates = query_dates(query) if w.temporal > 0 else []
        scored = []
        for fid, (created, event_date, importance, pinned, access, asks) in light.items():
            when = _as_datetime(event_date) or _as_datetime(created) or now
            age = max(0.0, (now - when).total_seconds() / 86400.0)
            rec = math.exp(-math.log(2) * age / w.half_life_days)
            acc = math.log1p(access) / math.log1p(amax) if amax else 0.0
            own = w.question if asks and mode == "hybrid" else 1.0
            signals = {
                "keyword": own * kw_w * kw_n.get(fid, 0.0),
                "semantic": own * sem_w * sem_n.get(fid, 0.0),
                "context": own * ctx.get(fid, 0.0),
            }
            near = (
                date_match(when, dates, w.temporal_after_days, w.temporal_before_days)
                if dates
                else 0.0
            )
            signals["temporal"] = w.temporal * near * sum(signals.values())
            signals |= {
                "recency": w.recency * rec,
                "importance": w.importance * (1.0 if pinned else importance),
                "access": w.access * acc,
            }
            scored.append((sum(signals.values()), fid, signals))
        scored.sort(key=lambda t: (-t[0], -t[1]))
        scored = scored[:k]
        rows = {
            f.id: f
            for f in Fact.select().where(
                (Fact.agent == self.m.agent_id) & Fact.id.in_([fid for _, fid, _ in scored])
            )
        }
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
            hits.append(SearchHit(fact_view(rows[fid]), score, signals, raw))
        if touch and hits:
            self.m.facts.touch([h.fact.id for h in hits])
        return hits

    def _light_rows(self, ids: set[int]) -> dict[int, tuple]:
        if not ids:
            return {}
        # asks: the memory ends in a question mark (cheaper in SQL than reading every text)
        sql = (
            "SELECT f.id, f.created_at, f.event_date, f.importance, f.pinned, f.access_count, "
            "rtrim(f.content, ' ' || char(9, 10, 13)) LIKE '%?' "
            "FROM fact f WHERE f.agent_id = ? AND f.id IN (SELECT value FROM json_each(?))"
        )
        cur = self.m.db.execute_sql(sql, (self.m.agent_id, json.dumps(sorted(ids))))
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
        sql = (
            "SELECT f.id, f.source_ref FROM fact f WHERE f.agent_id = ? "
            "AND f.id IN (SELECT value FROM json_each(?)) AND f.source_ref IS NOT NULL"
        )
        sql, params = _sql_filters(sql, [self.m.agent_id, json.dumps(sorted(around))], filters)
        src = {int(i): ref for i, ref in self.m.db.execute_sql(sql, params).fetchall()}
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
        sql = "SELECT f.id FROM fact f WHERE f.agent_id = ? AND f.id IN (SELECT value FROM json_each(?))"
        sql, params = _sql_filters(sql, [self.m.agent_id, json.dumps(ids)], filters)
        return {int(r[0]) for r in self.m.db.execute_sql(sql, params).fetchall()}


def date_match(when: datetime, dates, after_days: float, before_days: float) -> float:
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


def _as_datetime(v) -> datetime | None:
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
        [f.category, f.memory_type, f.pinned is not None, f.since, f.until, f.text]
    )


def _with_status(f: FactFilters, status: list[str]) -> FactFilters:
    g = FactFilters(
        status=status,
        category=f.category,
        memory_type=f.memory_type,
        pinned=f.pinned,
        since=f.since,
        until=f.until,
        text=f.text,
    )
    return g

"""LoCoMo retrieval quality: Engram's production search against the baselines a user would
otherwise reach for, on the same store, the same vectors and the same queries.

One memory per turn (``speaker: text`` plus ``[image: caption]``), session date as the
memory's event date, one agent per conversation, ingested through ``AgentMemory.remember_many``.
Queries: categories 1–4 whose evidence resolves to turns; gold = those turns' facts.

Side by side in one run (issue #34): BM25 alone, the present hybrid (first stage only) and
the production pipeline (hybrid + the second stage, ``services.search.rerank``), each with
its per-query latency; the second stage is also timed alone on the real candidates. Then how
often the answer-bearing facts are inside the 1,500-token context block hooks inject
(``services.search.context.build_context``), measured after the rankings since building a
block counts as use (access) and would touch later rankings.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from bench.metrics import METRICS, average, normalize_dia_id, score_query

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
SYSTEMS = ("engram", "before", "hybrid", "bm25", "dense", "rrf")
SYSTEM_LABELS = {
    "engram": "Engram hybrid+rerank (production)",
    "before": "hybrid+rerank, names kept (before)",
    "hybrid": "present hybrid (first stage only)",
    "bm25": "FTS5 BM25 alone",
    "dense": "MiniLM dense alone (exact)",
    "rrf": "plain RRF k=60 (BM25+dense)",
    "abl_keyword": "  ablation: Engram keyword mode",
    "abl_no_context": "  ablation: no context signal",
    "abl_no_sharpen": "  ablation: no sharpening",
    "abl_no_temporal": "  ablation: no temporal signal",
    "abl_no_question": "  ablation: no question discount",
}
# What each step adds: the production search with one part switched off (full runs only).
ABLATIONS = (
    "abl_keyword",
    "abl_no_context",
    "abl_no_sharpen",
    "abl_no_temporal",
    "abl_no_question",
)
DEFAULT_DATA = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "bench"
    / "locomo"
    / "locomo_dev.json"
)
RRF_K = 60
CONTEXT_BUDGET = 1500  # tokens: the UserPromptSubmit hook's block
# The split, written down before any tuning of the reranking stage (issue #34): weights are
# tuned on DEV only; TEST is reported apart and never looked at while tuning. The file's
# conversations in order are conv-26, -30, -41, -42, -43, -44: the first three are DEV.
DEV = ("conv-26", "conv-30", "conv-41")
TEST = ("conv-42", "conv-43", "conv-44")
POOL = 100  # baseline candidate lists fused by RRF


@dataclass
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    when: datetime | None

    def content(self, caption: str | None) -> str:
        s = f"{self.speaker}: {self.text}".strip()
        if caption:
            s += f" [image: {caption.strip()}]"
        return s


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    sample_id: str
    turns: list[tuple[Turn, str | None]]
    questions: list[Question]
    dropped: dict = field(default_factory=dict)


_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)


def parse_session_date(s: str | None) -> datetime | None:
    """``'1:56 pm on 8 May, 2023'`` → datetime; None when the format is not recognised."""
    m = _DATE.search(s or "")
    if not m:
        return None
    hh, mm, ap, day, month, year = m.groups()
    h = int(hh) % 12 + (12 if ap.lower() == "pm" else 0)
    for fmt in ("%d %B %Y", "%d %b %Y"):
        try:
            d = datetime.strptime(f"{day} {month} {year}", fmt)
            return d.replace(hour=h, minute=int(mm))
        except ValueError:
            continue
    return None


def load(path: Path) -> list[Conversation]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    convs = []
    for c in data:
        conv = c["conversation"]
        sessions = sorted(
            (int(k.split("_")[1]), v)
            for k, v in conv.items()
            if re.fullmatch(r"session_\d+", k) and isinstance(v, list)
        )
        turns: list[tuple[Turn, str | None]] = []
        for n, lst in sessions:
            when = parse_session_date(conv.get(f"session_{n}_date_time"))
            for t in lst:
                dia = normalize_dia_id(t.get("dia_id", ""))
                if dia is None:
                    continue
                turns.append(
                    (
                        Turn(dia, n, t.get("speaker", ""), t.get("text", ""), when),
                        t.get("blip_caption"),
                    )
                )
        known = {t.dia_id for t, _ in turns}
        qs, dropped = [], defaultdict(int)
        for q in c.get("qa", []):
            cat = int(q.get("category", 0))
            if cat not in CATEGORIES:
                continue
            ev = []
            for raw in q.get("evidence") or []:
                # some entries hold several ids in one string ("D8:6; D9:17")
                for part in re.split(r"[;,\s]+", str(raw)):
                    if not part:
                        continue
                    nid = normalize_dia_id(part)
                    if nid is None or nid not in known:
                        dropped["evidence_ids"] += 1
                    elif nid not in ev:
                        ev.append(nid)
            if not ev:
                dropped["questions"] += 1
                continue
            qs.append(Question(q["question"], cat, ev))
        convs.append(Conversation(c["sample_id"], turns, qs, dict(dropped)))
    return convs


def ingest(memory, conv: Conversation, near_duplicate=None) -> dict[str, int]:
    """Store every turn through the product's ingest path; returns dia_id → fact id.

    ``near_duplicate=None``: turns are distinct events in a transcript, so short replies
    that look alike ("Thanks, Mel!") must not be merged into one (a merged turn that is gold
    evidence would vanish). Exact repeats still collapse onto one fact, as in the product.
    ``subject`` is the turn's id so two speakers' "I live in …" never supersede each other:
    a transcript turn is a record of what was said, not a current attribute.
    """
    from services.ingest.pipeline import NewFact

    items = []
    for j, (t, cap) in enumerate(conv.turns):
        created = (t.when + timedelta(seconds=j)) if t.when else None
        items.append(
            NewFact(
                content=t.content(cap),
                category="episode",
                source="import",
                source_ref=f"locomo:{conv.sample_id}:session_{t.session}",
                subject=t.dia_id,
                memory_type="episodic",
                event_date=t.when.date() if t.when else None,
                created_at=created,
                metadata={
                    "dia_id": t.dia_id,
                    "session": t.session,
                    "speaker": t.speaker,
                    "date_time": t.when.isoformat() if t.when else None,
                },
            )
        )
    res = memory.remember_many(items, near_duplicate=near_duplicate, bump=False)
    return {t.dia_id: r.fact_id for (t, _), r in zip(conv.turns, res) if r.fact_id}


# baselines --------------------------------------------------------------------------------
def bm25_ranking(db, agent_id: int, query: str, n: int = POOL) -> list[int]:
    """Plain FTS5: every query word ORed, default bm25() over the table, best first."""
    from services.store.text import fts_query

    match = fts_query(query, "any")
    if not match:
        return []
    rows = db.execute_sql(
        "SELECT f.id FROM fact_fts JOIN fact f ON f.id = fact_fts.rowid "
        "WHERE fact_fts MATCH ? AND f.agent_id = ? ORDER BY bm25(fact_fts) LIMIT ?",
        (match, agent_id, n),
    ).fetchall()
    return [int(r[0]) for r in rows]


class ExactDense:
    """Exact cosine over the vectors stored in the agent's Chroma collection."""

    def __init__(self, index, agent_id: int):
        vecs = index.vectors(agent_id)
        self.ids = np.array(sorted(vecs), dtype=np.int64)
        self.mat = np.stack([vecs[i] for i in self.ids]).astype(np.float32)

    def ranking(self, qv: np.ndarray, n: int = POOL) -> list[int]:
        sims = self.mat @ qv.astype(np.float32)
        top = np.argsort(-sims, kind="stable")[:n]
        return [int(self.ids[i]) for i in top]


def _default_hnsw_collection(index, agent_id: int, dense: ExactDense):
    """The same vectors in a collection made with Chroma's default HNSW settings."""
    name = f"fidelity-default-{agent_id}"
    try:
        index.client.delete_collection(name)
    except Exception:  # absent: nothing to clear
        pass
    col = index.client.create_collection(name, metadata={"hnsw:space": "cosine"})
    for s in range(0, len(dense.ids), 2000):
        col.add(ids=[str(i) for i in dense.ids[s : s + 2000]], embeddings=dense.mat[s : s + 2000])
    return col


def rrf(*rankings: list[int], k: int = RRF_K) -> list[int]:
    score: dict[int, float] = defaultdict(float)
    for r in rankings:
        for i, fid in enumerate(r):
            score[fid] += 1.0 / (k + i + 1)
    return sorted(score, key=lambda f: (-score[f], f))


# run --------------------------------------------------------------------------------------
def run(
    data: Path,
    data_dir: Path,
    conversations: int | None = None,
    held_out: tuple[str, ...] = TEST,
    log=print,
    ablations: bool = False,
) -> dict:
    from dataclasses import replace

    from services.config import StoreConfig
    from services.engram import Engram
    from services.search.context import _clean, build_context
    from services.search.hybrid import DEFAULT_WEIGHTS
    from services.search.rerank import rerank

    first_stage = replace(DEFAULT_WEIGHTS, speaker=0.0, when=0.0)
    # the production pipeline as it was before #34's second round: speaker names stayed in
    # the keyword query
    before = replace(DEFAULT_WEIGHTS, speaker_words=True)
    variants = {
        "abl_no_context": replace(DEFAULT_WEIGHTS, context=0.0),
        "abl_no_sharpen": replace(DEFAULT_WEIGHTS, sharpen=1.0),
        "abl_no_temporal": replace(DEFAULT_WEIGHTS, temporal=0.0),
        "abl_no_question": replace(DEFAULT_WEIGHTS, question=1.0),
    }

    t0 = time.perf_counter()
    convs = load(data)
    if conversations:
        convs = convs[:conversations]
    engram = Engram.open(StoreConfig(data_dir=data_dir))
    if engram.embedder is None:
        raise SystemExit(f"LoCoMo bench needs the embedding model: {engram.semantic_error}")
    per_query: list[dict] = []
    fidelity = {
        k: {"queries": 0, "differ": 0, "differ_as_set": 0, "gold_rank1_lost": 0}
        for k in ("engram", "chroma_default")
    }
    ingest_s = 0.0
    latency: dict[str, list[float]] = {
        "engram": [],
        "before": [],
        "hybrid": [],
        "bm25": [],
        "rerank_stage": [],
    }
    in_block = {"queries": 0, "all_gold": 0, "any_gold": 0, "gold": 0, "gold_inside": 0}
    by_split = {"tuning": dict(in_block), "held_out": dict(in_block)}
    for conv in convs:
        mem = engram.agent(re.sub(r"[^a-z0-9_.-]", "-", conv.sample_id.lower()), create=True)
        ti = time.perf_counter()
        id_of = ingest(mem, conv)
        ingest_s += time.perf_counter() - ti
        dense = ExactDense(engram.index, mem.agent_id)
        qvecs = engram.embedder.embed([q.text for q in conv.questions])
        default_col = _default_hnsw_collection(engram.index, mem.agent_id, dense)
        for q, qv in zip(conv.questions, qvecs):
            gold = {id_of[e] for e in q.evidence if e in id_of}
            d_rank = dense.ranking(qv)
            t = time.perf_counter()
            b_rank = bm25_ranking(engram.db, mem.agent_id, q.text)
            latency["bm25"].append(time.perf_counter() - t)
            t = time.perf_counter()
            hits = mem.search(q.text, k=10, touch=False)
            latency["engram"].append(time.perf_counter() - t)
            t = time.perf_counter()
            prev = mem.search(q.text, k=10, touch=False, weights=before)
            latency["before"].append(time.perf_counter() - t)
            t = time.perf_counter()
            first = mem.search(
                q.text, k=DEFAULT_WEIGHTS.rerank_depth, touch=False, weights=first_stage
            )
            latency["hybrid"].append(time.perf_counter() - t)
            # the second stage alone, on the candidates it re-orders in production
            cands = [(h.score, h.fact.id, h.signals) for h in first]
            t = time.perf_counter()
            w = DEFAULT_WEIGHTS
            rerank(mem, q.text, cands, w.speaker, w.when, w.rerank_depth)
            latency["rerank_stage"].append(time.perf_counter() - t)
            ranks = {
                "engram": [h.fact.id for h in hits],
                "before": [h.fact.id for h in prev],
                "hybrid": [h.fact.id for h in first][:10],
                "bm25": b_rank,
                "dense": d_rank,
                "rrf": rrf(b_rank, d_rank),
            }
            if ablations:
                ranks["abl_keyword"] = [
                    h.fact.id for h in mem.search(q.text, k=10, mode="keyword", touch=False)
                ]
                for name, wts in variants.items():
                    ranks[name] = [
                        h.fact.id for h in mem.search(q.text, k=10, touch=False, weights=wts)
                    ]
            hnsw = [fid for fid, _ in engram.index.query(mem.agent_id, qv, k=10)]
            res = default_col.query(query_embeddings=[qv], n_results=10, include=[])
            default = [int(i) for i in res["ids"][0]]
            for key, got in (("engram", hnsw), ("chroma_default", default)):
                f = fidelity[key]
                f["queries"] += 1
                if got != d_rank[:10]:
                    f["differ"] += 1
                    if set(got) != set(d_rank[:10]):
                        f["differ_as_set"] += 1
                    if d_rank[0] in gold and (not got or got[0] != d_rank[0]):
                        f["gold_rank1_lost"] += 1
            row = {"conv": conv.sample_id, "category": q.category}
            for name, r in ranks.items():
                row[name] = score_query(r, gold)
            per_query.append(row)
        engram.index.client.delete_collection(default_col.name)
        part = dict.fromkeys(in_block, 0)
        _context_blocks(mem, conv, id_of, part, build_context, _clean)
        split = by_split["held_out" if conv.sample_id in held_out else "tuning"]
        for key, n in part.items():
            in_block[key] += n
            split[key] += n
        log(f"  {conv.sample_id}: {len(conv.turns)} turns, {len(conv.questions)} queries")
    engram.close()
    result = summarize(per_query, held_out)
    result["queries"] = len(per_query)
    result["turns"] = sum(len(c.turns) for c in convs)
    result["conversations"] = [c.sample_id for c in convs]
    result["dropped"] = {
        "questions": sum(c.dropped.get("questions", 0) for c in convs),
        "evidence_ids": sum(c.dropped.get("evidence_ids", 0) for c in convs),
    }
    from services.vectors.index import HNSW

    for f in fidelity.values():
        f["fraction"] = f["differ"] / max(1, f["queries"])
    fidelity["engram"]["hnsw"] = dict(HNSW)
    fidelity["chroma_default"]["hnsw"] = (
        "chromadb defaults (collection created without a configuration)"
    )
    result["fidelity"] = fidelity
    result["latency_ms"] = {k: _percentiles(v) for k, v in latency.items()}
    result["context_block"] = in_block | {
        "budget": CONTEXT_BUDGET,
        "gold_inside_fraction": in_block["gold_inside"] / max(1, in_block["gold"]),
        "all_gold_fraction": in_block["all_gold"] / max(1, in_block["queries"]),
        "by_split": {
            name: c | {"gold_inside_fraction": c["gold_inside"] / max(1, c["gold"])}
            for name, c in by_split.items()
        },
    }
    result["ingest_seconds"] = round(ingest_s, 1)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    return result


def _context_blocks(mem, conv, id_of, acc, build_context, clean) -> None:
    """Whether each question's gold facts are lines of the block the hook would inject."""
    content = {id_of[t.dia_id]: t.content(c) for t, c in conv.turns if t.dia_id in id_of}
    for q in conv.questions:
        gold = {id_of[e] for e in q.evidence if e in id_of}
        block = build_context(mem, q.text, budget=CONTEXT_BUDGET)
        # a fact is one line, "- " and its text, under its day's heading
        inside = sum(1 for g in gold if f"\n- {clean(content[g])}\n" in block)
        acc["queries"] += 1
        acc["gold"] += len(gold)
        acc["gold_inside"] += inside
        acc["all_gold"] += inside == len(gold)
        acc["any_gold"] += inside > 0


def _percentiles(seconds: list[float]) -> dict:
    if not seconds:
        return {"n": 0}
    ms = np.array(seconds) * 1000.0
    return {
        "n": len(ms),
        "p50": round(float(np.percentile(ms, 50)), 2),
        "p95": round(float(np.percentile(ms, 95)), 2),
    }


def summarize(per_query: list[dict], held_out: tuple[str, ...] = ()) -> dict:
    out: dict = {"systems": {}}
    names = [n for n in SYSTEMS + ABLATIONS if per_query and n in per_query[0]]
    for name in names:
        s = {"overall": average([r[name] for r in per_query])}
        for cat, label in CATEGORIES.items():
            s[label] = average([r[name] for r in per_query if r["category"] == cat])
        if held_out:
            s["held_out"] = average([r[name] for r in per_query if r["conv"] in held_out])
            s["tuning"] = average([r[name] for r in per_query if r["conv"] not in held_out])
        out["systems"][name] = s
    return out


def table(result: dict) -> str:
    groups = ["overall"] + list(CATEGORIES.values())
    if "held_out" in result["systems"]["engram"]:
        groups += ["tuning", "held_out"]
    lines = []
    head = f"{'system':32s} {'slice':12s} {'n':>4s} " + " ".join(f"{m:>7s}" for m in METRICS)
    lines.append(head)
    lines.append("-" * len(head))
    for g in groups:
        for name in result["systems"]:
            s = result["systems"][name][g]
            lines.append(
                f"{SYSTEM_LABELS[name]:32s} {g:12s} {s['n']:>4d} "
                + " ".join(f"{s[m]:7.3f}" for m in METRICS)
            )
        lines.append("")
    lat = result.get("latency_ms", {})
    if lat:
        lines.append("latency per query, ms (p50 / p95):")
        for key, label in (
            ("bm25", "FTS5 BM25 alone"),
            ("hybrid", "present hybrid"),
            ("before", "hybrid+rerank before"),
            ("engram", "hybrid+rerank"),
            ("rerank_stage", "the second stage alone"),
        ):
            if lat.get(key, {}).get("n"):
                lines.append(f"  {label:28s} {lat[key]['p50']:8.2f} {lat[key]['p95']:8.2f}")
    cb = result.get("context_block")
    if cb:
        lines.append(
            f"context block ({cb['budget']} tokens): {cb['gold_inside']}/{cb['gold']} "
            f"answer-bearing facts inside ({cb['gold_inside_fraction']:.3f}); every gold fact "
            f"inside for {cb['all_gold']}/{cb['queries']} questions, one at least for "
            f"{cb['any_gold']}"
        )
        for name, c in cb.get("by_split", {}).items():
            lines.append(
                f"  {name}: {c['gold_inside']}/{c['gold']} ({c['gold_inside_fraction']:.3f})"
            )
    return "\n".join(lines)

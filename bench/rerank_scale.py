"""What the second ranking stage (``services.search.rerank``) adds to a query at 100k facts.

The stage reads its ``rerank_depth`` candidates by primary key and matches two patterns, no
model call, so its cost should not grow with the store; this measures it on a keyword-only
store of synthetic facts (a fifth of them transcript lines, ``Name: …``), on real first-stage
candidates: for each query, keyword search gives the candidates, then the stage alone is
timed on them, with a query that names a speaker and asks "when" (both parts run); and the
lookup of which query names are speakers in the store (``speakers.speakers_named``, one per
hybrid query since #34's second round), timed alone.

    python -m bench rerank-scale [--facts 100000] [--queries 300]
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

SLUG = "rerank-scale"


def run(data_dir: Path, facts: int = 100_000, queries: int = 300, seed: int = 11) -> dict:
    from bench.synth import Generator
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.bulk import bulk_remember
    from services.ingest.pipeline import NewFact
    from services.search.hybrid import DEFAULT_WEIGHTS
    from services.search.rerank import rerank
    from services.search.speakers import speakers_named

    gen = Generator(seed)

    def items(n):
        for i in range(n):
            s, cat, day = gen.fact(i)
            if i % 5 == 0:
                s = f"{gen.names[i % 300]}: {s}"
            yield NewFact(content=s, category=cat, event_date=day, source="bench")

    e = Engram.open(StoreConfig(data_dir=data_dir, semantic=False))
    m = e.agent(SLUG, create=True)
    t = time.perf_counter()
    stored = bulk_remember(m, items(facts))["added"]
    ingest_s = time.perf_counter() - t
    w = DEFAULT_WEIGHTS
    stage, search, names = [], [], []
    for j in range(queries):
        who = gen.names[(5 * j) % 300]  # every fifth fact is a transcript line: a speaker
        q = f"When did {who} mention {gen.query()}?"
        t = time.perf_counter()
        hits = m.search(q, k=w.rerank_depth, mode="keyword", touch=False)
        search.append(time.perf_counter() - t)
        cands = [(h.score, h.fact.id, h.signals) for h in hits]
        t = time.perf_counter()
        rerank(m, q, cands, w.speaker, w.when, w.rerank_depth)
        stage.append(time.perf_counter() - t)
        t = time.perf_counter()
        found = speakers_named(m.db, m.agent_id, q)
        names.append(time.perf_counter() - t)
        assert who.lower() in found, (q, found)  # the lookup's result checked
    e.close()

    def pct(xs):
        ms = np.array(xs) * 1000.0
        return {
            "p50": round(float(np.percentile(ms, 50)), 2),
            "p95": round(float(np.percentile(ms, 95)), 2),
        }

    return {
        "facts": stored,
        "queries": queries,
        "ingest_s": round(ingest_s, 1),
        "keyword_search_ms": pct(search),
        "rerank_stage_ms": pct(stage),
        "speaker_lookup_ms": pct(names),
        "depth": w.rerank_depth,
    }


def table(r: dict) -> str:
    return (
        f"{r['facts']:,d} facts, {r['queries']} queries, depth {r['depth']}\n"
        f"  keyword first stage  p50 {r['keyword_search_ms']['p50']:7.2f} ms  "
        f"p95 {r['keyword_search_ms']['p95']:7.2f} ms\n"
        f"  second stage alone   p50 {r['rerank_stage_ms']['p50']:7.2f} ms  "
        f"p95 {r['rerank_stage_ms']['p95']:7.2f} ms\n"
        f"  speaker-name lookup  p50 {r['speaker_lookup_ms']['p50']:7.2f} ms  "
        f"p95 {r['speaker_lookup_ms']['p95']:7.2f} ms"
    )

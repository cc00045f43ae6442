"""One side of ``python -m bench speed``, run as ``python bench/speed_child.py ROOT STEP ...``.

``ROOT`` is the Engram tree to measure (this checkout, or the previous main extracted by
``bench.speed``); it goes first on ``sys.path``, so ``services``/``models`` come from it, while
this file only uses what both trees have (``Engram``, ``bulk_remember``, ``bench.synth``).
The last stdout line is a JSON object of figures.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

SLUG = os.environ.get("ENGRAM_SPEED_SLUG", "speed")  # another bench's store: its slug


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))]


def _items(n: int, seed: int = 11, start: int = 0):
    from bench.synth import Generator
    from services.ingest.pipeline import NewFact

    gen = Generator(seed)
    for i in range(start, start + n):
        s, cat, day = gen.fact(i)
        yield NewFact(
            content=s, category=cat, event_date=day, source="bench", source_ref=f"syn/{i // 50}"
        )


def _queries(n: int, seed: int = 5) -> list[str]:
    from bench.synth import Generator

    gen = Generator(seed)
    return [gen.query() for _ in range(n)]


def build(data: Path, size: int, vectors: bool) -> dict:
    """A store of ``size`` synthetic facts; with ``vectors``, every fact gets a vector (noisy
    copies of real embeddings of 300 of them: embedding 10^5 texts is out of budget)."""
    import numpy as np

    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.bulk import bulk_remember

    t = time.perf_counter()
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        bulk_remember(e.agent(SLUG, create=True), _items(size))
    out = {"build_s": round(time.perf_counter() - t, 1)}
    if vectors:
        with Engram.open(StoreConfig(data_dir=data, semantic=True)) as e:
            m = e.agent(SLUG)
            ids = [i for (i,) in e.db.execute_sql("SELECT id FROM fact ORDER BY id").fetchall()]
            txt = [
                r[0]
                for r in e.db.execute_sql(
                    "SELECT content FROM fact ORDER BY random() LIMIT 300"
                ).fetchall()
            ]
            base = e.embedder.embed(txt)
            rng = np.random.default_rng(11)
            for s in range(0, len(ids), 5000):
                part = ids[s : s + 5000]
                v = base[rng.integers(0, len(base), len(part))]
                v = v + rng.normal(0, 0.03, v.shape).astype(np.float32)
                v /= np.linalg.norm(v, axis=1, keepdims=True)
                e.index.upsert(m.agent_id, part, [""] * len(part), v)
    return out


def search(data: Path, queries: int, hybrid: bool, seed: int = 5) -> dict:
    """Keyword (and hybrid) latency per query, each answer checked: the keyword candidates'
    top 10 against exhaustive BM25 over every match of the agent (one SQL query, the same in
    both trees, not timed). ``identical``: the ten have exhaustive BM25's ten best scores
    (ties may swap ids); ``mass``: the share of the ten best scores they hold (the issue's
    measure). Hybrid: how many answers had vectors take part (``pipeline``)."""
    from services.config import StoreConfig
    from services.engram import Engram
    from services.search.hybrid import keyword_candidates
    from services.store.facts import FactFilters

    qs = _queries(queries, seed)
    out: dict = {}
    with Engram.open(StoreConfig(data_dir=data, semantic=hybrid)) as e:
        m = e.agent(SLUG)
        modes = ["keyword"] + (["hybrid"] if hybrid and e.embedder is not None else [])
        for mode in modes:
            for q in qs[:5]:  # warm: page cache, model session
                m.search(q, k=10, mode=mode, touch=False)
            lat, vectors = [], 0
            for q in qs:
                t = time.perf_counter()
                hits = m.search(q, k=10, mode=mode, touch=False)
                lat.append((time.perf_counter() - t) * 1000)
                vectors += any(h.pipeline != "keyword-only" for h in hits)
            out[f"{mode}_ms"] = [round(x, 3) for x in lat]
            if mode == "hybrid":
                out["hybrid_with_vectors"] = vectors
        active = FactFilters(status=["active"])
        same, mass = 0, []
        for q in qs:
            got = [i for i, _ in keyword_candidates(e.db, m.agent_id, q, active, 200)[:10]]
            ref = _exhaustive_bm25(e.db, m.agent_id, q)
            best = sorted(ref.values(), reverse=True)[:10]
            mine = sorted((ref.get(i, 0.0) for i in got), reverse=True)
            same += len(mine) == len(best) and all(abs(a - b) < 1e-9 for a, b in zip(mine, best))
            mass.append(sum(mine) / sum(best) if best else 1.0)
        out["queries"] = len(qs)
        out["top10_identical"] = same
        out["top10_mass"] = round(sum(mass) / len(mass), 4) if mass else 1.0
    return out


def _exhaustive_bm25(db, agent_id: int, query: str) -> dict[int, float]:
    """fact id → BM25 of every active match of the agent (the reference, never pruned)."""
    from services.search.keyword_sqlite import keyword_query

    match = keyword_query(query)
    if not match:
        return {}
    return {
        int(i): float(s)
        for i, s in db.execute_sql(
            "SELECT f.id, -bm25(fact_fts, 1.0, 0.4, 0.4) FROM fact_fts CROSS JOIN fact f "
            "ON f.id = fact_fts.rowid WHERE fact_fts MATCH ? AND f.agent_id = ? "
            "AND f.status = 'active'",
            (match, agent_id),
        ).fetchall()
    }


def writes(data: Path, n: int) -> dict:
    """remember_many (the per-item write path: policy, duplicates, entities, contradictions)
    and compile, on a store that already holds facts."""
    from services.config import StoreConfig
    from services.engram import Engram

    out = {}
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        m = e.agent(SLUG)
        batch = list(_items(n, seed=23, start=10**7))
        t = time.perf_counter()
        m.remember_many(batch)
        out["remember_many_per_s"] = round(n / (time.perf_counter() - t))
        from services.lifecycle.compile import CompileService

        t = time.perf_counter()
        CompileService(m).compile()
        out["compile_s"] = round(time.perf_counter() - t, 2)
    return out


def forget(data: Path) -> dict:
    """Forget 1 % of the facts through ForgetService (rows, FTS, vectors, compaction, check)."""
    from services.config import StoreConfig
    from services.engram import Engram
    from services.forget.service import ForgetScope, ForgetService

    with Engram.open(StoreConfig(data_dir=data, semantic=True)) as e:
        m = e.agent(SLUG)
        n = max(1, m.facts.count() // 100)
        rows = [
            i
            for (i,) in e.db.execute_sql(
                "SELECT id FROM fact WHERE agent_id = ? ORDER BY id LIMIT ? OFFSET 7",
                (m.agent_id, n),
            ).fetchall()
        ]
        t = time.perf_counter()
        ForgetService(e).execute(ForgetScope(agent=SLUG, fact_ids=tuple(rows), rule=False))
        return {"forget_1pct_s": round(time.perf_counter() - t, 2), "forgot": len(rows)}


def main() -> None:
    root, step, data = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    sys.path.insert(0, root)
    sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # bench.synth if ROOT lacks it
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    arg = sys.argv[4:]
    if step == "build":
        out = build(data, int(arg[0]), arg[1] == "1")
    elif step == "search":
        out = search(data, int(arg[0]), arg[1] == "1", int(arg[2]) if len(arg) > 2 else 5)
    elif step == "writes":
        out = writes(data, int(arg[0]))
    elif step == "forget":
        out = forget(data)
    else:
        raise SystemExit(f"unknown step {step}")
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()

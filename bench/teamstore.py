"""Keyword and hybrid search latency on a team store (PostgreSQL with its vectors in pgvector,
or PostgreSQL + a Chroma server) beside the local store (SQLite FTS5 + embedded Chroma), same
synthetic facts and queries, in one run.

    python -m bench teamstore [--sizes 10000,100000] [--vector-sizes 10000] [--queries 100]
                              [--stores local,pgvector,chroma]

The servers are the test harness's (tests/teamstore/servers.py): a throw-away PostgreSQL
cluster from the pgserver wheel (16.2 + pgvector; fsync off: a benchmark of query latency,
not durability) and ``chroma run``, both on loopback, both stopped at the end. pgvector's
HNSW index is built after the bulk fill (as a restore would), and its build time reported. Vectors are synthetic (noisy copies
of 300 real embeddings, as in ``bench scale``) so the index fill does not embed N texts.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from bench.scale import _pct
from bench.synth import noisy_vectors

SLUG = "bench"


def _items(gen, n):
    from services.ingest.pipeline import NewFact

    for i in range(n):
        s, cat, day = gen.fact(i)
        yield NewFact(
            content=s, category=cat, event_date=day, source="bench", source_ref=f"s/{i // 50}"
        )


def _timed(m, qs, mode) -> tuple[float, float]:
    lat = []
    for q in qs:
        t = time.perf_counter()
        m.search(q, k=10, mode=mode, touch=False)
        lat.append((time.perf_counter() - t) * 1000)
    return round(_pct(lat, 50), 1), round(_pct(lat, 95), 1)


def measure(config, n: int, vectors: bool, queries: int, seed: int = 11) -> dict:
    from dataclasses import replace

    from bench.synth import Generator
    from services.engram import Engram
    from services.ingest.bulk import bulk_remember

    gen = Generator(seed)
    out: dict = {"facts": n}
    e = Engram.open(replace(config, semantic=False))
    m = e.agent(SLUG, create=True)
    t = time.perf_counter()
    bulk_remember(m, _items(gen, n))
    out["ingest_s"] = round(time.perf_counter() - t, 1)
    qs = [gen.query() for _ in range(queries)]
    _timed(m, qs[:10], "keyword")  # warm caches (both backends alike)
    out["keyword_p50_ms"], out["keyword_p95_ms"] = _timed(m, qs, "keyword")
    e.close()
    if not vectors:
        return out
    e = Engram.open(replace(config, semantic=True))
    m = e.agent(SLUG)
    rng = np.random.default_rng(seed)
    ids = [f for (f,) in m.facts._q().select(m.facts._q().model.id).tuples()]
    base = e.embedder.embed([gen.fact(i)[0] for i in range(300)])
    pgvector = getattr(e.index, "kind", "") == "pgvector"
    if pgvector:
        e.db.execute_sql("DROP INDEX IF EXISTS fact_vector_hnsw")
    t = time.perf_counter()
    noisy_vectors(e.index, m.agent_id, ids, base, rng)
    out["index_fill_s"] = round(time.perf_counter() - t, 1)
    if pgvector:
        from models.server_schema import VECTOR_SQL

        t = time.perf_counter()
        e.db.execute_sql("SET maintenance_work_mem = '512MB'")
        e.db.execute_sql(VECTOR_SQL[2])
        e.db.execute_sql("ANALYZE fact_vector")
        out["hnsw_build_s"] = round(time.perf_counter() - t, 1)
    _timed(m, qs[:5], "hybrid")
    out["hybrid_p50_ms"], out["hybrid_p95_ms"] = _timed(m, qs, "hybrid")
    e.close()
    return out


STORES = {
    "local": "local (SQLite + Chroma)",
    "pgvector": "team (PostgreSQL + pgvector)",
    "chroma": "team (PostgreSQL + Chroma server)",
}


def run(
    sizes: list[int],
    vector_sizes: set[int],
    work: Path,
    queries: int = 100,
    stores: tuple[str, ...] = ("local", "pgvector", "chroma"),
) -> list[dict]:
    from services.config import StoreConfig
    from tests.teamstore.servers import start_chroma, start_postgres

    pg = start_postgres()
    chroma = start_chroma() if "chroma" in stores else None
    rows = []
    try:
        for n in sizes:
            vec = n in vector_sizes
            for kind in stores:
                if kind == "local":
                    cfg = StoreConfig(data_dir=work / f"local-{n}")
                else:
                    name = f"bench_{kind}_{n}"
                    con = pg.admin()
                    with con.cursor() as cur:
                        cur.execute(f"CREATE DATABASE {name}")
                    con.close()
                    cfg = StoreConfig(
                        data_dir=work / f"{kind}-{n}",
                        db_url=pg.url(name),
                        vector_url=f"{chroma.url}/?database={name}"
                        if chroma and kind == "chroma"
                        else None,
                    )
                rows.append({"store": STORES[kind], **measure(cfg, n, vec, queries)})
                print(table(rows[-1:]), flush=True)
    finally:
        pg.stop()
        if chroma is not None:
            chroma.stop()
    return rows


def table(rows: list[dict]) -> str:
    cols = [
        "facts",
        "ingest_s",
        "keyword_p50_ms",
        "keyword_p95_ms",
        "hybrid_p50_ms",
        "hybrid_p95_ms",
        "index_fill_s",
        "hnsw_build_s",
    ]
    lines = ["| store | " + " | ".join(cols) + " |", "|" + "---|" * (len(cols) + 1)]
    for r in rows:
        lines.append(f"| {r['store']} | " + " | ".join(str(r.get(c, "–")) for c in cols) + " |")
    return "\n".join(lines)

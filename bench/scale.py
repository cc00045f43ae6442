"""Speed at scale: 10k, 100k and 1M synthetic memories in one agent.

Each size runs in its own process (``python -m bench scale-step``) so peak RSS is that size's
own. Steps: bulk ingest (no embeddings; at 10k ``remember_many`` is timed as well), keyword
search, hybrid search (only where a vector index is filled: vectors are noisy copies of real
embeddings of a few hundred memories, since embedding 10^5 texts is out of budget; the
model's own rate is the throughput bench), compile, store size; then, in a second process, forget of 1 % of the facts through
``ForgetService`` (which also compacts the store and verifies nothing remains).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench.synth import noisy_vectors

SLUG = "scale"


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[i]


def peak_rss_mb() -> float:
    """This process's peak RSS. VmHWM, not ``ru_maxrss``: Linux carries ``ru_maxrss`` across
    exec, so a child started by a big parent would report the parent's peak."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def step(size: int, data_dir: Path, vectors: bool, queries: int = 200, seed: int = 11) -> dict:
    """One size, in this process. Returns figures (ms, per-second rates, MB)."""
    from bench.synth import Generator
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.bulk import bulk_remember
    from services.ingest.pipeline import NewFact

    out: dict = {"facts": size}
    gen = Generator(seed)

    def items(n):
        for i in range(n):
            s, cat, day = gen.fact(i)
            yield NewFact(
                content=s,
                category=cat,
                event_date=day,
                source="bench",
                source_ref=f"synthetic/{i // 50}",
            )

    # ingest without embeddings: a keyword-only store opens no model
    e = Engram.open(StoreConfig(data_dir=data_dir, semantic=False))
    if size <= 10_000:
        m = e.agent("per-item", create=True)
        batch = list(items(min(size, 5000)))
        t = time.perf_counter()
        m.remember_many(batch, near_duplicate=None)
        out["remember_many_per_s"] = round(len(batch) / (time.perf_counter() - t))
        e.remove_agent("per-item")
    m = e.agent(SLUG, create=True)
    t = time.perf_counter()
    counts = bulk_remember(m, items(size))
    dt = time.perf_counter() - t
    out["ingest_s"] = round(dt, 1)
    out["ingest_per_s"] = round(size / dt)
    out["stored"] = counts["added"]
    qs = [gen.query() for _ in range(queries)]
    lat = []
    for q in qs:
        t = time.perf_counter()
        m.search(q, k=10, mode="keyword", touch=False)
        lat.append((time.perf_counter() - t) * 1000)
    out["keyword_p50_ms"], out["keyword_p95_ms"] = round(_pct(lat, 50), 1), round(_pct(lat, 95), 1)
    # peak so far: the store, ingest and keyword search, before any model is loaded
    out["rss_keyword_only_mb"] = peak_rss_mb()
    e.close()

    e = Engram.open(StoreConfig(data_dir=data_dir, semantic=vectors))
    m = e.agent(SLUG)
    if vectors and e.embedder is not None:
        rng = np.random.default_rng(seed)
        ids = [
            i
            for (i,) in e.db.execute_sql(
                "SELECT id FROM fact WHERE agent_id = ? ORDER BY id", (m.agent_id,)
            ).fetchall()
        ]
        base_txt = [
            r[0]
            for r in e.db.execute_sql(
                "SELECT content FROM fact WHERE agent_id = ? ORDER BY random() LIMIT 300",
                (m.agent_id,),
            ).fetchall()
        ]
        base = e.embedder.embed(base_txt)
        t = time.perf_counter()
        noisy_vectors(e.index, m.agent_id, ids, base, rng)
        out["index_fill_s"] = round(time.perf_counter() - t, 1)
        lat = []
        for q in qs:
            t = time.perf_counter()
            m.search(q, k=10, mode="hybrid", touch=False)
            lat.append((time.perf_counter() - t) * 1000)
        out["hybrid_p50_ms"], out["hybrid_p95_ms"] = (
            round(_pct(lat, 50), 1),
            round(_pct(lat, 95), 1),
        )
    try:
        from services.lifecycle.compile import CompileService

        t = time.perf_counter()
        CompileService(m).compile()
        out["compile_s"] = round(time.perf_counter() - t, 2)
    except ImportError:
        out["compile_s"] = "n/a"
    e.close()
    out["store_mb"] = round(_dir_size(data_dir) / 2**20, 1)
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def forget_step(data_dir: Path, seed: int = 11) -> dict:
    """Forget 1 % of the facts, the way a user would (``ForgetService``: rows, FTS, vectors,
    compaction, verification); its own process so a slow forget can be cut off."""
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(StoreConfig(data_dir=data_dir))
    m = e.agent(SLUG)
    n = max(1, m.facts.count() // 100)
    rows = [
        i
        for (i,) in e.db.execute_sql(
            "SELECT id FROM fact WHERE agent_id = ? ORDER BY random() LIMIT ?", (m.agent_id, n)
        ).fetchall()
    ]
    out: dict = {"forgot": len(rows)}
    t = time.perf_counter()
    try:
        from services.forget.service import ForgetScope, ForgetService

        ForgetService(e).execute(ForgetScope(agent=SLUG, fact_ids=tuple(rows), rule=False))
        out["forget_via"] = "ForgetService"
    except ImportError:
        m.delete(rows)
        out["forget_via"] = "AgentMemory.delete (no ForgetService)"
    out["forget_1pct_s"] = round(time.perf_counter() - t, 1)
    e.close()
    out["store_mb_after_forget"] = round(_dir_size(data_dir) / 2**20, 1)
    out["peak_rss_mb_forget"] = peak_rss_mb()
    return out


def run_size(
    size: int,
    data_dir: Path,
    vectors: bool,
    timeout: float = 1800,
    forget_timeout: float = 600,
    queries: int = 200,
) -> dict:
    """Run ``step`` then ``forget_step`` in fresh interpreters (clean peak RSS)."""
    out = _child(
        ["scale-step", "--size", str(size), "--dir", str(data_dir), "--queries", str(queries)]
        + (["--vectors"] if vectors else []),
        timeout,
    ) | {"facts": size}
    if "error" in out:
        return out
    f = _child(["scale-forget", "--dir", str(data_dir)], forget_timeout)
    if "error" in f:
        out["forget_1pct_s"] = (
            f"> {forget_timeout:.0f}" if "timed out" in str(f["error"]) else "error"
        )
        out["forget_error"] = f["error"]
    else:
        out.update(f)
    return out


def _child(args: list[str], timeout: float) -> dict:
    """The last stdout line of ``python -m bench ARGS`` as JSON, or {"error": …}."""
    cmd = [sys.executable, "-m", "bench"] + args
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    root = Path(__file__).resolve().parent.parent
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=root, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        return {"error": (p.stderr or p.stdout).strip().splitlines()[-1:]}
    return json.loads(lines[-1])


COLUMNS = [
    ("facts", "facts"),
    ("ingest_per_s", "ingest/s"),
    ("keyword_p50_ms", "kw p50"),
    ("keyword_p95_ms", "kw p95"),
    ("hybrid_p50_ms", "hyb p50"),
    ("hybrid_p95_ms", "hyb p95"),
    ("compile_s", "compile s"),
    ("forget_1pct_s", "forget1% s"),
    ("store_mb", "store MB"),
    ("rss_keyword_only_mb", "RSS kw MB"),
    ("peak_rss_mb", "RSS MB"),
    ("peak_rss_mb_forget", "forget RSS"),
]


def table(rows: list[dict]) -> str:
    head = " ".join(f"{label:>10s}" for _, label in COLUMNS)
    lines = [head, "-" * len(head)]
    base = rows[0] if rows else {}
    for r in rows:
        lines.append(" ".join(f"{_fmt(r.get(k)):>10s}" for k, _ in COLUMNS))
    if len(rows) > 1:
        lines.append("growth vs first size (×):")
        for r in rows[1:]:
            lines.append(" ".join(f"{_ratio(r.get(k), base.get(k)):>10s}" for k, _ in COLUMNS))
    errs = [f"{r['facts']}: {r['error']}" for r in rows if r.get("error")]
    if errs:
        lines.append("errors: " + "; ".join(map(str, errs)))
    return "\n".join(lines)


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.1f}"
    return str(v)


def _ratio(a, b) -> str:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b:
        return f"{a / b:.2f}"
    return "-"


def run(
    sizes: list[int],
    work: Path,
    vector_sizes: set[int],
    log=print,
    keep: int | None = None,
    forget_timeout: float = 600,
    queries: int = 200,
) -> list[dict]:
    rows = []
    for n in sizes:
        d = work / f"scale-{n}"
        shutil.rmtree(d, ignore_errors=True)
        t = time.perf_counter()
        # ForgetService rebuilds the agent's HNSW graph and verifies the whole store: about
        # 1.5 min at 10^5 facts; cut off (reported as "> N") so a slow machine stays bounded
        r = run_size(
            n,
            d,
            n in vector_sizes,
            forget_timeout=forget_timeout if n >= 100_000 else 900,
            queries=queries if n < 1_000_000 else min(queries, 50),
        )
        r["wall_s"] = round(time.perf_counter() - t, 1)
        log(f"  {n:>9,d} facts: {json.dumps(r)}")
        rows.append(r)
        if n != keep:
            shutil.rmtree(d, ignore_errors=True)
    return rows


__all__ = ["run", "run_size", "step", "table", "statistics"]

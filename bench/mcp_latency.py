"""Round-trip latency of the MCP ``recall`` tool over stdio against the same search in-process.

A store of N synthetic facts (``bulk_remember``) is searched with the same queries twice:
in-process through ``services.integrations.mcp.memory.recall`` (what the tool runs), and over
the official MCP SDK's stdio client talking to a spawned ``engram mcp --agent`` server. The
difference is the protocol's cost (JSON-RPC framing, pydantic validation, the pipe, JSON
results). Keyword mode by default: the server then opens no embedding model, and the
in-process side does the same work; ``--semantic`` measures hybrid search with vectors.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

SLUG = "bench"
ROOT = Path(__file__).resolve().parents[1]


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    i = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[i]


def build(data_dir: Path, facts: int, semantic: bool, seed: int = 11) -> dict:
    from bench.synth import Generator
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.bulk import bulk_remember
    from services.ingest.pipeline import NewFact

    gen = Generator(seed)
    items = (
        NewFact(content=s, category=c, event_date=d, source="bench")
        for s, c, d in (gen.fact(i) for i in range(facts))
    )
    with Engram.open(StoreConfig(data_dir=data_dir, semantic=semantic)) as e:
        t = time.perf_counter()
        counts = bulk_remember(e.agent(SLUG, create=True), items, embed=semantic)
        return {"stored": counts["added"], "build_s": round(time.perf_counter() - t, 1)}


def in_process(data_dir: Path, queries: list[str], mode: str, semantic: bool) -> list[float]:
    from services.config import StoreConfig
    from services.engram import Engram
    from services.integrations.mcp import memory as mcp_tools

    with Engram.open(StoreConfig(data_dir=data_dir, semantic=semantic)) as e:
        mem = e.agent(SLUG)
        for q in queries[:5]:  # warm-up: page cache, FTS, model session
            mcp_tools.recall(mem, q, k=10, mode=mode)
        lat = []
        for q in queries:
            t = time.perf_counter()
            mcp_tools.recall(mem, q, k=10, mode=mode)
            lat.append((time.perf_counter() - t) * 1000)
    return lat


def over_stdio(data_dir: Path, queries: list[str], mode: str, semantic: bool) -> dict:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.types import Implementation

    args = ["-m", "app.cli", "--data-dir", str(data_dir), "mcp", "--agent", SLUG]
    env = {
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        "ANONYMIZED_TELEMETRY": "False",
    }
    params = StdioServerParameters(
        command=sys.executable, args=args + ([] if semantic else ["--keyword"]), env=env
    )
    out: dict = {}

    async def go():
        t0 = time.perf_counter()
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (r, w):
                info = Implementation(name="engram-bench", version="1")
                async with ClientSession(r, w, client_info=info) as s:
                    await s.initialize()
                    out["start_ms"] = round((time.perf_counter() - t0) * 1000)
                    for q in queries[:5]:
                        await s.call_tool("recall", {"query": q, "k": 10, "mode": mode})
                    lat = []
                    for q in queries:
                        t = time.perf_counter()
                        res = await s.call_tool("recall", {"query": q, "k": 10, "mode": mode})
                        lat.append((time.perf_counter() - t) * 1000)
                        if res.is_error:
                            raise RuntimeError(res.content[0].text)
                    out["lat"] = lat

    anyio.run(go)
    return out


def run(work: Path, facts: int = 10_000, queries: int = 200, semantic: bool = False) -> dict:
    from bench.synth import Generator

    data_dir = work / f"mcp-{facts}"
    r: dict = {"facts": facts, "queries": queries, "mode": "hybrid" if semantic else "keyword"}
    r.update(build(data_dir, facts, semantic))
    gen = Generator(23)
    qs = [gen.query() for _ in range(queries)]
    local = in_process(data_dir, qs, r["mode"], semantic)
    remote = over_stdio(data_dir, qs, r["mode"], semantic)
    r["in_process_p50_ms"] = round(_pct(local, 50), 2)
    r["in_process_p95_ms"] = round(_pct(local, 95), 2)
    r["stdio_p50_ms"] = round(_pct(remote["lat"], 50), 2)
    r["stdio_p95_ms"] = round(_pct(remote["lat"], 95), 2)
    r["stdio_overhead_p50_ms"] = round(r["stdio_p50_ms"] - r["in_process_p50_ms"], 2)
    r["server_start_ms"] = remote["start_ms"]
    return r


def table(r: dict) -> str:
    return "\n".join(
        [
            f"recall over MCP stdio vs in-process: {r['facts']:,d} facts, {r['queries']} "
            f"queries, k=10, {r['mode']} mode",
            f"  {'':<12}{'p50 ms':>10}{'p95 ms':>10}",
            f"  {'in-process':<12}{r['in_process_p50_ms']:>10}{r['in_process_p95_ms']:>10}",
            f"  {'MCP stdio':<12}{r['stdio_p50_ms']:>10}{r['stdio_p95_ms']:>10}",
            f"  server start to initialized: {r['server_start_ms']} ms; store built in "
            f"{r['build_s']} s",
        ]
    )

"""The MCP latency benchmark measures what it says: both sides search the same store with the
same queries, and the stdio side really went through a spawned server (it is slower)."""

from __future__ import annotations

from bench import mcp_latency


def test_mcp_latency_bench_on_a_small_store(tmp_path):
    r = mcp_latency.run(tmp_path, facts=300, queries=12)
    assert r["stored"] > 250 and r["mode"] == "keyword"
    assert 0 < r["in_process_p50_ms"] <= r["in_process_p95_ms"]
    assert 0 < r["stdio_p50_ms"] <= r["stdio_p95_ms"]
    assert r["server_start_ms"] > 0
    assert "MCP stdio" in mcp_latency.table(r)

"""A server answers before its model has loaded (MCP, `engram serve`, the app): a write made
meanwhile waits for the model, so it is still compared with its nearest neighbours and a
paraphrase merges instead of being stored twice."""

from __future__ import annotations

import threading

from services.config import StoreConfig
from services.engram import Engram
from services.store.facts import FactFilters
from services.vectors.warmup import warm_up_in_background


def test_a_remember_during_warm_up_is_checked_like_any_other(tmp_path):
    eng = Engram.open(StoreConfig(data_dir=tmp_path / "s", semantic=False))
    try:
        mem = eng.agent("claude", create=True)
        first = mem.remember("The user prefers dark mode in every editor").fact_id
        done = warm_up_in_background(eng)
        results: list = []
        writer = threading.Thread(
            target=lambda: results.append(mem.remember("The user prefers dark mode in all editors"))
        )
        writer.start()
        writer.join(timeout=180)
        assert done.wait(timeout=180) and eng.semantic_enabled
        [res] = results
        assert res.status == "near-duplicate" and res.fact_id == first, res
        assert [f.id for f in mem.list(FactFilters(status="active"))] == [first]
    finally:
        eng.close()

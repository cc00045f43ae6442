"""Lifecycle and statistics on both backends: compile, GC and the stats the app charts use
SQLite functions (json_extract, a two-argument min, date) that the team store provides."""

from __future__ import annotations

from datetime import date

import pytest

from services.ingest.pipeline import NewFact
from services.lifecycle.compile import CompileService, latest_layers
from services.lifecycle.gc import run_gc
from services.store.stats import agent_stats

pytestmark = pytest.mark.backends("sqlite", "postgres")


def test_compile_gc_stats_and_episode_search_work_on_each_backend(keyword_engram):
    mem = keyword_engram.agent("team", create=True)
    mem.remember_many(
        [
            NewFact("Ship the billing fix before Friday", category="proj:billing", importance=0.9),
            NewFact("Prefers tabs over spaces", category="pref"),
            NewFact("Scratch note about a flaky test", metadata={"tier": "short"}),
        ]
    )
    mem.add_episode(date(2026, 3, 2), "Paired on the billing webhook retry bug")
    mem.add_episode(date(2026, 3, 3), "Wrote the release notes for 4.2")
    CompileService(mem).compile()
    memory_md = latest_layers(mem)["memory"].markdown
    assert "Ship the billing fix before Friday" in memory_md
    run_gc(mem, dry_run=True)  # json_extract(metadata, '$.tier') on either backend
    st = agent_stats(mem)
    assert st.total == 3 and st.episodes == 2
    assert sum(st.importance) == 3 and st.importance[9] == 1  # min(int, 9) buckets
    assert st.growth[-1][1] == 3
    assert [e.summary for e in mem.episodes.search("billing webhook")] == [
        "Paired on the billing webhook retry bug"
    ]
    assert [e.summary for e in mem.episodes.search('"release notes"')] == [
        "Wrote the release notes for 4.2"
    ]

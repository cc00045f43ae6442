"""Aggregate counts for the statistics view (one agent): grouped queries, no row loading."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from peewee import fn

from models import Episode, Fact

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.store.handle import MemoryHandle


@dataclass
class AgentStats:
    total: int = 0
    by_category: dict[str, int] = field(default_factory=dict)
    by_type: dict[str, int] = field(default_factory=dict)
    by_status: dict[str, int] = field(default_factory=dict)
    importance: list[int] = field(default_factory=list)  # 10 bins over 0–1
    growth: list[tuple[str, int]] = field(default_factory=list)  # (YYYY-MM-DD, cumulative)
    pinned: int = 0
    episodes: int = 0


def agent_stats(memory: MemoryHandle) -> AgentStats:
    aid = memory.agent_id
    q = Fact.select().where(Fact.agent == aid)
    s = AgentStats()

    def grouped(col: Any) -> dict[str, int]:
        rows = (
            Fact.select(col, fn.COUNT(Fact.id))
            .where(Fact.agent == aid)
            .group_by(col)
            .order_by(fn.COUNT(Fact.id).desc())
            .tuples()
        )
        return {str(k): n for k, n in rows}

    # categories like proj:web fold into proj: so the chart stays readable
    cats: dict[str, int] = {}
    for k, n in grouped(Fact.category).items():
        key = k.split(":")[0] + ":" if ":" in k else k
        cats[key] = cats.get(key, 0) + n
    s.by_category = dict(sorted(cats.items(), key=lambda kv: -kv[1]))
    s.by_type = grouped(Fact.memory_type)
    s.by_status = grouped(Fact.status)
    s.total = sum(s.by_status.values())
    s.pinned = q.where(Fact.pinned == True).count()  # noqa: E712
    bins = [0] * 10
    b = fn.MIN((Fact.importance * 10).cast("INTEGER"), 9)
    for k, n in Fact.select(b, fn.COUNT(Fact.id)).where(Fact.agent == aid).group_by(b).tuples():
        bins[max(0, min(9, int(k or 0)))] += n
    s.importance = bins
    day = fn.DATE(Fact.created_at)
    total = 0
    for d, n in (
        Fact.select(day, fn.COUNT(Fact.id))
        .where(Fact.agent == aid)
        .group_by(day)
        .order_by(day)
        .tuples()
    ):
        total += n
        s.growth.append((str(d)[:10], total))
    s.episodes = Episode.select().where(Episode.agent == aid).count()
    return s


def tag_counts(memory: MemoryHandle) -> dict[str, int]:
    """How many active facts carry each tag (the browser's tag filter lists them). Tags are a
    JSON list per fact, so they are counted here; only the column is read, no rows."""
    counts: dict[str, int] = {}
    q = Fact.select(Fact.tags).where((Fact.agent == memory.agent_id) & (Fact.status == "active"))
    for (tags,) in q.tuples():
        for t in set(tags or ()):
            counts[t] = counts.get(t, 0) + 1
    return counts

"""The *What agents load* board's numbers (issue 36): for each agent, the compiled block it
loads (``memory.md``) with its tokens against the budget, what changed in it since
yesterday, and which of its memories were read in the last week and which never."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from models import CompiledLayer
from models.tables import utcnow
from services.store import insights, read_log
from services.store.handle import EngramHandle, MemoryHandle

LAYER = "memory"  # what the hooks make an agent load: CLAUDE.md imports it, and the like
WEEK = timedelta(days=7)
DAY = timedelta(days=1)


@dataclass
class AgentLoad:
    slug: str
    name: str
    block: str = ""  # the compiled markdown (untrusted memory text: shown as plain text)
    tokens: int = 0
    budget: int = 0
    compiled_at: datetime | None = None
    facts_in_block: int = 0
    added_since_yesterday: list[int] = field(default_factory=list)  # fact ids now in the block
    dropped_since_yesterday: list[int] = field(default_factory=list)  # ids no longer in it
    active: int = 0
    recalled_week: int = 0
    never_recalled: int = 0
    recalled: list[insights.Brief] = field(default_factory=list)  # the latest read first
    reads_week: dict[str, int] = field(default_factory=dict)  # channel → reads

    @property
    def over_budget(self) -> bool:
        return self.tokens > self.budget > 0


def _ids(provenance) -> set[int]:
    return {int(i) for _line, ids in (provenance or []) for i in ids}


def _layer_before(agent_id: int, when: datetime):
    return (
        CompiledLayer.select()
        .where(
            (CompiledLayer.agent == agent_id)
            & (CompiledLayer.layer == LAYER)
            & (CompiledLayer.compiled_at < when)
        )
        .order_by(CompiledLayer.compiled_at.desc(), CompiledLayer.id.desc())
        .first()
    )


def agent_load(memory: MemoryHandle, now: datetime | None = None) -> AgentLoad:
    now = now or utcnow()
    out = AgentLoad(memory.slug, memory.info.name)
    latest = _layer_before(memory.agent_id, now + timedelta(seconds=1))
    if latest is not None:
        out.block, out.tokens, out.budget = latest.markdown, latest.token_count, latest.budget
        out.compiled_at = latest.compiled_at
        now_ids = _ids(latest.provenance)
        out.facts_in_block = len(now_ids)
        before = _layer_before(memory.agent_id, now - DAY)
        then_ids = _ids(before.provenance) if before is not None else set()
        out.added_since_yesterday = sorted(now_ids - then_ids)
        out.dropped_since_yesterday = sorted(then_ids - now_ids)
    since = now - WEEK
    out.active, out.recalled_week, out.never_recalled = insights.recall_counts(
        memory.agent_id, since
    )
    out.recalled = insights.recalled_since(memory.agent_id, since, limit=50)
    out.reads_week = read_log.read_counts(memory.agent_id, since)
    return out


def load_board(engram: EngramHandle, now: datetime | None = None) -> list[AgentLoad]:
    """One card per agent, in the agents' order."""
    return [agent_load(engram.agent(a.slug), now) for a in engram.agents(with_counts=False)]

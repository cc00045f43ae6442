"""Stable identities of rows (schema v10): a fact's or an agent's uid, which, unlike its
integer id, no other row ever takes (in this store, a copy of it, or a restored backup)."""

from __future__ import annotations

from collections.abc import Sequence

from models import Agent, Fact
from services.store.chunks import chunks


def fact_uids(agent_id: int, ids: Sequence[int]) -> dict[int, str]:
    """id → uid of this agent's facts with these ids (missing ones are not in the result)."""
    out: dict[int, str] = {}
    for part in chunks(list(ids)):
        q = Fact.select(Fact.id, Fact.uid).where((Fact.agent == agent_id) & Fact.id.in_(list(part)))
        out.update((i, u) for i, u in q.tuples() if u)
    return out


def all_fact_uids(ids: Sequence[int]) -> dict[int, str]:
    """id → uid of the facts with these ids, whichever agent owns them."""
    out: dict[int, str] = {}
    for part in chunks(list(ids)):
        q = Fact.select(Fact.id, Fact.uid).where(Fact.id.in_(list(part)))
        out.update((i, u) for i, u in q.tuples() if u)
    return out


def agent_uid(agent_id: int) -> str:
    got = Agent.select(Agent.uid).where(Agent.id == agent_id).scalar()
    return str(got or "")

"""Read-only questions the Load board and Memory health views ask of an agent's facts: what
was recalled lately and what never, which facts say the same thing, which went stale.
One query each, sized for 100k facts (the views call them from a worker)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

import peewee as pw

from models import Fact

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Brief:
    id: int
    content: str
    created_at: datetime
    last_accessed: datetime | None
    access_count: int


def _brief(row: tuple) -> Brief:
    return Brief(*row)


_COLS = (Fact.id, Fact.content, Fact.created_at, Fact.last_accessed, Fact.access_count)


def _active(agent_id: int) -> pw.Expression:
    return (Fact.agent == agent_id) & (Fact.status == "active")


def recalled_since(agent_id: int, since: datetime, limit: int = 200) -> list[Brief]:
    """Active facts read (recalled, injected) since ``since``, the latest first."""
    q = (
        Fact.select(*_COLS)
        .where(_active(agent_id) & (Fact.last_accessed >= since))
        .order_by(Fact.last_accessed.desc(), Fact.id.desc())
        .limit(limit)
        .tuples()
    )
    return [_brief(r) for r in q]


def recall_counts(agent_id: int, since: datetime) -> tuple[int, int, int]:
    """(active facts, recalled since ``since``, never recalled)."""
    lately = pw.fn.SUM(pw.Case(None, [(Fact.last_accessed >= since, 1)], 0))
    never = pw.fn.SUM(pw.Case(None, [(Fact.access_count == 0, 1)], 0))
    row = Fact.select(pw.fn.COUNT(Fact.id), lately, never).where(_active(agent_id)).tuples()
    total, recent, nev = row.get()
    return int(total or 0), int(recent or 0), int(nev or 0)


def never_recalled(agent_id: int, older_than: datetime, limit: int = 200) -> list[Brief]:
    """Active, unpinned facts nobody read since they were stored before ``older_than``, the
    oldest first (those have had the longest chance)."""
    q = (
        Fact.select(*_COLS)
        .where(
            _active(agent_id)
            & (Fact.access_count == 0)
            & (Fact.pinned == False)  # noqa: E712 - peewee builds SQL from ==
            & (Fact.created_at < older_than)
        )
        .order_by(Fact.created_at, Fact.id)
        .limit(limit)
        .tuples()
    )
    return [_brief(r) for r in q]


def stale(agent_id: int, unused_since: datetime, limit: int = 200) -> list[Brief]:
    """Active, unpinned facts stored before ``unused_since`` and not read since then."""
    unused = Fact.last_accessed.is_null() | (Fact.last_accessed < unused_since)
    q = (
        Fact.select(*_COLS)
        .where(
            _active(agent_id)
            & (Fact.pinned == False)  # noqa: E712
            & (Fact.created_at < unused_since)
            & unused
        )
        .order_by(Fact.created_at, Fact.id)
        .limit(limit)
        .tuples()
    )
    return [_brief(r) for r in q]


def _words(text: str) -> str:
    return " ".join(sorted(set(_WORD.findall(text.casefold()))))


def duplicate_groups(agent_id: int, limit: int = 100) -> list[list[Brief]]:
    """Active facts that say the same words (case, punctuation and order aside), in groups of
    two or more, the newest of each group first; the groups with the most copies first."""
    groups: dict[str, list[Brief]] = defaultdict(list)
    for r in Fact.select(*_COLS).where(_active(agent_id)).tuples():
        key = _words(r[1])
        if key:
            groups[key].append(_brief(r))
    out = [sorted(g, key=lambda b: (b.created_at, b.id), reverse=True) for g in groups.values()]
    out = [g for g in out if len(g) > 1]
    out.sort(key=lambda g: (-len(g), -g[0].id))
    return out[:limit]

"""The read log: which facts an agent was handed, by which channel (MCP ``recall`` and
``get_context``, the hooks' context injection), kept for ``KEEP_DAYS``. Ids and channels only:
the text stays in the fact row, so forgetting a fact removes its reads with it (cascade)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import peewee as pw

from models import Fact, ReadLog
from models.tables import utcnow

KEEP_DAYS = 30


@dataclass(frozen=True)
class Read:
    at: datetime
    channel: str
    fact_id: int
    content: str  # the fact's text now (untrusted: shown as plain text)


def _available(db: pw.Database) -> bool:
    # a team store has no read log yet (models/schema.py, migration 14)
    return not isinstance(db, pw.PostgresqlDatabase) and ReadLog.table_exists()


def record_reads(db: pw.Database, agent_id: int, channel: str, ids: Sequence[int]) -> int:
    """Log that ``ids`` were read through ``channel``; never fails the read it records."""
    ids = list(dict.fromkeys(int(i) for i in ids))
    if not ids:
        return 0
    try:
        if not _available(db):
            return 0
        now = utcnow()
        with db.atomic():
            ReadLog.insert_many(
                [{"agent": agent_id, "fact": i, "channel": channel, "created_at": now} for i in ids]
            ).execute()
            ReadLog.delete().where(
                (ReadLog.agent == agent_id) & (ReadLog.created_at < now - timedelta(KEEP_DAYS))
            ).execute()
        return len(ids)
    except pw.DatabaseError:
        return 0


def reads(agent_id: int, limit: int = 500) -> list[Read]:
    """The newest reads of an agent's facts, newest first."""
    if not ReadLog.table_exists():
        return []
    q = (
        ReadLog.select(ReadLog.created_at, ReadLog.channel, ReadLog.fact, Fact.content)
        .join(Fact, on=(ReadLog.fact == Fact.id))
        .where(ReadLog.agent == agent_id)
        .order_by(ReadLog.created_at.desc(), ReadLog.id.desc())
        .limit(limit)
        .tuples()
    )
    return [Read(at, ch, fid, text) for at, ch, fid, text in q]


def read_counts(agent_id: int, since: datetime) -> dict[str, Any]:
    """{channel: reads} since ``since``."""
    if not ReadLog.table_exists():
        return {}
    q = (
        ReadLog.select(ReadLog.channel, pw.fn.COUNT(ReadLog.id))
        .where((ReadLog.agent == agent_id) & (ReadLog.created_at >= since))
        .group_by(ReadLog.channel)
        .tuples()
    )
    return dict(q)

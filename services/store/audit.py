"""The one writer of the audit trail (``audit_event`` rows): fact edits, forget receipts,
entity merges and clean-ups all record what happened here, so every row has the same shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from models import AuditEvent


def record_audit(
    agent_id: int,
    action: str,
    fact_id: int | None = None,
    before: Any = None,
    after: Any = None,
    actor: str = "user",
    reason: str | None = None,
    created_at: Any = None,
) -> int:
    """Add one audit row; its id. ``created_at`` defaults to now."""
    # a write over MCP names its client as the actor: that is where it came from
    where: dict[str, Any] = {"origin": actor} if actor.startswith("mcp:") else {}
    if created_at is not None:
        where["created_at"] = created_at
    return AuditEvent.create(
        agent=agent_id,
        fact_id=fact_id,
        action=action,
        before=before,
        after=after,
        actor=actor,
        reason=reason,
        **where,
    ).id


AuditRow = tuple[int, int | None, str, str | None, str | None, str, str | None, str]
"""(agent id, fact id, action, before JSON, after JSON, actor, reason, created_at text)."""

_BATCH_SQL = (
    "INSERT INTO {table} (agent_id, fact_id, action, before, after, actor, reason, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def record_audit_batch(db: Any, rows: Sequence[AuditRow]) -> None:
    """Add many audit rows in one prepared statement (GC writes thousands in a run: peewee's
    ``insert_many`` builds the SQL per row and is 4x slower). The JSON is already encoded as
    ``JSONField`` stores it; the actor of a batch is never an MCP client."""
    if not rows:
        return
    sql = _BATCH_SQL.format(table=AuditEvent._meta.table_name).replace("?", db.param)
    db.cursor().executemany(sql, list(rows))

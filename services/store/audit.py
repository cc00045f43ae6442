"""The one writer of the audit trail (``audit_event`` rows): fact edits, forget receipts,
entity merges and clean-ups all record what happened here, so every row has the same shape."""

from __future__ import annotations

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
) -> int:
    """Add one audit row; its id."""
    # a write over MCP names its client as the actor: that is where it came from
    where = {"origin": actor} if actor.startswith("mcp:") else {}
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

"""The *Memory health* view's numbers and its one-click actions (issue 36): facts that say
the same thing (merge: keep the newest, archive the copies), facts gone stale (archive),
conflicts waiting in review (the Review view decides them), facts never recalled (archive).
Archiving keeps the reason; the Archived view restores any of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from models.tables import utcnow
from services.store import insights
from services.store.handle import MemoryHandle
from services.store.review import ReviewItem

STALE_AFTER = timedelta(days=90)  # stored and not read for this long
NEVER_AFTER = timedelta(days=7)  # never read, and stored at least this long ago


@dataclass
class Health:
    duplicates: list[list[insights.Brief]] = field(default_factory=list)  # newest first
    stale: list[insights.Brief] = field(default_factory=list)
    conflicts: list[ReviewItem] = field(default_factory=list)
    never_recalled: list[insights.Brief] = field(default_factory=list)

    @property
    def duplicate_copies(self) -> int:
        """Facts a merge would archive (every group's copies but its newest)."""
        return sum(len(g) - 1 for g in self.duplicates)


def memory_health(memory: MemoryHandle, now: datetime | None = None, limit: int = 200) -> Health:
    now = now or utcnow()
    return Health(
        duplicates=insights.duplicate_groups(memory.agent_id, limit),
        stale=insights.stale(memory.agent_id, now - STALE_AFTER, limit),
        conflicts=[i for i in memory.review.items() if i.reason == "conflict"][:limit],
        never_recalled=insights.never_recalled(memory.agent_id, now - NEVER_AFTER, limit),
    )


def archive_with_reason(memory: MemoryHandle, ids: list[int], reason: str) -> list[int]:
    """Archive facts as GC does (restorable, with why); a fact no longer active is skipped."""
    done = []
    for fid in ids:
        f = memory.get(fid)
        if f.status != "active":
            continue
        meta = {**(f.metadata or {}), "archived_reason": reason}
        memory.edit(fid, status="archived", metadata=meta)
        done.append(fid)
    return done


def merge_duplicates(memory: MemoryHandle, group: list[int]) -> list[int]:
    """Keep the first id of ``group`` (the newest), archive the others as its copies."""
    keep, *copies = group
    return archive_with_reason(memory, copies, f"duplicate of #{keep} (merged)")

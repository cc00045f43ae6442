"""The Archived view's reads and its Restore all, sized for a 100k store: the list comes a
page at a time, the count and the GC runs in one pass, and a restore in batches, each its
own transaction, so the rows are active (and found by keyword search) batch by batch with
progress instead of after one long write (issue 36, finding 7). Vectors are not touched:
an archived fact keeps its vector, so nothing waits for the embedder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from services.lifecycle.gc import _archived_meta, _meta, restore_archived
from services.store import fact_rows

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle

BATCH = 2000


@dataclass
class ArchivedSummary:
    count: int = 0
    runs: list[tuple[str, int]] = field(default_factory=list)  # (GC run time, facts), newest


@dataclass
class ArchivedPage:
    rows: list[tuple[int, str, str, object]]  # id, content, why, archived when
    next_offset: int  # where the next page starts in the archived rows
    more: bool


def archived_summary(memory: MemoryHandle) -> ArchivedSummary:
    """How many facts the view holds and the GC runs still undoable, in one pass."""
    out = ArchivedSummary()
    runs: dict[str, int] = {}
    for _fid, meta in _archived_meta(memory):
        out.count += 1
        when = meta.get("archived_at")
        if when and meta.get("archived_reason"):
            runs[when] = runs.get(when, 0) + 1
    out.runs = sorted(runs.items(), reverse=True)
    return out


def archived_page(memory: MemoryHandle, offset: int, limit: int) -> ArchivedPage:
    """Up to ``limit`` archived rows from ``offset``, newest first; facts the user rejected
    in review are skipped (never revived), so a page may hold fewer."""
    raw = fact_rows.archived_rows(memory.agent_id, limit, offset)
    rows = []
    for r in raw:
        meta = _meta(r.metadata)
        if (meta.get("review") or {}).get("rejected"):
            continue
        rows.append((r.id, r.content, meta.get("archived_reason") or "archived", r.updated_at))
    return ArchivedPage(rows, offset + len(raw), len(raw) == limit)


def restore_in_batches(
    memory: MemoryHandle,
    ids: list[int] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    batch: int = BATCH,
) -> list[int]:
    """Restore ``ids`` (None: every archived fact) ``batch`` at a time; ``progress`` may
    raise to stop between batches (what is restored stays restored)."""
    todo = [fid for fid, _m in _archived_meta(memory)] if ids is None else list(ids)
    done: list[int] = []
    try:
        for s in range(0, len(todo), batch):
            if progress:
                progress(s, len(todo), f"Restoring {s:,} of {len(todo):,} fact(s)")
            # one notice for all the batches: a recompile per batch took the CPU from them
            done.extend(restore_archived(memory, todo[s : s + batch], notify=False))
        if progress:
            progress(len(todo), len(todo), f"Restored {len(done):,} fact(s)")
    finally:
        if done:  # also after a cancel: what was restored stays restored
            memory.engram.bus.emit("fact.updated", agent_id=memory.agent_id, ids=done)
    return done

"""Bulk import for very large batches (10^5–10^6 memories), where the per-memory pipeline of
``Ingestor.remember_many`` (one INSERT, one audit event and one supersession query per
memory) is too slow.

What it keeps: validation, the write policy (secrets, personal data, forget rules), exact dedup against the store and
within the batch, FTS (the triggers fire on every inserted row), and an audit trail (one
``bulk-import`` event per transaction with the ids it added). What it skips, and says so: the
near-duplicate check and supersession by subject (both need a per-memory lookup), and
embeddings (pass ``embed=True`` to index vectors as it goes, or call
``AgentMemory.rebuild_index()`` afterwards).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from models.tables import utcnow
from services.ingest.limits import memory_too_long
from services.ingest.pipeline import NewFact, audit_redaction, memory_type_for, validate
from services.ingest.policy import WritePolicy
from services.records import RememberResult, RememberStatus
from services.store import fact_rows, fact_writes
from services.store.text import (
    content_hash,
    require_clean,
    require_clean_meta,
    require_clean_subject,
    require_clean_tags,
)

if TYPE_CHECKING:
    from datetime import datetime

    from services.ingest.pipeline import Ingestor
    from services.store.handle import MemoryHandle


def bulk_remember(
    memory: MemoryHandle,
    items: Iterable[NewFact],
    batch: int = 20000,
    embed: bool = False,
    progress: Callable[[int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    actor: str = "import",
) -> dict:
    """Insert ``items`` in transactions of ``batch`` rows; returns counts."""
    m = memory
    e = m.engram
    from models import ForgetRule

    has_rules = (
        ForgetRule.select()
        .where((ForgetRule.agent == m.agent_id) | (ForgetRule.agent.is_null()))
        .exists()
    )
    # without a rule in the store the n-gram hashing is skipped: at 10^6 rows it dominates
    policy = WritePolicy(
        m.agent_id, (m.settings or {}).get("pii"), e.forget_key() if has_rules else None
    )
    counts = {"added": 0, "duplicate": 0, "blocked": 0, "empty": 0, "redactions": 0}
    seen: set[str] = set()
    buf: list[dict] = []

    def flush() -> None:
        if not buf:
            return
        hashes = [r["content_hash"] for r in buf]
        known = fact_rows.known_hashes(m.agent_id, hashes, 900)
        rows = [r for r in buf if r["content_hash"] not in known]
        counts["duplicate"] += len(buf) - len(rows)
        ids: list[int] = []
        with m.db.atomic():
            if rows:
                fact_writes.insert_rows(m.db, rows)
                ids = fact_rows.newest_ids(m.agent_id, len(rows))
                _audit_import(m, ids, actor)
        counts["added"] += len(rows)
        if rows and embed and e.index is not None:
            e.index.upsert(m.agent_id, ids, [r["content"] for r in rows])
        if rows:
            e.bus.emit("fact.added", agent_id=m.agent_id, ids=ids)
        buf.clear()
        if progress:
            progress(counts["added"])

    now = utcnow()
    for item in items:
        if cancelled and cancelled():
            break
        if memory_too_long((item.content or "").strip()):
            counts["refused"] = counts.get("refused", 0) + 1  # over the size limit
            continue
        validate(item)
        verdict = policy.sanitize(item.content)
        text = require_clean(verdict.text)
        counts["redactions"] += verdict.secrets
        if not text:
            counts["empty"] += 1
            continue
        if verdict.blocked_by:
            counts["blocked"] += 1
            continue
        status = "pending" if verdict.pending and item.status == "active" else item.status
        h = content_hash(text)
        if h in seen:
            counts["duplicate"] += 1
            continue
        seen.add(h)
        buf.append(
            _fact_row(
                m.agent_id,
                policy,
                item,
                text,
                h,
                now,
                category=policy.category(item.category),
                status=status,
                subject=require_clean_subject(policy.field(item.subject)),
                tags=require_clean_tags(policy.tags(item.tags)),
            )
        )
        if len(buf) >= batch:
            flush()
    flush()
    return counts


# an import this large is stored at once and embedded behind (``bulk_store``); a smaller one
# goes through ``remember_many`` (near-duplicate merge, supersession, entity links at once)
BULK_IMPORT_MIN = 1000


def bulk_store(
    memory: MemoryHandle,
    items: Sequence[NewFact],
    actor: str = "import",
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    chunk: int = 5000,
) -> list[RememberResult]:
    """A large import, one result per item as ``remember_many`` gives them, at the speed of
    one prepared INSERT per chunk: every item passes the write policy (``Ingestor._screen``:
    secrets, personal data, forget rules, validation, review for ``ask``) and the exact
    duplicate check a re-import relies on (superseded twins count, as ``bump=False``);
    the rows are keyword-searchable when it returns (FTS triggers). Owed, and done behind by
    ``services.vectors.backlog``: the vectors and the entity links. Not done: the
    near-duplicate merge and supersession by subject, which need one lookup per memory (a
    re-import of a reworded file adds the new wording; ``engram review`` shows conflicts
    only from the per-memory path)."""
    from models.db import writer_lock
    from services.ingest.pipeline import DEDUP_STATUSES, Ingestor
    from services.vectors import backlog

    m = memory
    ing = Ingestor(m)
    screened: list[RememberResult | None] = [None] * len(items)
    with writer_lock(m.db, m.agent_id):
        prepared, notes = ing._screen(items, screened)
        results = [r for r in screened if r is not None]
        fresh, dup_of = ing._exact_duplicates(prepared, results, DEDUP_STATUSES + ("superseded",))
        added: list[int] = []
        now = utcnow()
        for s in range(0, len(fresh), chunk):
            if cancelled and cancelled():
                for i, *_ in fresh[s:]:
                    results[i].status, results[i].reason = RememberStatus.CANCELLED, "cancelled"
                break
            part = fresh[s : s + chunk]
            with m.db.atomic():
                fact_writes.insert_rows(m.db, [_row(m, ing, it, t, h, now) for _, it, t, h in part])
                ids = fact_rows.newest_ids(m.agent_id, len(part))
                for (i, *_), fid in zip(part, ids, strict=True):
                    results[i].fact_id = fid
                    if i in notes:  # as the pipeline logs it (counts, never the text)
                        audit_redaction(m, fid, notes[i])
                _audit_import(m, ids, actor)
            added += ids
            backlog.mark(m.engram.config.data_dir, links=(m.agent_id, ids[0], ids[-1]))
            if progress:
                progress(min(s + chunk, len(fresh)), len(fresh))
    for i, ref in dup_of.items():  # a batch twin points at the fact its first copy became
        if ref < 0:
            results[i].fact_id = results[-ref - 1].fact_id
    if added:
        m.engram.bus.emit("fact.added", agent_id=m.agent_id, ids=added)
    return results


def _audit_import(m: MemoryHandle, ids: list[int], actor: str) -> None:
    """One audit event for a batch of new rows: how many, and their id range (never text)."""
    m.facts.audit(
        "bulk-import",
        None,
        None,
        {"count": len(ids), "first_id": ids[0], "last_id": ids[-1]},
        actor=actor,
    )


def _fact_row(
    agent_id: int,
    policy: WritePolicy,
    item: NewFact,
    text: str,
    h: str,
    now: datetime,
    *,
    category: str,
    status: str,
    subject: str | None,
    tags: list[str],
) -> dict:
    """A new fact row of ITEM: TEXT and the fields that passed the write policy (the caller
    says which way), the rest as the item has them."""
    return {
        "agent": agent_id,
        "content": text,
        "content_hash": h,
        "category": category,
        "memory_type": item.memory_type or memory_type_for(category),
        "importance": float(item.importance),
        "confidence": float(item.confidence),
        "pinned": bool(item.pinned),
        "status": status,
        "source": item.source,
        "source_ref": item.source_ref,
        "subject": subject,
        "tags": tags,
        "event_date": item.event_date,
        "created_at": item.created_at or now,
        "updated_at": now,
        "metadata": require_clean_meta(policy.metadata(item.metadata)),
    }


def _row(m: MemoryHandle, ing: Ingestor, item: NewFact, text: str, h: str, now: datetime) -> dict:
    from services.ingest.subjects import subject_key

    policy = ing._policy
    return _fact_row(
        m.agent_id,
        policy,
        item,
        require_clean(text),
        h,
        now,
        category=item.category or "fact",
        status=item.status,
        subject=require_clean_subject(item.subject or policy.field(subject_key(text))),
        tags=require_clean_tags(item.tags),
    )

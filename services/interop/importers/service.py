"""Detect a source's format, parse it, and store it through the ingest pipeline."""

from __future__ import annotations

import importlib
from pathlib import Path

from services.ingest.pipeline import NewFact
from services.interop.importers.base import ImportFormatError, ParsedSource
from services.records import ImportReport

# Order matters: the most specific detector first. Each module has detect(path) and parse(path).
FORMATS = {
    "lynn": "services.interop.importers.lynn",
    "memory-setup": "services.interop.importers.memory_setup",
    "hermes": "services.interop.importers.hermes",
}


def _module(fmt: str):
    if fmt not in FORMATS:
        raise ImportFormatError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    return importlib.import_module(FORMATS[fmt])


def detect_format(path: Path) -> str:
    if not path.exists():
        from services.store.atomic import resolve_target

        resolve_target(path)  # a symlink loop is named as one, not as a missing file
        raise ImportFormatError(f"{path}: no such file or directory")
    for fmt in FORMATS:
        if _module(fmt).detect(path):
            return fmt
    raise ImportFormatError(
        f"{path}: not a format Engram can import (a Memory Setup workspace, a Hermes "
        "MEMORY.md/USER.md, a Lynn memory dir, or an Engram JSONL export)"
    )


def parse_source(path: Path, fmt: str | None = None) -> ParsedSource:
    fmt = fmt or detect_format(path)
    return _module(fmt).parse(path)


def import_into(
    memory, path: Path, fmt: str | None = None, progress=None, cancelled=None
) -> ImportReport:
    parsed = parse_source(path, fmt)
    report = ImportReport(source=str(path), format=parsed.format, skipped=list(parsed.problems))
    items = [
        NewFact(
            content=f.content,
            category=f.category,
            importance=f.importance,
            pinned=f.pinned,
            source="import",
            source_ref=f.source_ref,
            subject=f.subject,
            tags=list(f.tags),
            memory_type=f.memory_type,
            event_date=f.event_date,
            created_at=f.created_at,
            confidence=f.confidence,
            status=f.status,
            metadata=f.metadata,
        )
        for f in parsed.facts
    ]
    # What the user already corrected or deleted in Engram stays corrected/deleted.
    undone = _changed_by_user(memory, items)
    report.duplicates += len(undone)
    items = [it for i, it in enumerate(items) if i not in undone]
    # Re-importing the same file must change nothing: duplicates are not bumped.
    results = memory.remember_many(
        items, progress=progress, cancelled=cancelled, actor="import", bump=False
    )
    for r in results:
        if r.stored_new:
            report.added += 1
            report.superseded += len(r.superseded)
        elif r.status in ("duplicate", "near-duplicate"):
            report.duplicates += 1
        elif r.status == "blocked":
            report.blocked += 1
        report.redacted += r.redactions
    for e in parsed.episodes:
        if e.session_ref and e.source_ref:  # a rolling per-session summary: update in place
            _, state = memory.upsert_episode(
                e.day, e.summary, e.source_ref, time=e.time, tags=e.tags
            )
            report.episodes_added += state == "added"
            report.episodes_updated += state == "updated"
            report.episodes_duplicates += state == "same"
            continue
        _, created = memory.add_episode(
            e.day, e.summary, time=e.time, tags=e.tags, source_file=e.source_ref
        )
        if created:
            report.episodes_added += 1
        else:
            report.episodes_duplicates += 1
    return report


def _changed_by_user(memory, items: list[NewFact]) -> set[int]:
    """Indexes of items whose text is what a stored fact said before the user edited it (the
    fact still exists) or deleted it. Without this, re-importing the source would bring the
    old wording back and supersede the user's correction."""
    from models.entities import AuditEvent, Fact
    from services.ingest.policy import policy_for
    from services.store.text import content_hash

    edited: dict[str, int] = {}
    deleted: set[str] = set()
    rows = (
        AuditEvent.select(AuditEvent.action, AuditEvent.fact_id, AuditEvent.before)
        .where((AuditEvent.agent == memory.agent_id) & AuditEvent.action.in_(("edit", "delete")))
        .tuples()
    )
    for action, fid, before in rows:
        text = (before or {}).get("content")
        if not text:
            continue
        if action == "delete":
            deleted.add(content_hash(text))
        else:
            edited.setdefault(content_hash(text), fid)
    if not edited and not deleted:
        return set()
    live = {
        fid
        for (fid,) in Fact.select(Fact.id)
        .where(
            (Fact.agent == memory.agent_id)
            & Fact.id.in_(list(edited.values()))
            & (Fact.status != "forgotten")
        )
        .tuples()
    }
    out = set()
    policy = policy_for(memory)
    for i, it in enumerate(items):
        h = content_hash(policy.sanitize(it.content).text)
        if h in deleted or edited.get(h) in live:
            out.add(i)
    return out

"""A statement removed from a source file is archived on the next import of that file, and
comes back when the file states it again. Only facts Engram imported from the files just read
are touched, and only when the file was read (an unreadable file archives nothing)."""

from __future__ import annotations

from services.interop.importers.base import ParsedSource
from services.store import imported_rows
from services.store.handle import MemoryHandle

REMOVED = "removed_from_source"


def source_files(parsed: ParsedSource) -> set[str]:
    files = {
        str(f.metadata.get("source_file")) for f in parsed.facts if f.metadata.get("source_file")
    }
    return files | set(parsed.sources)


def _still_stated(memory: MemoryHandle, parsed: ParsedSource) -> tuple[set[str], set[str]]:
    """What the files just read still state: their blocks' hashes and their statements'
    content hashes (as the store keeps them, after the write policy)."""
    from services.ingest.policy import policy_for
    from services.store.text import content_hash

    policy = policy_for(memory)
    blocks = {h for f in parsed.facts if (h := (f.metadata or {}).get("source_hash"))}
    texts = {content_hash(policy.sanitize(f.content).text) for f in parsed.facts}
    return blocks, texts


def archive_removed(memory: MemoryHandle, parsed: ParsedSource, keep: set[int]) -> int:
    """Archive the facts whose statement the file no longer holds. Only a *confirmed*
    absence counts: a fact whose block or text the file still states stays active even when
    storing it this time did not return its id (an error, a lock); and an error while
    checking propagates instead of being read as "removed"."""

    files = source_files(parsed)
    if not files:
        return 0
    blocks, texts = _still_stated(memory, parsed)
    rows = imported_rows.live_from_files(memory.agent_id, files)
    gone = [
        (fid, meta or {})
        for fid, meta, h in rows
        if fid not in keep and h not in texts and (meta or {}).get("source_hash") not in blocks
    ]
    for fid, meta in gone:
        memory.edit(fid, actor="import", status="archived", metadata={**meta, REMOVED: True})
    return len(gone)


def revive_restated(memory: MemoryHandle, items: list) -> dict[int, int]:
    """Items (NewFact) a file states again after a re-import archived them: index → the
    archived fact, which is made active again instead of stored twice."""
    from services.ingest.policy import policy_for
    from services.store.text import content_hash

    rows = imported_rows.archived_with_flag(memory.agent_id, REMOVED)
    archived = {h: (fid, dict(meta or {})) for fid, h, meta in rows}
    if not archived:
        return {}
    policy = policy_for(memory)
    out: dict[int, int] = {}
    for i, it in enumerate(items):
        hit = archived.get(content_hash(policy.sanitize(it.content).text))
        if hit is None or hit[0] in out.values():
            continue
        fid, meta = hit
        meta.pop(REMOVED, None)
        memory.edit(fid, actor="import", status="active", metadata=meta)
        out[i] = fid
    return out


ADOPTED = ("lifecycle", "source_file", "source_format", "source_hash", "source_lines")


def adopt_duplicates(memory: MemoryHandle, items: list, results: list) -> int:
    """A fact imported before Engram tracked its source (an older Hermes import) gets the
    source's bookkeeping when the file states it again, so TTLs stop applying to it."""
    n = 0
    for item, r in zip(items, results):
        meta = item.metadata or {}
        if r.status != "duplicate" or not r.fact_id or meta.get("lifecycle") is None:
            continue
        try:
            f = memory.get(r.fact_id)
        except Exception:
            continue
        if f.source != "import" or (f.metadata or {}).get("lifecycle"):
            continue
        extra = {k: meta[k] for k in ADOPTED if k in meta}
        memory.edit(r.fact_id, actor="import", metadata={**(f.metadata or {}), **extra})
        n += 1
    return n

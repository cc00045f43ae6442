"""A statement removed from a source file is archived on the next import of that file, and
comes back when the file states it again. Only facts Engram imported from the files just read
are touched, and only when the file was read (an unreadable file archives nothing)."""

from __future__ import annotations

import peewee as pw

from services.interop.importers.base import ParsedSource

REMOVED = "removed_from_source"


def source_files(parsed: ParsedSource) -> set[str]:
    files = {
        str(f.metadata.get("source_file")) for f in parsed.facts if f.metadata.get("source_file")
    }
    return files | set(parsed.sources)


def archive_removed(memory, parsed: ParsedSource, keep: set[int]) -> int:
    from models.entities import Fact

    files = source_files(parsed)
    if not files:
        return 0
    rows = (
        Fact.select(Fact.id, Fact.metadata)
        .where(
            (Fact.agent == memory.agent_id)
            & Fact.status.in_(("active", "pending"))
            & (Fact.source == "import")
            & pw.fn.json_extract(Fact.metadata, "$.source_file").in_(sorted(files))
        )
        .tuples()
    )
    gone = [(fid, meta or {}) for fid, meta in rows if fid not in keep]
    for fid, meta in gone:
        memory.facts.edit(fid, actor="import", status="archived", metadata={**meta, REMOVED: True})
    return len(gone)


def revive_restated(memory, ids: set[int]) -> int:
    """Facts archived because their file dropped them, stated by the file again."""
    from models.entities import Fact

    if not ids:
        return 0
    rows = (
        Fact.select(Fact.id, Fact.metadata)
        .where(
            (Fact.agent == memory.agent_id) & Fact.id.in_(sorted(ids)) & (Fact.status == "archived")
        )
        .tuples()
    )
    back = [(fid, dict(meta or {})) for fid, meta in rows if (meta or {}).get(REMOVED)]
    for fid, meta in back:
        meta.pop(REMOVED, None)
        memory.facts.edit(fid, actor="import", status="active", metadata=meta)
    return len(back)

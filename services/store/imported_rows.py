"""Facts an import brought in, found by the file they came from (``metadata.source_file``):
re-import bookkeeping, discovery of sources already imported, and forget's native-file and
metadata passes. The JSON lookups run in SQL on SQLite so a large agent is not decoded row
by row."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import peewee as pw

from models import Agent, Fact

_SOURCE_FILE = "$.source_file"


def sources(agent_id: int, postgres: bool) -> list[tuple[str, str]]:
    """(file, format) of every file an agent's facts were imported from."""
    q = (Fact.agent == agent_id) & (Fact.source == "import")
    if not postgres:
        src = pw.fn.json_extract(Fact.metadata, _SOURCE_FILE)
        fmt = pw.fn.json_extract(Fact.metadata, "$.source_format")
        rows = Fact.select(src, fmt).where(q & src.is_null(False)).distinct().tuples()
        return [(str(a), str(b or "")) for a, b in rows]
    out = set()
    for (meta,) in Fact.select(Fact.metadata).where(q).tuples():
        if (meta or {}).get("source_file"):
            out.add((str(meta["source_file"]), str(meta.get("source_format") or "")))
    return sorted(out)


def sources_by_agent() -> list[tuple[str, str]]:
    """(agent slug, source file) for every file any agent imported."""
    src = pw.fn.json_extract(Fact.metadata, _SOURCE_FILE)
    rows = (
        Fact.select(Agent.slug, src)
        .join(Agent, on=(Fact.agent == Agent.id))
        .where((Fact.source == "import") & src.is_null(False))
        .distinct()
        .tuples()
    )
    return [(slug, str(f)) for slug, f in rows]


def metadata_of_imported(agent_id: int) -> Iterator[tuple[int, Any]]:
    """(id, metadata) of an agent's imported facts that carry metadata."""
    yield from (
        Fact.select(Fact.id, Fact.metadata)
        .where((Fact.agent == agent_id) & (Fact.source == "import") & Fact.metadata.is_null(False))
        .tuples()
    )


def live_from_files(agent_id: int, files: Iterable[str]) -> Iterator[tuple[int, Any, str]]:
    """(id, metadata, content hash) of an agent's active or pending facts imported from
    these files."""
    yield from (
        Fact.select(Fact.id, Fact.metadata, Fact.content_hash)
        .where(
            (Fact.agent == agent_id)
            & Fact.status.in_(("active", "pending"))
            & (Fact.source == "import")
            & pw.fn.json_extract(Fact.metadata, _SOURCE_FILE).in_(sorted(files))
        )
        .tuples()
    )


def archived_with_flag(agent_id: int, flag: str) -> Iterator[tuple[int, str, Any]]:
    """(id, content hash, metadata) of an agent's archived facts whose metadata sets ``flag``
    (a re-import archived them because their file no longer states them)."""
    yield from (
        Fact.select(Fact.id, Fact.content_hash, Fact.metadata)
        .where(
            (Fact.agent == agent_id)
            & (Fact.status == "archived")
            & pw.fn.json_extract(Fact.metadata, f"$.{flag}").is_null(False)
        )
        .tuples()
    )

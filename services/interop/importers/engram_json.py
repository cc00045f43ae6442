"""Engram's own ``export --format json`` (``{"agent", "kind", "facts", "episodes"}``), read
back: every active, pending or archived fact with its category, importance, pin, tags, dates and
metadata; superseded and forgotten facts are history, not memories, and are left out. (The
Markdown export is Memory Setup's entry format and is read by that importer.)"""

from __future__ import annotations

import json
from pathlib import Path

from services.interop.importers.base import (
    ImportedEpisode,
    ImportedFact,
    ImportProblem,
    ParsedSource,
)
from services.interop.importers.common import head, parse_date, parse_iso

FORMAT = "engram-json"
KEEP = ("active", "pending", "archived")


def detect(path: Path) -> bool:
    if not path.is_file() or path.suffix.lower() != ".json":
        return False
    text = head(path)
    return '"agent"' in text and '"facts"' in text


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    out = ParsedSource(format=FORMAT, root=path.resolve().parent)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        out.problems.append(ImportProblem(path.name, None, f"not an Engram JSON export: {exc}"))
        return out
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
        out.problems.append(ImportProblem(path.name, None, 'no "facts" list in the file'))
        return out
    for i, f in enumerate(data["facts"]):
        fact = _fact(f, i, path.name)
        if isinstance(fact, ImportProblem):
            out.problems.append(fact)
        elif fact is not None:
            out.facts.append(fact)
    for e in data.get("episodes") or []:
        day = parse_date(str((e or {}).get("day") or ""))
        if day and (e.get("summary") or "").strip():
            out.episodes.append(
                ImportedEpisode(
                    day=day,
                    summary=e["summary"],
                    time=e.get("time"),
                    tags=list(e.get("tags") or []),
                    source_ref=e.get("source_file"),
                )
            )
    return out


def _fact(f, i: int, rel: str):
    if not isinstance(f, dict) or not str(f.get("content") or "").strip():
        return ImportProblem(rel, None, f"fact #{i + 1} has no content")
    status = f.get("status") or "active"
    if status not in KEEP:
        return None
    created = parse_iso(f.get("created_at"))
    return ImportedFact(
        content=f["content"],
        category=f.get("category") or "fact",
        importance=float(f["importance"] if f.get("importance") is not None else 0.5),
        event_date=parse_date(str(f.get("event_date") or "")),
        created_at=created,
        tags=list(f.get("tags") or []),
        source_ref=f.get("source_ref"),
        memory_type=f.get("memory_type"),
        subject=f.get("subject"),
        pinned=bool(f.get("pinned")),
        confidence=float(f["confidence"] if f.get("confidence") is not None else 0.8),
        status=status,
        metadata=dict(f.get("metadata") or {}),
    )

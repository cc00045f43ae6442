"""mem0 OpenMemory export (``POST /api/v1/backup/export``): a zip holding ``memories.json``
(the relational dump: user, apps, categories, memories, …) and ``memories.jsonl.gz`` (one memory
per line with its app name and category names). Also accepted unzipped (either member alone).

``memories.json`` wins when both are there (it carries state and timestamps for every memory);
the JSONL adds category names where the dump lacks them. ``deleted`` memories are not
imported; ``archived`` ones arrive archived, ``paused`` ones pending."""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path

from services.ingest import limits
from services.interop.importers.base import ImportedFact, ImportProblem, ParsedSource
from services.interop.importers.common import file_time, parse_iso, slug
from services.interop.importers.native import source_meta

FORMAT = "openmemory"
STATES = {"active": "active", "paused": "pending", "archived": "archived"}


def _read(path: Path) -> bytes:
    too_large = limits.file_too_large(path.stat().st_size, path.name)
    if too_large:
        raise limits.TooLarge(too_large)
    return path.read_bytes()


def _members(path: Path) -> dict[str, bytes]:
    """basename → bytes of memories.json / memories.jsonl.gz, wherever they sit; each member
    read in chunks and refused past the inflated-size cap (TooLarge)."""
    out: dict[str, bytes] = {}
    if path.is_dir():
        for name in ("memories.json", "memories.jsonl.gz", "memories.jsonl"):
            if (path / name).is_file():
                out[name] = _read(path / name)
        return out
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                base = info.filename.rsplit("/", 1)[-1]
                if base in ("memories.json", "memories.jsonl.gz"):
                    out[base] = limits.read_member_capped(z, info)
        return out
    out[path.name.lower()] = _read(path)
    return out


def detect(path: Path) -> bool:
    try:
        if path.is_file() and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                return any(n.rsplit("/", 1)[-1] == "memories.json" for n in z.namelist())
        if path.is_file() and path.name.lower() == "memories.jsonl.gz":
            return True
        f = path / "memories.json" if path.is_dir() else path
        if not f.is_file() or f.suffix.lower() != ".json":
            return False
        with f.open("rb") as fh:
            head = fh.read(1_000_000).decode("utf-8", "replace")
        return '"memories"' in head and ('"export_meta"' in head or '"memory_categories"' in head)
    except (OSError, zipfile.BadZipFile):
        return False


def _jsonl(raw: bytes) -> list[dict]:
    if raw[:2] == b"\x1f\x8b":
        raw = limits.inflate_capped(raw, what="memories.jsonl.gz")
    rows = []
    for _no, line in limits.lines_capped(raw.decode("utf-8", "replace")):
        if line is None:  # one over-long line: skipped, the rest still read
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            rows.append(obj)
    return rows


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    out = ParsedSource(format=FORMAT, root=path.resolve().parent)
    try:
        members = _members(path)
    except limits.TooLarge as exc:
        out.problems.append(ImportProblem(path.name, None, str(exc)))
        return out
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError) as exc:
        out.problems.append(ImportProblem(path.name, None, f"cannot read the export: {exc}"))
        return out
    if not members.keys() & {"memories.json", "memories.jsonl.gz", "memories.jsonl"}:
        out.problems.append(
            ImportProblem(path.name, None, "no memories.json or memories.jsonl.gz in it")
        )
        return out
    lines = {}
    for key in ("memories.jsonl.gz", "memories.jsonl"):
        if key in members:
            try:
                lines = {str(r.get("id")): r for r in _jsonl(members[key])}
            except (limits.TooLarge, zlib.error, EOFError) as exc:
                out.problems.append(ImportProblem(key, None, f"skipped: {exc}"))
    dump: dict = {}
    if "memories.json" in members:
        try:
            dump = json.loads(members["memories.json"].decode("utf-8", "replace"))
        except ValueError:
            out.problems.append(ImportProblem("memories.json", None, "not valid JSON"))
    rows = _rows(dump, lines) if isinstance(dump, dict) and dump.get("memories") else lines
    meta = source_meta(FORMAT, path.resolve(), agent="openmemory")
    fallback = file_time(path)
    for mid, row in rows.items():
        fact = _fact(mid, row, meta, fallback, path.name)
        if fact is not None:
            out.facts.append(fact)
    return out


def _rows(dump: dict, lines: dict) -> dict[str, dict]:
    cats = {c.get("id"): c.get("name") for c in dump.get("categories") or [] if isinstance(c, dict)}
    apps = {a.get("id"): a.get("name") for a in dump.get("apps") or [] if isinstance(a, dict)}
    links: dict[str, list[str]] = {}
    for mc in dump.get("memory_categories") or []:
        if isinstance(mc, dict) and (name := cats.get(mc.get("category_id"))):
            links.setdefault(str(mc.get("memory_id")), []).append(name)
    rows = {}
    for m in dump.get("memories") or []:
        if not isinstance(m, dict):
            continue
        mid = str(m.get("id"))
        extra = lines.get(mid, {})
        names = [cats[c] for c in m.get("category_ids") or [] if cats.get(c)]
        rows[mid] = {
            **m,
            "app": apps.get(m.get("app_id")) or extra.get("app"),
            "categories": names or links.get(mid) or extra.get("categories") or [],
        }
    return rows


def _fact(mid, row, meta, fallback, rel) -> ImportedFact | None:
    text = str(row.get("content") or row.get("memory") or "").strip()
    state = str(row.get("state") or "active").lower()
    if not text or state == "deleted" or row.get("deleted_at"):
        return None
    created = parse_iso(row.get("created_at")) or fallback
    cats = [str(c) for c in row.get("categories") or [] if c]
    info = {"id": mid, "app": row.get("app"), "categories": cats, "state": state}
    return ImportedFact(
        content=text,
        category="pref" if any("preference" in c.lower() for c in cats) else "fact",
        event_date=created.date(),
        created_at=created,
        tags=[
            "openmemory",
            *[slug(c) for c in cats],
            *([slug(row["app"])] if row.get("app") else []),
        ],
        source_ref=f"{rel}:{mid}",
        status=STATES.get(state, "active"),
        metadata={**meta, "openmemory": {k: v for k, v in info.items() if v}},
    )

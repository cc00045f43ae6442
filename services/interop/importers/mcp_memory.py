"""The MCP reference memory server's ``memory.jsonl`` (``MEMORY_FILE_PATH``), in the three
dialects seen: the reference one (``type: entity|relation``, ``observations: [str]``), the
timestamped one (``createdAt``, ``version`` on each line) and the Think-Tank append log
(``_type``, ``_savedAt``, observations as ``{text, timestamp}`` objects, one entity on many
lines: merged).

One fact per observation (``"<entity>: <observation>"``, with ``metadata["entity"] = {"name",
"type"}``) and one per relation (``"<from> <relation> <to>"``, with ``metadata["relation"] =
{"from", "type", "to"}``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from services.ingest import limits
from services.interop.importers.base import ImportedFact, ImportProblem, ParsedSource
from services.interop.importers.common import (
    file_time,
    infer_category,
    parse_iso,
    read_text,
    slug,
)
from services.interop.importers.native import source_meta

FORMAT = "mcp-memory"


def _kind(obj: dict) -> str | None:
    k = obj.get("type") or obj.get("_type")
    return k if k in ("entity", "relation") else None


def _file(path: Path) -> Path | None:
    if path.is_dir():
        p = path / "memory.jsonl"
        return p if p.is_file() else None
    return path if path.is_file() and path.suffix.lower() in (".jsonl", ".json") else None


def detect(path: Path) -> bool:
    f = _file(path)
    if f is None:
        return False
    # the first line that reads as JSON decides: a damaged or hostile first line (the parse
    # reports it) must not make the whole graph "not a format Engram can import"
    try:
        with f.open("rb") as fh:
            for _ in range(_DETECT_LINES):
                obj = _json_line(fh.readline(1_000_000))
                if obj is not None:
                    break
            else:
                return False
    except OSError:
        return False
    if not isinstance(obj, dict):
        return False
    kind = _kind(obj)
    return (kind == "entity" and "name" in obj) or (kind == "relation" and "from" in obj)


_DETECT_LINES = 8


def _json_line(raw: bytes) -> object | None:
    try:
        return json.loads(raw.decode("utf-8", "replace")) if raw.strip() else None
    except (ValueError, RecursionError):
        return None


def _obs_text(o) -> tuple[str, str | None]:
    if isinstance(o, dict):
        return str(o.get("text") or o.get("content") or "").strip(), o.get("timestamp")
    return str(o).strip(), None


def parse(path: Path) -> ParsedSource:
    f = _file(Path(path)) or Path(path)
    out = ParsedSource(format=FORMAT, root=f.parent.resolve())
    rel = f.name
    fallback = file_time(f)
    meta = source_meta(FORMAT, f.resolve(), agent="mcp-memory")
    seen: set[tuple] = set()
    for no, line in _lines(f, rel, out):
        if line is None:
            out.problems.append(
                ImportProblem(rel, no, f"line over {limits.max_line_bytes():,} characters: skipped")
            )
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            out.problems.append(ImportProblem(rel, no, "not a JSON line"))
            continue
        except RecursionError:  # the parser recurses per level: a hostile line, not the file
            out.problems.append(ImportProblem(rel, no, "JSON nested too deep to read"))
            continue
        if not isinstance(obj, dict) or _kind(obj) is None:
            continue
        when = parse_iso(obj.get("createdAt") or obj.get("_savedAt")) or fallback
        if _kind(obj) == "relation":
            _relation(obj, no, rel, when, meta, seen, out)
        else:
            _entity(obj, no, rel, when, meta, seen, out)
    return out


def _lines(f: Path, rel: str, out: ParsedSource):
    """The file's lines; one past the file cap is read line by line (each line capped), so
    a huge graph still imports and only an oversized line is skipped."""
    try:
        big = limits.file_too_large(f.stat().st_size) is not None
    except OSError:
        big = False
    if not big:
        text, problems = read_text(f, rel)
        out.problems.extend(problems)
        yield from limits.lines_capped(text or "")
        return
    with f.open("rb") as fh:
        for no, raw in limits.raw_lines(fh):
            yield no, None if raw is None else raw.decode("utf-8", "replace").rstrip("\r\n")


def _relation(obj, no, rel, when, meta, seen, out) -> None:
    src, rtype, dst = (str(obj.get(k) or "").strip() for k in ("from", "relationType", "to"))
    if not (src and rtype and dst) or (src, rtype, dst) in seen:
        return
    seen.add((src, rtype, dst))
    out.facts.append(
        ImportedFact(
            content=f"{src} {rtype.replace('_', ' ')} {dst}",
            category="fact",
            event_date=when.date(),
            created_at=when,
            tags=["mcp-memory", "relation", slug(rtype)],
            source_ref=f"{rel}:{no}",
            metadata={**meta, "relation": {"from": src, "type": rtype, "to": dst}},
        )
    )


def _entity(obj, no, rel, when, meta, seen, out) -> None:
    name = str(obj.get("name") or "").strip()
    etype = str(obj.get("entityType") or "").strip()
    if not name:
        out.problems.append(ImportProblem(rel, no, "entity without a name"))
        return
    for o in obj.get("observations") or []:
        text, ts = _obs_text(o)
        if not text or (name, text) in seen:
            continue
        seen.add((name, text))
        at = parse_iso(ts) or when
        out.facts.append(
            ImportedFact(
                content=f"{name}: {text}",
                category=entity_category(name, etype, text),
                event_date=at.date(),
                created_at=at,
                tags=[
                    "mcp-memory",
                    *([slug(etype)] if etype else []),
                    *(["user"] if _USER_NAMES.match(name) else []),
                ],
                source_ref=f"{rel}:{no}",
                metadata={**meta, "entity": {"name": name, "type": etype}, "observation": text},
            )
        )


_TYPE_CATEGORIES = [
    (re.compile(r"^(preference|preferences|taste|style)$", re.I), "pref"),
    (
        re.compile(r"^(rule|rules|guideline|convention|policy|instruction|constraint)s?$", re.I),
        "rule",
    ),
    (
        re.compile(
            r"^(tool|technology|software|environment|config|configuration|system|"
            r"service|server|library|framework|language|platform|machine|device)s?$",
            re.I,
        ),
        "env",
    ),
    (re.compile(r"^(task|todo|goal|issue|bug)s?$", re.I), "task"),
]
_USER_NAMES = re.compile(r"^(user|default_user|the user|me|myself|owner)$", re.I)


def entity_category(name: str, etype: str, text: str) -> str:
    """An observation is filed by its entity's type: a project's under the project, a
    person's under that person (the user's own by what it says), a tool's as environment."""
    t = etype.strip().lower()
    if _USER_NAMES.match(name.strip()) or t in ("user", "self"):
        return "pref" if infer_category(text) == "pref" else "fact"
    if t in ("project", "repository", "repo", "codebase", "product", "app", "application"):
        return f"proj:{slug(name)}"
    if t in ("person", "people", "contact", "colleague", "friend", "family"):
        return f"rel:{slug(name)}"
    for pat, cat in _TYPE_CATEGORIES:
        if pat.match(t):
            return cat
    return "fact"

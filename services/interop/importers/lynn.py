"""Lynn (LynnMerkyor/Lynn) memory dirs: ``~/.lynn/agents/<id>/memory/``.

- ``facts.db``: SQLite ``facts`` table whose columns grew over six schema versions (v1 has
  only ``id, fact, tags, time, session_id, created_at``), so columns are read by name after
  ``PRAGMA table_info``. Opened read-only (``mode=ro`` URI) and never written; an unreadable
  file is reported and the rest of the dir still imports.
- ``summaries/<session>.json`` (``{session_id, created_at, updated_at, summary, snapshot}``) and
  ``summaries/*.md``: each summary becomes an episode (its ``## Timeline``/``## 事情经过``
  part), and the bullets of ``## Key Facts``/``## 重要事实`` become facts.
- ``today.md``, ``week.md``, ``longterm.md``, ``memory.md``, ``facts.md``: compiled prose,
  kept in ``ParsedSource.compiled``. ``facts.md`` lines are imported as facts only when
  ``facts.db`` is missing or unreadable (otherwise they are copies of its rows).
- ``active-task.json`` and the shared ``$LYNN_HOME/user/user.md``: see ``lynn_state``.

Category mapping, Lynn → Engram: ``user_preference``/``preference`` → ``pref``;
``project_fact``/``project``/``project_decision`` → ``proj:<basename of project_path or
'general'>``; ``technical_decision``/``tech`` → ``rule`` when the fact reads as an instruction
(always/never/must…), else ``fact``; ``pitfall`` and ``procedure`` → ``rule``; ``task`` →
``task``; ``personal_info``/``person``, ``event``, ``model_benchmark``, ``other`` → ``fact``.
Importance: a 0–1 ``importance`` column is used as is; Lynn's ``importance_score`` (new facts
start at 10, +1 per hit, 4.5 is its "worth compiling" bar) maps to ``score / 10`` clamped to
0.05–1, and a 0 score (the migration default: "unknown") to 0.5.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import tempfile
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath, PureWindowsPath

from services.interop.importers import lynn_state
from services.interop.importers.base import (
    ImportedEpisode,
    ImportedFact,
    ImportFormatError,
    ImportProblem,
    ParsedSource,
)
from services.interop.importers.common import (
    DATE_SHAPE,
    clean,
    clock,
    day_start,
    file_time,
    has_bad_bytes,
    infer_category,
    parse_date,
    parse_iso,
    read_text,
    slug,
    split_lines,
)

FORMAT = "lynn"
COMPILED = ("today", "week", "longterm", "memory", "facts")
_KEY_FACTS = re.compile(r"^\s{0,3}#{1,6}\s*(key\s*facts|重要事实)\s*#*\s*$", re.I)
_TIMELINE = re.compile(r"^\s{0,3}#{1,6}\s*(timeline|事情经过)\s*#*\s*$", re.I)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_BULLET = re.compile(r"^\s*(?:[-*+•·]|\d+[.)、])\s+")
_NONE = {"无", "none", "(none)", "（暂无）", "暂无", "n/a", "-", "无。", "none."}
_INSTRUCTION = re.compile(
    r"\b(always|never|must|don't|do not|avoid|use .+ instead)\b|"
    r"必须|不要|禁止|务必|总是|切勿",
    re.I,
)

CATEGORY_MAP = {
    "user_preference": "pref",
    "preference": "pref",
    "project_fact": "proj",
    "project": "proj",
    "project_decision": "proj",
    "decision": "proj",
    "adr": "proj",
    "technical_decision": "tech",
    "tech": "tech",
    "personal_info": "fact",
    "person": "fact",
    "task": "task",
    "todo": "task",
    "pitfall": "rule",
    "bug": "rule",
    "gotcha": "rule",
    "lesson": "rule",
    "procedure": "rule",
    "runbook": "rule",
    "playbook": "rule",
    "workflow": "rule",
    "event": "fact",
    "model_benchmark": "fact",
    "benchmark": "fact",
    "other": "fact",
}


def memory_dir(path: Path) -> Path | None:
    """The Lynn memory dir for ``path`` (the dir itself, its agent dir, or ``facts.db``)."""
    if path.is_file():
        return path.parent if path.name == "facts.db" else None
    for d in (path, path / "memory"):
        if not d.is_dir():
            continue
        if (d / "facts.db").is_file() or (d / "memories.db").is_file():
            return d
        if (d / "memories").is_dir() or (d / "episodes").is_dir():
            continue  # a Memory Setup workspace that happens to keep a summaries/ folder
        s = d / "summaries"
        if s.is_dir() and any(p.suffix in (".json", ".md") for p in s.iterdir()):
            return d
        if sum((d / f"{n}.md").is_file() for n in ("today", "week", "longterm")) >= 2:
            return d
        if _assembled(d / "memory.md"):
            return d
        # other tools keep an active-task.json too: only Lynn's agents/<id>/memory/ one counts
        if (d / lynn_state.TASK_FILE).is_file() and lynn_state.agent_id(d.resolve()):
            return d
    return None


_ASSEMBLED = (
    re.compile(r"^##\s*(重要事实|key facts)\s*$", re.I | re.M),
    re.compile(r"^##\s*(今天|today)\s*$", re.I | re.M),
)


def _assembled(f: Path) -> bool:
    """Lynn's memory.md: the 'key facts' and 'today' sections of its assemble()."""
    if not f.is_file() or f.name != "memory.md":
        return False
    try:
        head = f.read_bytes()[:200_000].decode("utf-8", errors="replace")
    except OSError:
        return False
    return all(p.search(head) for p in _ASSEMBLED)


def detect(path: Path) -> bool:
    return path.exists() and memory_dir(path) is not None


def parse(path: Path) -> ParsedSource:
    d = memory_dir(Path(path))
    if d is None:
        raise ImportFormatError(
            f"{path}: not a Lynn memory dir (no facts.db, summaries/, "
            "active-task.json or compiled today/week/longterm.md)"
        )
    d = d.resolve()
    out = ParsedSource(format=FORMAT, root=d)
    db_ok = False
    if (d / "facts.db").is_file():
        db_ok = _parse_facts_db(d / "facts.db", out)
    if _legacy_pending(d):
        _parse_legacy_db(d / "memories.db", out)
    s = d / "summaries"
    if s.is_dir():
        for f in sorted(s.iterdir()):
            if f.is_file() and f.suffix == ".json":
                _parse_summary_json(f, d, out)
            elif f.is_file() and f.suffix == ".md":
                _parse_summary_md(f, d, out)
    for name in COMPILED:
        f = d / f"{name}.md"
        if not f.is_file():
            continue
        text, problems = read_text(f, f.name)
        out.problems.extend(problems)
        if text is None:
            continue
        out.compiled[name] = clean(text)
        if name == "facts" and not db_ok:
            _facts_md(f, text, out)
    if (d / lynn_state.TASK_FILE).is_file():
        lynn_state.parse_active_task(d / lynn_state.TASK_FILE, d, out)
    profile = lynn_state.user_profile(d)
    if profile is not None:
        lynn_state.parse_user_profile(profile, out)
    return out


# --- facts.db -----------------------------------------------------------------------------
def _connect(db: Path) -> sqlite3.Connection:
    # Read-only always. With no -wal beside it (Lynn closed cleanly) the file is read as
    # immutable, so not even -shm/-wal side files appear in the user's folder.
    live = Path(str(db) + "-wal").exists()
    uri = f"{db.resolve().as_uri()}?mode=ro{'' if live else '&immutable=1'}"
    con = sqlite3.connect(uri, uri=True, timeout=5)
    # Keep undecodable bytes so one bad row is reported instead of failing the whole table.
    con.text_factory = lambda b: b.decode("utf-8", errors="surrogateescape")
    con.execute("PRAGMA query_only = ON")
    return con


def _read_rows(db: Path, table: str, needed: str) -> tuple[list[str], list[tuple]]:
    con = _connect(db)
    try:
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
        if not cols:
            raise LookupError(f"has no '{table}' table")
        if needed not in cols:
            raise LookupError(f"its '{table}' table has no '{needed}' column")
        rows = con.execute(
            f"SELECT {', '.join(cols)} FROM {table} ORDER BY {'id' if 'id' in cols else 'rowid'}"
        ).fetchall()
        return cols, rows
    finally:
        con.close()


def _rows(db: Path, table: str, needed: str, out: ParsedSource):
    """(columns, rows) or None after reporting why the database could not be read."""
    name = db.name
    try:
        try:
            return _read_rows(db, table, needed)
        except sqlite3.OperationalError as exc:
            if "unable to open" not in str(exc):
                raise
            # A WAL database in a read-only folder cannot be opened in place: read a copy.
            with tempfile.TemporaryDirectory() as tmp:
                for suffix in ("", "-wal"):
                    src = Path(str(db) + suffix)
                    if src.is_file():
                        shutil.copy2(src, Path(tmp) / (name + suffix))
                return _read_rows(Path(tmp) / name, table, needed)
    except LookupError as exc:
        out.problems.append(ImportProblem(name, None, f"{name} {exc}; its facts were not imported"))
    except sqlite3.DatabaseError as exc:
        out.problems.append(
            ImportProblem(
                name,
                None,
                f"{name} is not a readable SQLite database ({exc}); its facts were "
                "not imported, the rest of the folder was",
            )
        )
    return None


def _parse_facts_db(db: Path, out: ParsedSource) -> bool:
    got = _rows(db, "facts", "fact", out)
    if got is None:
        return False
    cols, rows = got
    scale = _importance_scale(cols, rows)
    for row in rows:
        r = dict(zip(cols, row))
        item = _fact_from_row(r, scale)
        if isinstance(item, ImportProblem):
            out.problems.append(item)
        else:
            out.facts.append(item)
    return True


def _legacy_pending(d: Path) -> bool:
    """memories.db (Lynn v1) is migrated into facts.db once; read it only if that never
    happened (no ``.v2-migrated`` marker, or one that says the migration failed)."""
    if not (d / "memories.db").is_file():
        return False
    marker = d / ".v2-migrated"
    if not marker.is_file():
        return True
    try:
        return marker.read_text(encoding="utf-8", errors="replace").startswith("failed")
    except OSError:
        return True


def _parse_legacy_db(db: Path, out: ParsedSource) -> None:
    got = _rows(db, "memories", "content", out)
    if got is None:
        return
    cols, rows = got
    for n, row in enumerate(rows, 1):
        r = dict(zip(cols, row))
        text = str(r.get("content") or "").strip()
        if not text:
            out.problems.append(ImportProblem(db.name, None, f"row {n}: empty memory"))
            continue
        if has_bad_bytes(text):
            out.problems.append(ImportProblem(db.name, None, f"row {n}: not UTF-8 text"))
            continue
        tags = _tags(r.get("tags"))
        day = parse_date(str(r.get("date") or "")[:10])
        created = parse_iso(r.get("created_at")) or (day_start(day) if day else None)
        out.facts.append(
            ImportedFact(
                content=text,
                category=map_category(None, text, tags),
                tags=tags,
                event_date=day or (created.date() if created else None),
                created_at=created,
                source_ref=f"{db.name}#{n}",
                metadata={"lynn_legacy": True},
            )
        )


def _importance_scale(cols, rows) -> float | None:
    if "importance" in cols:
        return 1.0
    if "importance_score" not in cols:
        return None
    i = cols.index("importance_score")
    top = max((float(r[i]) for r in rows if isinstance(r[i], (int, float))), default=0.0)
    # a table whose scores all sit in 0–1 was written on a 0–1 scale
    return 1.0 if 0 < top <= 1.0 else 10.0


def _importance(r: dict, scale: float | None) -> float:
    raw = r.get("importance", r.get("importance_score"))
    if scale is None or not isinstance(raw, (int, float)):
        return 0.5
    if scale == 10.0 and raw == 0:
        return 0.5
    return round(min(1.0, max(0.05 if scale == 10.0 else 0.0, float(raw) / scale)), 3)


def _tags(raw) -> list[str]:
    if not raw:
        return []
    try:
        val = json.loads(raw)
    except (TypeError, ValueError):
        val = [t for t in re.split(r"[,，]", str(raw))]
    if isinstance(val, str):
        val = [val]
    if not isinstance(val, list):
        return []
    return list(dict.fromkeys(clean(str(t)).strip() for t in val if str(t).strip()))


def _project(path) -> str:
    if not path or not str(path).strip():
        return "general"
    p = str(path).strip().rstrip("/\\")
    name = (PureWindowsPath(p) if "\\" in p else PurePosixPath(p)).name
    return slug(name) if name else "general"


def map_category(lynn_cat: str | None, text: str, tags: list[str], project_path=None) -> str:
    key = (lynn_cat or "").strip().lower().replace(" ", "_").replace("-", "_")
    if not key or key == "other":
        # v1–v3 rows have no category column; Lynn's own backfill reads tags too.
        for t in tags:
            if t.lower() in CATEGORY_MAP and CATEGORY_MAP[t.lower()] != "fact":
                key = t.lower()
                break
    mapped = CATEGORY_MAP.get(key)
    if mapped == "proj":
        return f"proj:{_project(project_path)}"
    if mapped == "tech":
        return "rule" if _INSTRUCTION.search(text) else "fact"
    if mapped:
        return mapped
    return infer_category(text) if not key or key not in CATEGORY_MAP else "fact"


def _fact_from_row(r: dict, scale) -> ImportedFact | ImportProblem:
    rid = r.get("id")
    where = f"row id {rid}" if rid is not None else "a row"
    text = r.get("fact")
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="surrogateescape")
    text = (str(text) if text is not None else "").strip()
    if has_bad_bytes(text):
        return ImportProblem("facts.db", None, f"{where}: fact is not UTF-8 text")
    if not text:
        return ImportProblem("facts.db", None, f"{where}: empty fact")
    tags = _tags(r.get("tags"))
    when = parse_iso(r.get("time"))
    created = parse_iso(r.get("created_at")) or when
    conf = r.get("confidence")
    meta = {
        k: clean(r[k]) if isinstance(r[k], str) else r[k]
        for k in ("session_id", "project_path", "source", "evidence", "hit_count", "harmful_count")
        if r.get(k) not in (None, "", 0)
    }
    if r.get("category"):
        meta["lynn_category"] = clean(str(r["category"]))
    if rid is not None:
        meta["lynn_id"] = rid
    return ImportedFact(
        content=text,
        category=map_category(r.get("category"), text, tags, r.get("project_path")),
        importance=_importance(r, scale),
        event_date=day.date() if (day := when or created) else None,
        created_at=created,
        tags=tags,
        source_ref=f"facts.db#{rid}" if rid is not None else "facts.db",
        confidence=min(1.0, max(0.0, float(conf))) if isinstance(conf, (int, float)) else 0.8,
        metadata=meta,
    )


# --- summaries ----------------------------------------------------------------------------
def _sections(text: str):
    """(key-fact lines with offsets, timeline text or None, remaining text)."""
    facts: list[tuple[int, str]] = []
    timeline: list[str] = []
    other: list[str] = []
    mode = None
    for i, ln in enumerate(split_lines(text)):
        if _KEY_FACTS.match(ln):
            mode = "facts"
            continue
        if _TIMELINE.match(ln):
            mode = "timeline"
            continue
        if _HEADING.match(ln):
            mode = None
            other.append(ln)
            continue
        if mode == "facts":
            item = _BULLET.sub("", ln, count=1).strip()
            if item and item.lower() not in _NONE:
                facts.append((i, item))
        elif mode == "timeline":
            timeline.append(ln)
        else:
            other.append(ln)
    tl = "\n".join(timeline).strip()
    return facts, (tl or None), "\n".join(other).strip()


def _summary_items(
    rel: str,
    text: str,
    day,
    created: datetime,
    time: str | None,
    session: str | None,
    line_refs: bool,
    out: ParsedSource,
) -> None:
    facts, timeline, other = _sections(text)
    for off, item in facts:
        if has_bad_bytes(item):
            out.problems.append(
                ImportProblem(
                    rel, off + 1 if line_refs else None, "invalid UTF-8 bytes in a key fact"
                )
            )
            continue
        out.facts.append(
            ImportedFact(
                content=item,
                category=infer_category(item),
                event_date=day,
                created_at=created,
                tags=["lynn-summary"],
                source_ref=f"{rel}:{off + 1}" if line_refs else rel,
                metadata={"session_id": session} if session else {},
            )
        )
    summary = timeline or other
    if summary and has_bad_bytes(summary):
        out.problems.append(
            ImportProblem(
                rel,
                None,
                "invalid UTF-8 bytes in the session summary; its episode was not imported",
            )
        )
    elif summary:
        out.episodes.append(
            ImportedEpisode(
                day=day, summary=summary, time=time, source_ref=rel, session_ref=session
            )
        )


def _parse_summary_json(f: Path, root: Path, out: ParsedSource) -> None:
    rel = f.relative_to(root).as_posix()
    text, problems = read_text(f, rel)
    out.problems.extend(problems)
    if text is None:
        return
    try:
        data = json.loads(text)
    except ValueError as exc:
        out.problems.append(
            ImportProblem(
                rel, getattr(exc, "lineno", None), f"not valid JSON ({getattr(exc, 'msg', exc)})"
            )
        )
        return
    if not isinstance(data, dict) or not isinstance(data.get("summary"), str):
        out.problems.append(ImportProblem(rel, None, "no 'summary' text in this session summary"))
        return
    if not data["summary"].strip():
        return  # a session with nothing summarised yet
    created = (
        parse_iso(data.get("created_at"))
        or parse_iso(data.get("updated_at"))
        or _name_date(f)
        or file_time(f)
    )
    day, time = _local_day_and_time(created, data["summary"])
    session = clean(str(data.get("session_id") or f.stem))
    # line numbers inside a JSON string are not file lines: refer to the file as a whole
    _summary_items(rel, data["summary"], day, created, time, session, False, out)


_STAMP = re.compile(r"^\s*(?:[-*•]\s*)?\[?(\d{1,2}):(\d{2})\]?", re.M)


def _local_day_and_time(created_utc: datetime, summary: str):
    """Lynn stamps files in UTC but writes the timeline in the user's local HH:MM. The first
    stamp gives the session's local start time, and its distance from the UTC time (rounded
    to a quarter hour) the local day, so a late-evening session lands on the right date."""
    _, timeline, _ = _sections(summary)
    m = _STAMP.search(timeline or "")
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        return created_utc.date(), clock(created_utc.hour, created_utc.minute)
    h, mi = int(m.group(1)), int(m.group(2))
    diff = (h * 60 + mi) - (created_utc.hour * 60 + created_utc.minute)
    while diff > 14 * 60:
        diff -= 1440
    while diff < -12 * 60:
        diff += 1440
    local = created_utc + timedelta(minutes=round(diff / 15) * 15)
    return local.date(), clock(h, mi)


def _name_date(f: Path) -> datetime | None:
    m = DATE_SHAPE.search(f.stem)
    d = parse_date(m.group(0)) if m else None
    return day_start(d) if d else None


def _parse_summary_md(f: Path, root: Path, out: ParsedSource) -> None:
    rel = f.relative_to(root).as_posix()
    text, problems = read_text(f, rel)
    out.problems.extend(problems)
    if text is None or not text.strip():
        return
    created = _name_date(f) or file_time(f)
    time = None if _name_date(f) else clock(created.hour, created.minute)
    _summary_items(rel, text, created.date(), created, time, f.stem, True, out)


def _facts_md(f: Path, text: str, out: ParsedSource) -> None:
    created = file_time(f)
    for no, ln in enumerate(split_lines(text), 1):
        item = _BULLET.sub("", ln, count=1).strip()
        if not item or _HEADING.match(ln) or item.lower() in _NONE:
            continue
        if has_bad_bytes(item):
            out.problems.append(ImportProblem("facts.md", no, "invalid UTF-8 bytes"))
            continue
        out.facts.append(
            ImportedFact(
                content=item,
                category=infer_category(item),
                event_date=created.date(),
                created_at=created,
                tags=["lynn-facts-md"],
                source_ref=f"facts.md:{no}",
            )
        )

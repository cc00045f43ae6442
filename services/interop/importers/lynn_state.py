"""Lynn's state files beside the memory: the agent's ``memory/active-task.json`` and the user
profile ``$LYNN_HOME/user/user.md`` that all agents share.

Active task (``{title, status, goal, next_step, project_path, notes[], evidence[], source,
updated_at}``, written by Lynn's ``ActiveTaskMemory``): one ``task`` fact dated by
``updated_at``, with the subject ``lynn:active-task:<agent id>`` so the next version of the
task supersedes the one imported before (the agent id keeps two Lynn agents imported into one
Engram agent from replacing each other's task). Decisions:

- ``active``/``blocked``: importance 0.8. ``done`` and ``idle`` (with a title): kept as history
  at importance 0.3, and they still supersede the earlier active version, which is over.
- A file with no task in it (``idle`` and no title, or no title, goal, next step or notes,
  which Lynn itself reads as "no task") adds nothing and says so in the report.
- The status leads the text ("Blocked task: …", "Finished task: …") rather than trailing it:
  a status-only change must stay below the ingest near-duplicate bar (0.95 cosine).
- Notes are appended as ``Note:`` lines when short (≤ 3 notes of ≤ 120 chars), else only
  kept in metadata with the evidence, project path and Lynn's ``source``.
- Malformed JSON, a field of the wrong type or bytes that are not UTF-8: the file is reported
  (with its line when known) and skipped; the rest of the dir imports.

User profile: read like a hand-written Hermes ``USER.md`` (``entries.lenient_entry``: profile
lines, placeholders, category inference, ``user`` tag), but one fact per bullet or line, since
Lynn's profile is typed into a settings box one statement per line. An indented line
continues the bullet above it, and a plain line continues the one above when that looks
hard-wrapped English (≥ 60 chars, broken after a word or comma).
Headings are context (tags, category hints), not facts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from services.interop.importers.base import ImportedFact, ImportProblem, ParsedSource
from services.interop.importers.common import (
    file_time,
    is_decoration,
    parse_iso,
    profile_line,
    read_text,
    slug,
    split_lines,
)
from services.interop.importers.entries import FileContext, lenient_entry, sort_entry

TASK_FILE = "active-task.json"
_STR_FIELDS = ("title", "status", "goal", "next_step", "project_path", "source", "updated_at")
_LIST_FIELDS = ("notes", "evidence")
_HEADS = {
    "active": "Active task",
    "blocked": "Blocked task",
    "idle": "Paused task",
    "done": "Finished task",
}
_IMPORTANCE = {"active": 0.8, "blocked": 0.8, "idle": 0.3, "done": 0.3}
_SHORT_NOTE, _MAX_NOTES = 120, 3


def agent_id(memory_dir: Path) -> str | None:
    """``<id>`` when the dir sits at ``…/agents/<id>/memory`` (Lynn's layout)."""
    return memory_dir.parent.name if memory_dir.parent.parent.name == "agents" else None


def user_profile(memory_dir: Path) -> Path | None:
    """``$LYNN_HOME/user/user.md``, three levels above the memory dir. Only looked for in
    Lynn's own layout, so a stray ``memory/`` folder never pulls in an unrelated file."""
    if agent_id(memory_dir) is None:
        return None
    f = memory_dir.parent.parent.parent / "user" / "user.md"
    return f if f.is_file() else None


def display_path(p: Path) -> str:
    """How reports name a file outside the imported dir: ``~/.lynn/user/user.md``."""
    try:
        return "~/" + p.relative_to(Path.home()).as_posix()
    except (ValueError, RuntimeError):
        return p.as_posix()


# --- active-task.json ---------------------------------------------------------------------
def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _key_line(text: str, key: str) -> int | None:
    m = re.search(rf'"{re.escape(key)}"\s*:', text)
    return _line_of(text, m.start()) if m else None


def _type_problem(data: dict, text: str) -> ImportProblem | None:
    for k in _STR_FIELDS:
        if data.get(k) is not None and not isinstance(data[k], str):
            return ImportProblem(
                TASK_FILE,
                _key_line(text, k),
                f"'{k}' should be text, not {type(data[k]).__name__}; the task was not imported",
            )
    for k in _LIST_FIELDS:
        v = data.get(k)
        if v is not None and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
            return ImportProblem(
                TASK_FILE,
                _key_line(text, k),
                f"'{k}' should be a list of texts; the task was not imported",
            )
    return None


def _task_text(status: str, title: str, goal: str, step: str, notes: list[str]) -> str:
    text = f"{_HEADS[status]}: {title or goal}"
    if title and goal:
        text += f" — goal: {goal}"
    if step and status != "done":  # a finished task's next step is stale
        text += f"; next: {step}"
    if len(notes) <= _MAX_NOTES and all(len(n) <= _SHORT_NOTE for n in notes):
        text += "".join(f"\nNote: {n}" for n in notes)
    return text


def _load_task(f: Path) -> dict | list[ImportProblem]:
    text, problems = read_text(f, TASK_FILE)
    if text is None:
        return problems
    bad = re.search("[\udc80-\udcff]", text)
    if bad:
        return [
            ImportProblem(
                TASK_FILE,
                _line_of(text, bad.start()),
                "invalid UTF-8 bytes; the task was not imported",
            )
        ]
    try:
        data = json.loads(text)
    except ValueError as exc:
        return [
            ImportProblem(
                TASK_FILE,
                getattr(exc, "lineno", None),
                f"not valid JSON ({getattr(exc, 'msg', exc)})",
            )
        ]
    if not isinstance(data, dict):
        return [ImportProblem(TASK_FILE, None, "not a task object; nothing was imported from it")]
    wrong = _type_problem(data, text)
    return [wrong] if wrong else data


def parse_active_task(f: Path, memory_dir: Path, out: ParsedSource) -> None:
    data = _load_task(f)
    if isinstance(data, list):
        out.problems.extend(data)
        return
    s = {k: (data.get(k) or "").strip() for k in _STR_FIELDS}
    notes = [n.strip() for n in data.get("notes") or [] if n.strip()]
    # Lynn reads an unknown status as "active" (ActiveTaskMemory.normalizeStatus)
    status = s["status"].lower().replace(" ", "_")
    status = status if status in _HEADS else "active"
    title, goal, step = s["title"], s["goal"], s["next_step"]
    if (status == "idle" and not title) or not (title or goal or step or notes):
        out.problems.append(
            ImportProblem(
                TASK_FILE, None, f"no current task (status {status}, no title); nothing to import"
            )
        )
        return
    shown = notes
    if not (title or goal):  # name the task by what it has, and don't repeat that below
        title, step, shown = (step, "", notes) if step else (notes[0], "", notes[1:])
    meta = {
        "lynn_status": s["status"] or status,
        "project_path": s["project_path"],
        "source": s["source"],
        "notes": notes,
        "evidence": [e.strip() for e in data.get("evidence") or [] if e.strip()],
    }
    meta = {k: v for k, v in meta.items() if v}
    created = parse_iso(s["updated_at"])
    if created is None:
        created = file_time(f)
        meta["date_source"] = "file"
    tags = ["lynn-task", status]
    if s["project_path"]:
        tags.append(slug(re.split(r"[\\/]", s["project_path"].rstrip("/\\"))[-1]))
    aid = agent_id(memory_dir)
    out.facts.append(
        ImportedFact(
            content=_task_text(status, title, goal, step, shown),
            category="task",
            importance=_IMPORTANCE[status],
            event_date=created.date(),
            created_at=created,
            tags=tags,
            source_ref=TASK_FILE,
            subject=f"lynn:active-task:{slug(aid)}" if aid else "lynn:active-task",
            metadata=meta,
        )
    )


# --- user/user.md -------------------------------------------------------------------------
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+•·]|\d+[.)、])\s+")
_LABEL = re.compile(r"^\s*[^\s:：.!?。][^:：.!?。]{0,39}[:：]\s+\S")
_OPEN_END = re.compile(r"[A-Za-z0-9,\-–]$")  # English prose broken at a word or comma
_WRAP_AT = 60


def _profile_items(text: str):
    """(line number, text, section heading) per bullet or line of a user profile."""
    items: list[tuple[int, str, str | None]] = []
    section = None
    kind = None  # of the last item: "plain", "bullet", or None when nothing may continue it
    for no, ln in enumerate(split_lines(text), 1):
        h = _HEADING.match(ln)
        if h:
            if len(h.group(1)) >= 2:  # "# Title" names the file, not a topic
                section = h.group(2) or None
            kind = None
            continue
        if not ln.strip() or is_decoration(ln, preamble=not items and section is None):
            kind = None
            continue
        profile = profile_line(ln) is not None
        bullet = bool(_BULLET.match(ln))
        last = items[-1][1] if items else ""
        indented = ln[:1] in (" ", "\t")
        wrapped = len(last) >= _WRAP_AT and _OPEN_END.search(last)
        if not (profile or bullet) and (
            (kind == "bullet" and indented)
            or (kind == "plain" and not _LABEL.match(ln) and (indented or wrapped))
        ):
            items[-1] = (items[-1][0], f"{last.rstrip()} {ln.strip()}", items[-1][2])
            continue
        items.append((no, ln if profile else _BULLET.sub("", ln, count=1), section))
        kind = None if profile else "bullet" if bullet else "plain"
    return items


def parse_user_profile(f: Path, out: ParsedSource) -> None:
    rel = display_path(f)
    text, problems = read_text(f, rel)
    out.problems.extend(problems)
    if text is None:
        return
    ctx = FileContext(
        rel=rel, fallback=file_time(f), user_file=True, extra_tags=("user", "lynn-user")
    )
    for no, line, section in _profile_items(text):
        sort_entry(lenient_entry(no, [line], ctx, section), out.facts, out.problems)

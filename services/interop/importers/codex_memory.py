"""Codex memories (opt-in): ``~/.codex/memories/<hash>/memory/`` and
``~/.codex/memories/user/memory/`` hold ``memory_summary.md`` (profile, preferences, tips),
``MEMORY.md`` (``# Task Group:`` sections of task learnings) and ``raw_memories.md`` or
``raw_memories/`` (per-thread notes). A background pipeline writes them; statements become
facts, the bookkeeping lines (``updated_at:``, ``cwd:``, ``rollout_path:``, keyword lists,
rollout file lists) do not. Since late 2026 the folder is flat (``~/.codex/memories/`` itself
holds the files, kept as a git repository); ``rollout_summaries/*.md`` are one summary per past
session: they become episodes, not facts.
"""

from __future__ import annotations

import re
from pathlib import Path

from services.interop.importers import frontmatter
from services.interop.importers.base import ParsedSource
from services.interop.importers.common import file_time, infer_category, read_text
from services.interop.importers.mdreader import split_statements
from services.interop.importers.native import (
    heading_category,
    open_source,
    rel_name,
    section_tags,
    source_meta,
    statement_fact,
)
from services.interop.importers.polarity import plain

FORMAT = "codex-memory"
_BOOKKEEPING = re.compile(
    r"^(updated_at|created_at|cwd|rollout_path|rollout_summary_file|thread_id|git_branch|"
    r"description|task|task_group|task_outcome|keywords|scope|applies_to|id)\s*:",
    re.I,
)
# Bookkeeping and step-by-step logs, not knowledge to keep.
_SKIP_SECTIONS = re.compile(
    r"rollout_summary_files|keywords|rollout summaries|^references$|^key steps$", re.I
)
_TASK_GROUP = re.compile(r"^#\s+Task Group:", re.M)


def _memory_files(d: Path) -> list[Path]:
    out = [d / n for n in ("memory_summary.md", "MEMORY.md", "raw_memories.md")]
    out = [p for p in out if p.is_file()]
    raw = d / "raw_memories"
    if raw.is_dir():
        out += sorted(p for p in raw.rglob("*.md") if p.is_file())
    return out


def folder_of(path: Path) -> Path | None:
    d = path if path.is_dir() else path.parent
    if d.is_dir() and (d / "memory").is_dir():
        d = d / "memory"
    if not d.is_dir():
        return None
    if (d / "memory_summary.md").is_file() or (d / "raw_memories.md").is_file():
        return d
    if (d / "raw_memories").is_dir() or (d / "rollout_summaries").is_dir():
        return d
    idx = d / "MEMORY.md"
    if idx.is_file() and ".codex" in d.parts:
        return d
    if idx.is_file():
        try:
            head = idx.read_bytes()[:8192].decode("utf-8", "replace")
        except OSError:
            return None
        return d if _TASK_GROUP.search(head) else None
    return None


def detect(path: Path) -> bool:
    if path.is_file() and path.name not in ("memory_summary.md", "raw_memories.md", "MEMORY.md"):
        return path.parent.name == "raw_memories" and folder_of(path.parent.parent) is not None
    return folder_of(path) is not None


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    folder = folder_of(path) or (path if path.is_dir() else path.parent)
    out = ParsedSource(format=FORMAT, root=folder.resolve())
    files = [path] if path.is_file() else _memory_files(folder)
    scope = "user" if folder.parent.name == "user" else folder.parent.name
    if path.is_dir():
        _rollout_summaries(folder, out)
    for f in files:
        rel = rel_name(f, folder)
        text = open_source(f, rel, out)
        if text is None:
            continue
        _parse_text(f, rel, text, scope, out)
    return out


def _parse_text(f: Path, rel: str, text: str, scope: str, out: ParsedSource) -> None:
    fm, body, first = frontmatter.split(text)
    meta = source_meta(FORMAT, f.resolve(), agent="codex", codex_scope=scope)
    created = file_time(f)
    for st in split_statements(body, first):
        if any(_SKIP_SECTIONS.search(s) for s in [*st.sections, plain(st.lead or "")] if s):
            continue
        kept = [ln for ln in st.text.split("\n") if not _BOOKKEEPING.match(ln.strip())]
        if not "".join(kept).strip() or kept[0].strip() == "---":
            continue
        if len(kept) != len(st.text.split("\n")):
            st.lines = kept
            st.kind = "para"
            st.composed = None
        # "Task Group" / "Task N" head learnings from past tasks, not open tasks
        cat = heading_category(st.sections) or "fact"
        if cat in ("task", "fact"):
            cat = infer_category(st.fact)
        tags = ["codex-memory", *section_tags(st.sections, skip_title=False)[:3]]
        out.facts.append(
            statement_fact(st, rel, category=cat, meta=meta, created=created, tags=tags)
        )


_DAY = re.compile(r"(20\d\d)-(\d\d)-(\d\d)")


def _rollout_summaries(folder: Path, out: ParsedSource) -> None:
    """One episode per past session: its summary's prose (bookkeeping lines left out), dated
    by the date in its name, else by the file."""
    from datetime import date

    from services.interop.importers.base import ImportedEpisode

    for f in sorted((folder / "rollout_summaries").glob("*.md")):
        rel = rel_name(f, folder)
        text, problems = read_text(f, rel)
        out.problems.extend(problems)
        if text is None:
            continue
        _, body, _ = frontmatter.split(text)
        lines = [
            ln.strip()
            for ln in body.splitlines()
            if ln.strip() and not ln.lstrip().startswith("#") and not _BOOKKEEPING.match(ln.strip())
        ]
        summary = " ".join(lines)[:1200].strip()
        if not summary:
            continue
        m = _DAY.search(f.name)
        day = date(int(m[1]), int(m[2]), int(m[3])) if m else file_time(f).date()
        out.sources.append(str(f.resolve()))
        out.episodes.append(
            ImportedEpisode(
                day=day,
                summary=summary,
                tags=["codex", "rollout-summary"],
                source_ref=str(f.resolve()),
            )  # fmt: skip
        )

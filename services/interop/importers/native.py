"""What the importers of agents' own files (instruction files, Claude Code and Codex memory,
basic-memory, the MCP memory server, OpenMemory) share: how a statement becomes a fact, how a
heading becomes a category, and the metadata that ties a fact to the file it came from.

``metadata["lifecycle"] = "source"`` marks a fact whose life the source owns: the agent or
the user keeps it in their file, so Engram's TTLs and decay leave it alone (see
``services.lifecycle.gc.source_owned``). ``metadata["source_file"]`` (absolute path) lets a
re-import archive what the file no longer says and lets write-back find the lines again.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from pathlib import Path

from services.interop.importers.base import ImportedFact
from services.interop.importers.common import infer_category, read_text, slug
from services.interop.importers.mdreader import Statement

SOURCE_LIFECYCLE = "source"

# A heading says what the statements under it are; the first match wins.
HEADING_CATEGORIES = [
    (re.compile(r"prefer|taste|likes|偏好|习惯", re.I), "pref"),
    (re.compile(r"environment|\benv\b|setup|install|tooling|machine|环境|配置", re.I), "env"),
    (re.compile(r"\btodo\b|\btasks?\b|next steps|roadmap|backlog|待办", re.I), "task"),
    (
        re.compile(
            r"decision|architecture|structure|overview|about|product|context|background|"
            r"stack|known issues|workaround|glossary|reference|profile|who\b|facts?\b",
            re.I,
        ),
        "fact",
    ),
]


def heading_category(sections: list[str]) -> str | None:
    for title in reversed(sections):
        for pat, cat in HEADING_CATEGORIES:
            if pat.search(title):
                return cat
    return None


def rule_category(text: str, sections: list[str]) -> str:
    """Instruction files: a statement is a ``rule`` unless its heading or its wording says it
    is a preference, an environment note, a task or a plain fact."""
    if infer_category(text, default="") == "rule":
        return "rule"
    # "Prefer X" in a rules file is still a rule: only its heading says otherwise
    return heading_category(sections) or "rule"


def section_tags(sections: list[str], skip_title: bool = True) -> list[str]:
    """Heading path → tags; a lone H1 that only names the file is skipped."""
    return [slug(s) for s in (sections[1:] if skip_title and len(sections) > 1 else sections)]


def source_meta(fmt: str, path: Path, **extra) -> dict:
    return {
        "lifecycle": SOURCE_LIFECYCLE,
        "source_format": fmt,
        "source_file": str(path),
        **{k: v for k, v in extra.items() if v not in (None, "", [], {})},
    }


def block_hash(st: Statement) -> str:
    """The block a fact came from, as write-back finds it again (text never leaves the store)."""
    raw = "\n".join(st.lines).encode("utf-8", "surrogateescape")
    return hashlib.sha256(raw).hexdigest()[:32]


def statement_fact(
    st: Statement,
    rel: str,
    *,
    category: str,
    meta: dict,
    created: datetime,
    tags: list[str] | None = None,
    pinned: bool = False,
    subject: str | None = None,
) -> ImportedFact:
    return ImportedFact(
        content=st.fact,
        category=category,
        importance=0.7 if pinned or category == "rule" else 0.5,
        event_date=created.date(),
        created_at=created,
        tags=list(dict.fromkeys(t for t in (tags or []) if t)),
        source_ref=f"{rel}:{st.start}",
        subject=subject,
        pinned=pinned,
        metadata={**meta, "source_lines": [st.start, st.end], "source_hash": block_hash(st)},
    )


def open_source(path: Path, rel: str, out) -> str | None:
    """A source file's text, its problems recorded on ``out`` (a ParsedSource) and the file
    named among its sources; None when it is not readable text."""
    text, problems = read_text(path, rel)
    out.problems.extend(problems)
    if text is not None:
        out.sources.append(str(path.resolve()))
    return text


def open_note(path: Path, root: Path, out) -> tuple[str, dict, str, int] | None:
    """A Markdown source (``open_source``) split at its frontmatter: (its name under ROOT,
    frontmatter, body, the body's first line); None when it is not readable text."""
    from services.interop.importers import frontmatter

    rel = rel_name(path, root)
    text = open_source(path, rel, out)
    if text is None:
        return None
    return (rel, *frontmatter.split(text))


def rel_name(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name

"""Claude Code auto memory: ``~/.claude/projects/<path with / as ->/memory/`` (or a copy
committed as ``.claude/memory/``): ``MEMORY.md``, an index of links to topic files, and topic
files ``<type>_<slug>.md`` with frontmatter ``name``, ``description``, ``type:
user|feedback|project|reference`` (sometimes nested under ``metadata:``).

One fact per statement of a topic file; ``**Why:**`` / ``**How to apply:**`` paragraphs stay
with the rule they explain. The frontmatter becomes category and metadata, never text:
``feedback`` → ``rule`` (``pref`` when it states a preference), ``project`` →
``proj:<project>``, ``user`` → a fact about the user, ``reference`` → ``reference``. Index lines
that only point at a topic file are not facts; prose a person grew in ``MEMORY.md`` is.
"""

from __future__ import annotations

import re
from pathlib import Path

from services.interop.importers import frontmatter
from services.interop.importers.base import ImportProblem, ParsedSource
from services.interop.importers.common import file_time, head, infer_category, slug
from services.interop.importers.mdreader import Statement, split_statements
from services.interop.importers.native import (
    open_note,
    rel_name,
    section_tags,
    source_meta,
    statement_fact,
)
from services.interop.importers.notmemory import refusal

FORMAT = "claude-code-memory"
TYPES = ("user", "feedback", "project", "reference")
INDEX = "MEMORY.md"
_EXPLAINS = re.compile(
    r"^\s*\*\*(why|how to apply|how|side effect|anti-example|example|note|caveat|exception)"
    r"\b[^*]*\*\*",
    re.I,
)
_LINK = re.compile(r"\]\(([^)\s]+\.md)\)|\[\[([^\]]+)\]\]")


def _has_card(fm: dict) -> bool:
    """Frontmatter that names a memory: a known ``type``, or ``name`` + ``description`` (many
    topic files carry no type)."""
    if memory_type(fm) is not None:
        return True
    return bool(fm.get("name") and fm.get("description")) and "permalink" not in fm


def memory_type(fm: dict) -> str | None:
    t = fm.get("type")
    if t is None and isinstance(fm.get("metadata"), dict):
        t = fm["metadata"].get("type")
    t = str(t).strip().lower() if t is not None else None
    return t if t in TYPES else None


def _head(path: Path) -> str:
    return head(path)


def is_topic_file(path: Path) -> bool:
    if path.suffix.lower() != ".md" or not _has_card(frontmatter.split(_head(path))[0]):
        return False
    return refusal(path) is None  # a SKILL.md has a name and a description too


def folder_of(path: Path) -> Path | None:
    """The memory folder ``path`` is or sits in, when it is Claude Code auto memory."""
    d = path if path.is_dir() else path.parent
    if not d.is_dir():
        return None
    if (d / "memory").is_dir() and not (d / INDEX).is_file():
        d = d / "memory"
    try:
        topics = [p for p in d.iterdir() if p.is_file() and p.name != INDEX]
    except OSError:
        return None
    if any(is_topic_file(p) for p in sorted(topics)[:200]):
        return d
    # old auto memory, before topic files had frontmatter: known by where it lives
    if (d / INDEX).is_file() and _auto_memory_place(d):
        return d
    return None


def _auto_memory_place(d: Path) -> bool:
    parts = [p.lower() for p in d.resolve().parts]
    if len(parts) >= 4 and parts[-1] == "memory" and parts[-3] == "projects":
        return parts[-4] == ".claude"
    return parts[-2:] == [".claude", "memory"]


def detect(path: Path) -> bool:
    if path.is_file() and path.name != INDEX:
        return is_topic_file(path)
    return folder_of(path) is not None


def _encode(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", name)


def walk_encoded(parts: list[str]) -> tuple[Path, int]:
    """How far an encoded project path exists on disk: the deepest folder reached and how
    many of ``parts`` it took (Claude Code writes every non-alphanumeric character as ``-``,
    so only the disk can tell ``my-app`` from ``my/app``)."""
    cur, i = Path("/"), 0
    while i < len(parts):
        try:
            names = {_encode(p.name): p for p in cur.iterdir() if p.is_dir()}
        except OSError:
            break
        for j in range(len(parts), i, -1):
            hit = names.get("-".join(parts[i:j]))
            if hit is not None:
                cur, i = hit, j
                break
        else:
            break
    return cur, i


def _decode(enc: str) -> Path | None:
    """The folder an encoded project path names, when all of it exists."""
    parts = enc[1:].split("-")
    cur, i = walk_encoded(parts)
    return cur if i == len(parts) else None


def project_name(folder: Path) -> str:
    """``~/.claude/projects/-home-me-code-my-app/memory`` → ``my-app``; a repo copy
    (``<repo>/.claude/memory``) → the repo's name."""
    parent = folder.parent
    if parent.name == ".claude":
        return slug(parent.parent.name)
    enc = parent.name
    if parent.parent.name == "projects" and enc.startswith("-"):
        real = _decode(enc)
        return slug(real.name if real else enc.rsplit("-", 1)[-1])
    return slug(parent.name)


def category_for(mtype: str | None, text: str, project: str) -> str:
    if mtype == "feedback":
        return "pref" if infer_category(text) == "pref" else "rule"
    if mtype == "project":
        return f"proj:{project}"
    if mtype == "reference":
        return "reference"
    return infer_category(text)


def merge_explanations(stmts: list[Statement]) -> list[Statement]:
    """``**Why:**`` / ``**How to apply:**`` paragraphs (and the items of a list a bare
    ``**How to apply:**`` leads in) belong to the rule above them."""
    out: list[Statement] = []
    for st in stmts:
        prev = out[-1] if out else None
        same = prev is not None and st.sections == prev.sections
        led = bool(st.lead and _EXPLAINS.match(st.lead))
        if prev is not None and same and (led or _EXPLAINS.match(st.lines[0])):
            gap = st.start - prev.end - 1
            if led and prev.lead != st.lead:
                piece = f"\n\n{st.lead}\n- {st.text}"
            elif led:
                piece = f"\n- {st.text}"
            else:
                piece = "\n" * (2 if gap else 1) + st.fact
            prev.composed = prev.fact + piece
            prev.lines += [""] * gap + st.lines
            prev.end = st.end
            prev.lead = st.lead if led else prev.lead
            continue
        out.append(st)
    return out


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    folder = folder_of(path) or (path if path.is_dir() else path.parent)
    out = ParsedSource(format=FORMAT, root=folder.resolve())
    project = project_name(folder.resolve())
    if path.is_file() and path.name != INDEX:
        files = [path]
    else:
        files = []
        for p in sorted(folder.glob("*.md")):
            why = refusal(p) if p.name != INDEX else "index"
            if why is None:
                files.append(p)
            elif p.name != INDEX:
                out.problems.append(ImportProblem(rel_name(p, folder), None, why))
        if (folder / INDEX).is_file():
            files.append(folder / INDEX)
    names = {p.name for p in folder.glob("*.md")}
    for f in files:
        parse_file(f, folder, project, names, out)
    return out


def parse_file(f: Path, folder: Path, project: str, names: set[str], out: ParsedSource) -> None:
    note = open_note(f, folder, out)
    if note is None:
        return
    rel, fm, body, first = note
    mtype = memory_type(fm)
    info = {
        "file": f.name,
        "name": frontmatter.text_of(fm.get("name")),
        "description": frontmatter.text_of(fm.get("description")),
        "type": mtype,
    }
    meta = source_meta(
        FORMAT,
        f.resolve(),
        agent="claude-code",
        project=project,
        claude_memory={k: v for k, v in info.items() if v},
    )
    created = file_time(f)
    for st in merge_explanations(split_statements(body, first)):
        if f.name == INDEX and _only_links(st.text, names):
            continue
        tags = ["claude-memory", mtype or "", *section_tags(st.sections)]
        if info["name"]:
            tags.append(slug(info["name"]))
        out.facts.append(
            statement_fact(
                st,
                rel,
                category=category_for(mtype, st.fact, project),
                meta=meta,
                created=created,
                tags=tags,
                subject=None,
            )
        )


def _only_links(text: str, names: set[str]) -> bool:
    """An index line: a link to a topic file plus its one-line hook."""
    for m in _LINK.finditer(text):
        target = m.group(1) or (m.group(2) + ".md")
        if Path(target).name in names:
            return True
    return False

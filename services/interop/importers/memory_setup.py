"""Memory Setup workspaces (exiao/skills ``memory-setup``), also under ``~/.hermes``.

Layout: ``memories/MEMORY.md`` and ``memories/USER.md`` (``§``-separated
``[YYYY-MM-DD][category] content`` entries after a header), ``episodes/YYYY-MM-DD.md``
(``## Episode — 2:30 PM`` blocks with ``**Summary:**``/``summary:`` and ``**Tags:**``/``tags:``,
separated by ``---``) and ``.pending.md`` overflow queues (``TARGET<TAB>LINE``, in
``memories/`` in the older spec and ``episodes/`` in the newer one).

The path may be the workspace root (or ``~/.hermes``), its ``memories/`` or ``episodes/`` dir,
or one of those files. Pointed at ``memories/``, only that folder is read. Entries that carry
no prefix (written through Hermes' own memory tool, or by hand) are imported like Hermes
entries: the file's date and an inferred category (``metadata['date_source'] == 'file'``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from services.interop.importers.base import ImportedEpisode, ImportProblem, ParsedSource
from services.interop.importers.common import (
    file_time,
    has_bad_bytes,
    has_delimiter,
    parse_clock,
    parse_date,
    read_text,
    split_lines,
)
from services.interop.importers.entries import (
    FileContext,
    is_strict,
    lenient_entry,
    parse_entry_file,
    sort_entry,
)

FORMAT = "memory-setup"
ENTRY_FILES = ("MEMORY.md", "USER.md")
PENDING = ".pending.md"
_DAY_FILE = re.compile(r"^(\d{4}-\d{1,2}-\d{1,2})(?:[-_ .][^/]*)?\.md$")
_CLOCK_IN = re.compile(r"\b\d{1,2}[:.]\d{2}(?:\s*[AaPp]\.?\s*[Mm]\.?)?(?![\d:])")
_EPISODE_HEAD = re.compile(r"^\s{0,3}#{1,6}\s*Episode\b\s*(?:[—–\-:|·]+\s*)?(.*?)\s*#*\s*$", re.I)
_FIELD = r"^\s*[*_]{0,2}\s*NAME\s*[*_]{0,2}\s*[:：]\s*[*_]{0,2}\s*(.*)$"
_SUMMARY = re.compile(_FIELD.replace("NAME", "summary"), re.I)
_TAGS = re.compile(_FIELD.replace("NAME", "tags"), re.I)
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_PENDING_LINE = re.compile(r"^\s*([A-Za-z]+)(?:\s*\t\s*|\s*:\s+|\s{2,}|\s+(?=\[))(.*)$")
_MAX_SNIFF = 2_000_000


@dataclass
class Layout:
    root: Path
    entry_files: list[Path] = field(default_factory=list)
    episode_files: list[Path] = field(default_factory=list)
    pending_files: list[Path] = field(default_factory=list)
    topic_files: list[Path] = field(default_factory=list)  # memories/*.md (newer spec)
    episodes_dir: bool = False  # the workspace has the episodes/ folder memory-setup creates


def _find(folder: Path, name: str) -> Path | None:
    """Case-insensitive lookup (agents write memory.md as often as MEMORY.md)."""
    if not folder.is_dir():
        return None
    exact = folder / name
    if exact.is_file():
        return exact
    for p in folder.iterdir():
        if p.name.lower() == name.lower() and p.is_file():
            return p
    return None


def _episodes_in(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and _DAY_FILE.match(p.name))


def layout(path: Path) -> Layout:
    path = path.resolve()
    if path.is_file():
        parent = path.parent
        root = parent.parent if parent.name in ("memories", "episodes") else parent
        lay = Layout(root)
        if path.name == PENDING:
            lay.pending_files.append(path)
        elif _DAY_FILE.match(path.name):
            lay.episode_files.append(path)
        else:
            lay.entry_files.append(path)
        return lay
    if path.name == "episodes":
        lay = Layout(path.parent, episode_files=_episodes_in(path))
        if (path / PENDING).is_file():
            lay.pending_files.append(path / PENDING)
        return lay
    if path.name == "memories":
        mem, eps, root = path, None, path.parent
    else:
        sub = path / "memories"
        mem = sub if sub.is_dir() else path
        eps, root = path / "episodes", path
    lay = Layout(root)
    for name in ENTRY_FILES:
        f = _find(mem, name)
        if f:
            lay.entry_files.append(f)
    if (mem / PENDING).is_file():
        lay.pending_files.append(mem / PENDING)
    if mem.name == "memories":
        skip = {n.lower() for n in (*ENTRY_FILES, "INDEX.md", PENDING)}
        lay.topic_files = sorted(
            p
            for p in mem.iterdir()
            if p.is_file() and p.suffix.lower() == ".md" and p.name.lower() not in skip
        )
    if eps is not None:
        lay.episodes_dir = eps.is_dir()
        lay.episode_files = _episodes_in(eps)
        if (eps / PENDING).is_file():
            lay.pending_files.append(eps / PENDING)
    return lay


def _sniff(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(_MAX_SNIFF).decode("utf-8", errors="replace")
    except OSError:
        return ""


def detect(path: Path) -> bool:
    if not path.exists():
        return False
    lay = layout(path)
    if path.is_file():
        if lay.pending_files:
            return True
        if lay.episode_files:
            return any(_EPISODE_HEAD.match(ln) for ln in split_lines(_sniff(path)))
        return path.suffix.lower() == ".md" and is_strict(_sniff(path))
    if lay.pending_files or lay.episode_files or (lay.episodes_dir and lay.entry_files):
        return True
    return any(is_strict(_sniff(f)) for f in lay.entry_files)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.name


def parse(path: Path) -> ParsedSource:
    lay = layout(Path(path))
    out = ParsedSource(format=FORMAT, root=lay.root)
    for f in lay.entry_files:
        _parse_entries(f, lay.root, out)
    for f in lay.topic_files:
        _parse_entries(f, lay.root, out, topic=True)
    for f in lay.pending_files:
        _parse_pending(f, lay.root, out)
    for f in lay.episode_files:
        _parse_episodes(f, lay.root, out)
    return out


def _parse_entries(f: Path, root: Path, out: ParsedSource, topic: bool = False) -> None:
    rel = _rel(f, root)
    text, problems = read_text(f, rel)
    out.problems.extend(problems)
    if text is None:
        return
    if topic and not (has_delimiter(text) or is_strict(text)):
        out.problems.append(ImportProblem(rel, None, "topic file holds no § entries; not imported"))
        return
    parse_entry_file(f, rel, text, out)


def _parse_pending(f: Path, root: Path, out: ParsedSource) -> None:
    rel = _rel(f, root)
    text, problems = read_text(f, rel)
    out.problems.extend(problems)
    if text is None:
        return
    mtime = file_time(f)
    for no, line in enumerate(split_lines(text), 1):
        s = line.strip()
        if not s or s.startswith(("#", "<!--")):
            continue
        m = _PENDING_LINE.match(line)
        target = m.group(1).upper() if m else None
        if target not in ("MEMORY", "USER"):
            out.problems.append(
                ImportProblem(
                    rel, no, "not a pending entry (expected MEMORY or USER, a tab, then the entry)"
                )
            )
            continue
        assert m is not None  # target came from this match
        body = m.group(2).strip()
        user = target == "USER"
        ctx = FileContext(
            rel=rel,
            fallback=mtime,
            user_file=user,
            status="pending",
            extra_tags=("pending", *(("user",) if user else ())),
        )
        if not body:
            out.problems.append(ImportProblem(rel, no, "pending entry has no content"))
            continue
        sort_entry(lenient_entry(no, [body], ctx), out.facts, out.problems)


def _parse_episodes(f: Path, root: Path, out: ParsedSource) -> None:
    rel = _rel(f, root)
    named = _DAY_FILE.match(f.name)
    assert named is not None  # only day files are handed here
    day = parse_date(named.group(1))
    if day is None:
        out.problems.append(
            ImportProblem(
                rel,
                None,
                f"file name {f.name!r} is not a valid date (YYYY-MM-DD.md); its "
                "episodes were skipped",
            )
        )
        return
    text, problems = read_text(f, rel)
    out.problems.extend(problems)
    if text is None:
        return
    for start, heading, lines in _episode_blocks(text):
        ep = _episode(rel, day, start, heading, lines)
        if ep is None:
            continue
        (out.problems if isinstance(ep, ImportProblem) else out.episodes).append(ep)


def _episode_blocks(text: str):
    """(first line, heading time text or None when headless, body lines with line numbers)."""
    blocks = []
    cur: list | None = None
    for no, line in enumerate(split_lines(text), 1):
        m = _EPISODE_HEAD.match(line)
        if m:
            if cur:
                blocks.append(cur)
            cur = [no, m.group(1), []]
        elif _RULE.match(line):
            if cur:
                blocks.append(cur)
            cur = None
        elif line.strip():
            if cur is None:
                cur = [no, None, []]
            cur[2].append((no, line))
    if cur:
        blocks.append(cur)
    return blocks


def _episode(rel: str, day, start: int, heading: str | None, lines):
    text = "\n".join(ln for _, ln in lines)
    if has_bad_bytes(text + (heading or "")):
        return ImportProblem(rel, start, "invalid UTF-8 bytes in the episode")
    if heading is None:
        # Text outside any "## Episode" heading: a day title is fine, a bare summary counts.
        if not any(_SUMMARY.match(ln) for _, ln in lines):
            if all(re.match(r"^\s{0,3}#{1,6}\s", ln) for _, ln in lines):
                return None
            return ImportProblem(rel, start, "text outside an '## Episode' block (no summary line)")
    time = None
    if heading:
        # "2:30 PM" alone, or inside "Episode 3 — 2026-04-12 2:30 PM (standup)"
        m = _CLOCK_IN.search(heading)
        time = parse_clock(m.group(0)) if m else None
        if time is None:
            return ImportProblem(
                rel, start, f"cannot read the episode time {heading!r}; expected like '2:30 PM'"
            )
    summary: list[str] = []
    loose: list[str] = []
    tags: list[str] = []
    in_summary = False
    for _, ln in lines:
        if re.match(r"^\s{0,3}#{1,6}\s", ln):
            in_summary = False
            continue
        sm, tm = _SUMMARY.match(ln), _TAGS.match(ln)
        if sm:
            in_summary = True
            summary.append(sm.group(1).strip().strip("*_").strip())
        elif tm:
            in_summary = False
            tags += [t.strip().lstrip("#").strip("*_ ") for t in re.split(r"[,，;]", tm.group(1))]
        elif in_summary:
            summary.append(ln.strip())
        else:
            loose.append(ln.strip())
    body = "\n".join(s for s in summary if s).strip() or "\n".join(loose).strip()
    if not body:
        return ImportProblem(rel, start, "episode has no summary")
    return ImportedEpisode(
        day=day,
        summary=body,
        time=time,
        tags=list(dict.fromkeys(t for t in tags if t)),
        source_ref=f"{rel}:{start}",
    )

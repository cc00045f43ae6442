"""Hermes-native memory files (NousResearch hermes-agent ``tools/memory_tool.py``):
``MEMORY.md``/``USER.md`` whose entries are joined by ``\\n§\\n`` and carry no
``[date][category]`` prefix. Read leniently (see ``entries.parse_entries``): every entry with
content is imported with its tag's date or the file's modification date and an inferred
category. Accepts one file, a dir holding the files, or a dir with ``memories/`` (``~/.hermes``).
Memory Setup is tried first, so a workspace whose entries carry the prefix never lands here.
"""

from __future__ import annotations

from pathlib import Path

from services.interop.importers.base import ParsedSource
from services.interop.importers.common import DELIMITER, read_text, split_lines
from services.interop.importers.entries import parse_entry_file
from services.interop.importers.mdsplit import Statement
from services.interop.importers.native import block_hash, source_meta
from services.store.text import content_hash

FORMAT = "hermes"
NAMES = ("memory.md", "user.md")


def _files(path: Path) -> tuple[Path, list[Path]]:
    """(root for source refs, memory files)."""
    path = path.resolve()
    if path.is_file():
        return path.parent, [path]
    if not path.is_dir():
        return path.parent, []
    folders = [path / "memories", path] if (path / "memories").is_dir() else [path]
    for folder in folders:
        found = sorted(
            (p for p in folder.iterdir() if p.is_file() and p.name.lower() in NAMES),
            key=lambda p: NAMES.index(p.name.lower()),
        )
        if found:
            return path, found
    return path, []


def detect(path: Path) -> bool:
    if not path.exists():
        return False
    if path.is_file():
        if path.name.lower() in NAMES:
            return True  # even when unreadable: the parser then says why, clearly
        if path.suffix.lower() not in (".md", ".txt"):
            return False
        try:
            with path.open("rb") as fh:
                head = fh.read(1_000_000).decode("utf-8", errors="replace")
        except OSError:
            return False
        # one stray "§" line in a document does not make it a Hermes file: entries do
        return sum(ln.strip() == DELIMITER for ln in split_lines(head)) >= 2
    return bool(_files(path)[1])


def parse(path: Path) -> ParsedSource:
    root, files = _files(Path(path))
    out = ParsedSource(format=FORMAT, root=root)
    for f in files:
        try:
            rel = f.relative_to(root).as_posix()
        except ValueError:
            rel = f.name
        text, problems = read_text(f, rel)
        out.problems.extend(problems)
        if text is None:
            continue
        before = len(out.facts)
        parse_entry_file(f, rel, text, out)
        # Hermes keeps entries until the agent removes them: Engram's TTLs don't apply
        meta = source_meta(FORMAT, f.resolve(), agent="hermes")
        blocks = _blocks_by_text(text)
        for fact in out.facts[before:]:
            fact.metadata = {**meta, **fact.metadata}
            # the entry it came from, so write-back can put Engram's edits into the file
            h = blocks.get(content_hash(fact.content))
            if h is not None:
                fact.metadata["source_hash"] = h
    return out


# the write side: Engram's edits and deletes go back into the file (services.interop.writeback)


def statements(text: str) -> list[Statement]:
    """The file's entries as blocks of lines (1-based, the ``§`` lines excluded), the way
    write-back finds a fact's entry again."""
    lines = text.split("\n")
    out: list[Statement] = []
    start = 1
    for no in range(1, len(lines) + 2):
        sep = no > len(lines) or lines[no - 1].strip() == DELIMITER
        if not sep:
            continue
        body = list(range(start, no))
        while body and not lines[body[0] - 1].strip():
            body.pop(0)
        while body and not lines[body[-1] - 1].strip():
            body.pop()
        if body:
            out.append(Statement(body[0], body[-1], "para", lines[body[0] - 1 : body[-1]]))
        start = no + 1
    return out


def removal_span(lines: list[str], st: Statement) -> tuple[int, int]:
    """The lines to cut for a removed entry: the entry and one ``§`` line beside it, so no
    empty entry is left between two separators."""
    lo, hi = st.start - 1, st.end
    if hi < len(lines) and lines[hi].strip() == DELIMITER:
        return lo, hi + 1
    if lo > 0 and lines[lo - 1].strip() == DELIMITER:
        return lo - 1, hi
    return lo, hi


def _blocks_by_text(text: str) -> dict[str, str]:
    return {content_hash(st.text): block_hash(st) for st in statements(text)}

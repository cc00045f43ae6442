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
from services.interop.importers.native import source_meta

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
        for fact in out.facts[before:]:
            fact.metadata = {**meta, **fact.metadata}
    return out

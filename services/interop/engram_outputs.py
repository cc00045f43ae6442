"""What Engram itself writes into agents' files (the compiled-memory import in CLAUDE.md, the
Cursor rule carrying the compiled memory, the MCP registrations) carries ``MARK``, so no
importer and no ``discover`` ever reads Engram's own output back in as memory."""

from __future__ import annotations

from pathlib import Path

from services.interop.importers.common import head

MARK = "<!-- engram: compiled memory of agent"


def is_engram_output(path: Path) -> bool:
    """A file Engram generated: the mark heading it (after a rule's frontmatter), a compiled
    layer, or a link in ``~/.claude/engram/`` that points at a compiled memory. A user's
    CLAUDE.md holding Engram's import block is the user's file: only the block is Engram's
    (the instruction importer skips it)."""
    if path.parent.name == "engram" and path.parent.parent.name == ".claude":
        return True
    return is_engram_text(head(path, 4096))


def is_engram_text(head: str) -> bool:
    """``head``: the start of a file (a few KiB)."""
    from services.store.untrusted import DATA_NOTICE

    lines = head.splitlines()
    if any(DATA_NOTICE in ln for ln in lines[:12]):
        # a compiled layer (memory.md, longterm.md …) or its copy; a Markdown export (its
        # entry format stated) is the user's copy to move, and imports
        return not any(ln.startswith("> Entry format:") for ln in lines[:12])
    body = _without_frontmatter(lines)
    at = next((i for i, ln in enumerate(body[:12]) if ln.startswith(MARK)), None)
    if at is None or any(ln.strip() for ln in body[:at]):
        return False  # no mark, or the user's own text comes first
    after = body[at + 1 :]
    if after and after[0].startswith("@"):
        # Engram's import block: the file is Engram's only if nothing else is in it
        return not any(ln.strip() for ln in after[1:])
    return True


def _without_frontmatter(lines: list[str]) -> list[str]:
    if lines and lines[0].strip() == "---":
        for i, ln in enumerate(lines[1:40], start=1):
            if ln.strip() == "---":
                return lines[i + 1 :]
    return lines

"""What Engram itself writes into agents' files (the compiled-memory import in CLAUDE.md, the
Cursor rule carrying the compiled memory, the MCP registrations) carries ``MARK``, so no
importer and no ``discover`` ever reads Engram's own output back in as memory."""

from __future__ import annotations

from pathlib import Path

from services.interop.importers.common import head

MARK = "<!-- engram: compiled memory of agent"


def is_engram_output(path: Path) -> bool:
    """A file Engram generated: the mark near its top (after a rule's frontmatter), or a
    link in ``~/.claude/engram/`` that points at a compiled memory."""
    if path.parent.name == "engram" and path.parent.parent.name == ".claude":
        return True
    lines = head(path, 2048).splitlines()
    return bool(lines) and any(ln.startswith(MARK) for ln in lines[:12])

"""The ``## Gemini Added Memories`` section of a ``GEMINI.md``: what Gemini CLI's
``save_memory`` wrote, one ``- `` bullet per memory.

A saved memory can run over many lines, and Gemini does not indent them: blank lines, bold
pseudo-headings (``**State Management Guidelines:**``) and their own column-0 ``- `` lists
belong to the memory above. So a column-0 bullet starts a new memory unless it continues a list
that a pseudo-heading or a line ending in ``:`` opened inside the current memory. The section
ends at the next ``#``/``##`` heading, not at the end of the file."""

from __future__ import annotations

import re

from services.interop.importers.mdreader import Statement

SECTION = "Gemini Added Memories"
_HEAD = re.compile(r"^##\s+Gemini Added Memories\s*$")
_END = re.compile(r"^#{1,2}\s+\S")
_PSEUDO = re.compile(r"^\s*\*\*[^*].*\*\*\s*:?\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def section_span(lines: list[str]) -> tuple[int, int] | None:
    """(index of the first line after the heading, index past the section's last line)."""
    for i, ln in enumerate(lines):
        if _HEAD.match(ln.rstrip("\r")):
            j = i + 1
            while j < len(lines) and not _END.match(lines[j]):
                j += 1
            return i + 1, j
    return None


def memories(body: str, first_line: int = 1) -> list[Statement]:
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in body.split("\n")]
    span = section_span(lines)
    if span is None:
        return []
    out: list[Statement] = []
    cur: Statement | None = None
    sublist = fence = False
    for i in range(*span):
        ln, no = lines[i], first_line + i
        if _FENCE.match(ln):
            fence = not fence
        new = not fence and ln.startswith("- ") and (cur is None or not sublist)
        if new:
            cur = Statement(no, no, "bullet", [ln], [SECTION])
            out.append(cur)
            sublist = ln.rstrip().endswith(":")
            continue
        if cur is None:
            continue  # text between the heading and the first memory
        cur.lines.append(ln)
        if ln.strip():
            cur.end = no
            if not ln.startswith("- ") and not fence:
                sublist = bool(_PSEUDO.match(ln)) or ln.rstrip().endswith(":")
    for st in out:
        st.lines = st.lines[: st.end - st.start + 1]
    return [st for st in out if st.text]


def replace_section(stmts: list[Statement], body: str, first_line: int) -> list[Statement]:
    """The file's statements with those of the memories section cut as memories."""
    mems = memories(body, first_line)
    if not mems:
        return stmts
    rest = [s for s in stmts if SECTION not in s.sections]
    return sorted([*rest, *mems], key=lambda s: s.start)

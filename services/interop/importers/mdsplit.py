"""Free-form Markdown (instruction files, topic notes) cut into statements.

A statement is a top-level list item with everything nested under it (sub-bullets qualify
their parent: "Prefer X" + "  - except in legacy/" stay one statement), a prose paragraph, or a
table. A code fence stays with the statement just above it. Headings are not statements: they
give each statement its ``sections`` (the heading path). Each statement keeps the exact line
range it came from, so Engram can later rewrite or remove just those lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)([-*+•]|\d{1,3}[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_RULE = re.compile(r"^ {0,3}(?:[-*_]\s*){3,}$")
_COMMENT_OPEN = re.compile(r"^\s*<!--")


@dataclass
class Statement:
    start: int  # 1-based first line
    end: int  # 1-based last line (inclusive)
    kind: str  # bullet | para | table | code
    lines: list[str]
    sections: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The statement as a fact: list marker dropped, nested lines dedented, trailing blank
        lines gone."""
        lines = list(self.lines)
        while lines and not lines[-1].strip():
            lines.pop()
        if self.kind == "bullet" and lines:
            m = _BULLET.match(lines[0])
            if m:
                indent = len(m.group(1)) + len(m.group(2)) + 1
                lines[0] = m.group(3)
                lines[1:] = [_dedent(ln, indent) for ln in lines[1:]]
        return "\n".join(ln.rstrip() for ln in lines).strip()


def _dedent(line: str, n: int) -> str:
    k = len(line) - len(line.lstrip(" "))
    return line[min(k, n) :]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


class _Cutter:
    def __init__(self, first_line: int):
        self.out: list[Statement] = []
        self.cur: Statement | None = None
        self.heads: list[tuple[int, str]] = []
        self.first = first_line
        self.blank_after = False  # a blank line since the current statement's last line

    def sections(self) -> list[str]:
        return [t for _, t in self.heads if t]

    def close(self) -> None:
        if self.cur is not None:
            self.out.append(self.cur)
        self.cur = None
        self.blank_after = False

    def open(self, no: int, kind: str, line: str) -> None:
        self.close()
        self.cur = Statement(no, no, kind, [line], self.sections())

    def add(self, no: int, line: str) -> None:
        assert self.cur is not None
        if self.blank_after:
            self.cur.lines.append("")
        self.cur.lines.append(line)
        self.cur.end = no
        self.blank_after = False

    def heading(self, level: int, title: str) -> None:
        self.close()
        self.heads = [(lv, t) for lv, t in self.heads if lv < level] + [(level, title)]


def split_statements(text: str, first_line: int = 1) -> list[Statement]:
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]
    c = _Cutter(first_line)
    i = 0
    while i < len(lines):
        no, line = first_line + i, lines[i]
        if _FENCE.match(line):
            i = _fence(c, lines, i, first_line)
            continue
        if _COMMENT_OPEN.match(line):
            i = _skip_comment(lines, i)
            continue
        _line(c, no, line)
        i += 1
    c.close()
    return _labels_to_sections([s for s in c.out if s.text])


def _labels_to_sections(stmts: list[Statement]) -> list[Statement]:
    """A one-line paragraph like "Preference signals:" heads the statements after it (up to
    the next heading), like a heading would; it says nothing on its own."""
    out: list[Statement] = []
    label: tuple[list[str], str] | None = None
    for st in stmts:
        t = st.text
        if st.kind == "para" and "\n" not in t and t.endswith(":") and len(t.split()) <= 6:
            label = (st.sections, t.rstrip(":").strip("*_ ").strip())
            continue
        if label and st.sections == label[0]:
            st.sections = [*st.sections, label[1]]
        else:
            label = None
        out.append(st)
    return out


def _line(c: _Cutter, no: int, line: str) -> None:
    if not line.strip():
        if c.cur is not None:
            c.blank_after = True
        return
    h = _HEADING.match(line)
    if h:
        c.heading(len(h.group(1)), _plain(h.group(2)))
        return
    if _RULE.match(line):
        c.close()
        return
    b = _BULLET.match(line)
    cur = c.cur
    if b:
        top = cur is None or cur.kind != "bullet" or _indent(line) <= _indent(cur.lines[0]) + 1
        if top:
            c.open(no, "bullet", line)
        else:
            c.add(no, line)
        return
    if line.lstrip().startswith("|"):
        if cur is not None and cur.kind == "table" and not c.blank_after:
            c.add(no, line)
        else:
            c.open(no, "table", line)
        return
    if cur is not None and (
        (cur.kind == "bullet" and (_indent(line) >= 2 or not c.blank_after))
        or (cur.kind == "para" and not c.blank_after)
    ):
        c.add(no, line)  # a wrapped line, or an indented paragraph inside a list item
        return
    c.open(no, "para", line)


def _fence(c: _Cutter, lines: list[str], i: int, first_line: int) -> int:
    """A fenced block: kept with the statement above it (or alone when it opens a section)."""
    marker = _FENCE.match(lines[i]).group(1)  # type: ignore[union-attr]
    j = i + 1
    while j < len(lines) and not lines[j].strip().startswith(marker[:3]):
        j += 1
    j = min(j, len(lines) - 1)
    if c.cur is None or c.cur.kind == "table":
        c.open(first_line + i, "code", lines[i])
        start = i + 1
    else:
        start = i
    for k in range(start, j + 1):
        c.add(first_line + k, lines[k])
    return j + 1


def _skip_comment(lines: list[str], i: int) -> int:
    j = i
    while j < len(lines) and "-->" not in lines[j]:
        j += 1
    return j + 1


def _plain(title: str) -> str:
    return re.sub(r"[*`]", "", title).strip()

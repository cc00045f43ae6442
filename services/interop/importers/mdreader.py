"""Markdown memory read by its structure (markdown-it), one reader for every Markdown-based
importer.

A statement is what a careful person would keep as one memory, written so it stands on its
own:

- a top-level list item with everything nested under it ("Prefer X" + "  - except in legacy/"
  stay one), unless the item is only a lead-in or a label ("**NEVER**:", "**Pros:**",
  "Add manual spans where:"): then each nested item is a statement carrying it;
- a list after a lead-in paragraph: each item carries the lead-in ("Add manual spans where: …",
  "Never run the dev server"); a heading that prohibits ("## Don't", "## Anti-patterns") is
  carried by each item under it that does not say its polarity itself;
- a prose paragraph, whole (never cut into subject-less sentences);
- a table row, with its header ("Command: make test; Purpose: runs the suite");
- a code fence, with the sentence that introduces it.

Headings, lead-ins and empty labels are never statements on their own: they are the context of
the ones they head. Each statement keeps the exact line range it came from (``lines`` are the
source lines), so Engram can later rewrite or remove just those lines; ``text`` is the block as
written (marker dropped) and ``fact`` the self-contained statement that is stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from services.interop.importers import polarity

_MD = MarkdownIt("commonmark", {"html": True}).enable("table")
_BULLET = re.compile(r"^(\s*)([-*+•]|\d{1,3}[.)])\s+")
_COMMENT = re.compile(r"^\s*<!--.*?-->\s*$", re.S)
_TAGS = re.compile(r"<[^>]+>")
_SENTENCE_END = re.compile(r"[.!?。！？)`]\s*$")
# "Last updated: 2026-05-02": when the file was edited, not something to remember
_BOOKKEEPING = re.compile(
    r"^\W*(?:last[ _-]?)?(?:updated|modified|edited|reviewed|created|date)\W*[:：]\W*"
    r"\d{4}-\d{2}-\d{2}[\w:.+ -]*\W*$",
    re.I,
)
# "See also [[other_note]] for the board frame.": navigation between notes, one sentence
_XREF = re.compile(
    r"^\W*(?:(?:see also|related|cf\.?)\b|see (?=\[\[))[^.\n]*"
    r"(?:\[\[[^\]]+\]\]|\]\([^)]+\))[^.\n]*\.?\s*$",
    re.I,
)
# "…, for example:" + a list: the items illustrate the one statement, they are not its parts
_EXAMPLES = re.compile(r"\b(for example|for instance|e\.g\.|such as|like this)\W*$", re.I)
# a label that weighs something named elsewhere (the heading): "Pros:", "**Downsides**:"
_ASPECT = re.compile(
    r"^\W*(?:pros?|cons?|advantages?|disadvantages?|benefits?|drawbacks?|downsides?|upsides?|"
    r"trade-?offs?|risks?|caveats?|limitations?|strengths?|weaknesses?|costs?)\W*[:：]",
    re.I,
)
# headings that name a part of a note, not what the pros and cons weigh
_GENERIC_HEADINGS = {
    "context",
    "background",
    "overview",
    "summary",
    "details",
    "notes",
    "discussion",
    "analysis",
    "evaluation",
    "comparison",
    "options",
    "observations",
}
_LABEL_ITEM = re.compile(r"^\s*(?:\*\*|__)?[^:：\n]{1,60}[:：]")


@dataclass
class Statement:
    start: int  # 1-based first line
    end: int  # 1-based last line (inclusive)
    kind: str  # bullet | para | table | code
    lines: list[str]
    sections: list[str] = field(default_factory=list)
    lead: str | None = None  # the lead-in or label this statement was written under
    levels: list[int] = field(default_factory=list)  # heading level of each of ``sections``
    composed: str | None = None  # the self-contained text, when it differs from ``text``

    @property
    def text(self) -> str:
        """The block as written: list marker dropped, nested lines dedented."""
        lines = list(self.lines)
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if self.kind == "bullet" and lines:
            m = _BULLET.match(lines[0])
            if m:
                indent = m.end()
                lines[0] = lines[0][m.end() :]
                lines[1:] = [_dedent(ln, indent) for ln in lines[1:]]
        return "\n".join(ln.rstrip() for ln in lines).strip()

    @property
    def fact(self) -> str:
        """What is stored: the statement with its lead-in and polarity."""
        return self.composed if self.composed is not None else self.text


def _dedent(line: str, n: int) -> str:
    k = len(line) - len(line.lstrip(" "))
    return line[min(k, n) :]


def _inline(node: SyntaxTreeNode) -> str:
    """The first paragraph/heading text of a node, as written."""
    for ch in node.walk():
        if ch.type == "inline":
            return ch.content.strip()
    return ""


def is_label(text: str) -> bool:
    """Says what follows, not anything itself: "Add manual spans where:", "**Pros:**",
    "NEVER:"."""
    s = text.strip()
    if not s or "\n" in s:
        return False
    return s.rstrip("*_ ").endswith((":", "：")) or bool(
        re.fullmatch(r"(\*\*|__)[^*_]+(\*\*|__)", s)
    )


def is_title(text: str) -> bool:
    """A few words without a sentence's end, standing alone: a pseudo-heading ("Manual
    updates") that names what comes next."""
    s = text.strip()
    if not s or "\n" in s or _SENTENCE_END.search(s) or not s[:1].isupper():
        return False
    return len(polarity.plain(s).split()) <= 4


class _Reader:
    def __init__(self, lines: list[str], first: int):
        self.src = lines
        self.first = first
        self.out: list[Statement] = []
        self.heads: list[tuple[int, str]] = []
        self.lead: str | None = None  # a lead-in paragraph waiting for what it introduces
        self.lead_line = 0

    def sections(self) -> list[str]:
        return [t for _, t in self.heads if t]

    def neg_heading(self) -> str | None:
        for _, t in reversed(self.heads):
            if polarity.is_negative(t):
                return t
        return None

    def block(self, node: SyntaxTreeNode, kind: str, lead: str | None) -> Statement | None:
        if node.map is None:
            return None
        a, b = node.map
        lines = self.src[a:b]
        while lines and not lines[-1].strip():
            lines, b = lines[:-1], b - 1
        if not lines:
            return None
        return Statement(
            self.first + a,
            self.first + b - 1,
            kind,
            lines,
            self.sections(),
            lead,
            [lv for lv, t in self.heads if t],
        )

    def emit(self, st: Statement | None, compose: bool = True) -> None:
        if st is None or not st.text or _BOOKKEEPING.match(st.text) or _XREF.match(st.text):
            return
        if compose:
            st.composed = self.compose(st)
        self.out.append(st)

    def compose(self, st: Statement) -> str:
        body = polarity.emoji_marked(st.text)
        if st.lead:
            return self.about(self.under_heading(polarity.with_lead(st.lead, body), st.lead))
        if st.kind in ("bullet", "para"):
            return self.about(self.under_heading(body, None))
        return body

    def about(self, text: str) -> str:
        """ "Pros: easy to upgrade" says nothing without the option it weighs: it carries the
        heading it sits under ("Option A: Postgres — Pros: easy to upgrade")."""
        m = _ASPECT.match(text)
        if m is None:
            return text
        subject = next(
            (
                t
                for _, t in reversed(self.heads)
                if t and not _ASPECT.match(t + ":") and t.lower() not in _GENERIC_HEADINGS
            ),
            None,
        )
        if subject is None or subject.lower() in text.lower():
            return text
        return f"{subject} — {text}"

    def under_heading(self, text: str, lead: str | None) -> str:
        """A statement under a heading that prohibits ("## Don't", "## Anti-patterns")
        carries it, unless it or its lead-in already says its polarity."""
        neg = self.neg_heading()
        if neg is None or polarity.says_negative(text) or (lead and polarity.is_negative(lead)):
            return text
        if lead:
            return f"{polarity.plain(neg)}: {text}"
        return polarity.with_lead(neg, text)

    # --- blocks ----------------------------------------------------------------------------
    def run(self, root: SyntaxTreeNode) -> None:
        for node in root.children:
            handler = getattr(self, f"_{node.type}", None)
            if handler is not None:
                handler(node)
            if node.type not in ("paragraph", "html_block"):
                self.lead = None

    def _heading(self, node: SyntaxTreeNode) -> None:
        level = int(node.tag[1])
        title = polarity.plain(_inline(node))
        self.heads = [(lv, t) for lv, t in self.heads if lv < level] + [(level, title)]

    def _hr(self, node: SyntaxTreeNode) -> None:
        pass  # ends a lead-in's reach (run() clears it)

    def _html_block(self, node: SyntaxTreeNode) -> None:
        if _COMMENT.match(node.content) or not _TAGS.sub("", node.content).strip():
            return
        self.lead = None
        st = self.block(node, "para", None)
        if st is None:
            return
        text = "\n".join(ln for ln in (_TAGS.sub("", x).rstrip() for x in st.lines) if ln.strip())
        prev = self.out[-1] if self.out else None
        if prev is not None and prev.sections == st.sections and prev.end >= st.start - 2:
            # an <example> right under a rule illustrates it
            prev.lines = self.src[prev.start - self.first : st.end - self.first + 1]
            prev.composed = f"{prev.fact}\n{text}"
            prev.end = st.end
            return
        st.composed = text
        self.out.append(st)

    def _paragraph(self, node: SyntaxTreeNode) -> None:
        text = _inline(node)
        nxt = node.next_sibling
        kind = nxt.type if nxt is not None else ""
        if kind in ("fence", "code_block"):
            self.lead = text  # the sentence that introduces code: kept with it below
            return
        label = is_label(text) or is_title(text)
        if label and kind in ("bullet_list", "ordered_list", "table"):
            body, last = _split_lead(text)
            if body:
                # a paragraph that says something, then leads in: kept, and its last sentence
                # ("This creates several challenges:") travels with each item
                self.emit(self.block(node, "para", None))
            self.lead = last  # a lead-in: the context of each item, never a fact itself
            return
        self.lead = None
        if label:
            # a pseudo-heading ("**Pros:**", "Manual updates") names the paragraphs after it
            self.heads = [(lv, t) for lv, t in self.heads if lv < 7] + [(7, polarity.plain(text))]
            return
        self.emit(self.block(node, "para", None))

    def _blockquote(self, node: SyntaxTreeNode) -> None:
        self.emit(self.block(node, "quote", None))

    def _fence(self, node: SyntaxTreeNode) -> None:
        st = self.block(node, "code", None)
        if st is None:
            return
        lead = self.lead
        if lead is not None:
            intro = self.prev_paragraph(node)
            if intro is not None:
                st.lines = self.src[intro - self.first : st.end - self.first + 1]
                st.start = intro
            st.composed = "\n".join(ln.rstrip() for ln in st.lines).strip()
            self.out.append(st)
            return
        prev = self.out[-1] if self.out else None
        if prev is not None and prev.sections == st.sections and prev.end >= st.start - 2:
            # code right under a statement (after a list item or a paragraph) belongs to it
            prev.lines = self.src[prev.start - self.first : st.end - self.first + 1]
            prev.composed = f"{prev.fact}\n" + "\n".join(ln.rstrip() for ln in st.lines)
            prev.end = st.end
            return
        sec = self.sections()
        head = f"{sec[-1]}:\n" if sec else ""
        st.composed = head + "\n".join(ln.rstrip() for ln in st.lines).strip()
        self.out.append(st)

    _code_block = _fence

    def prev_paragraph(self, node: SyntaxTreeNode) -> int | None:
        prev = node.previous_sibling
        if prev is not None and prev.type == "paragraph" and prev.map is not None:
            return self.first + prev.map[0]
        return None

    def _bullet_list(self, node: SyntaxTreeNode, lead: str | None = None) -> None:
        lead = lead if lead is not None else self.lead
        for item in node.children:
            self.item(item, lead)

    _ordered_list = _bullet_list

    def item(self, item: SyntaxTreeNode, lead: str | None) -> None:
        kids = item.children
        sub = [k for k in kids if k.type in ("bullet_list", "ordered_list")]
        head = _inline(kids[0]) if kids and kids[0].type == "paragraph" else ""
        if (
            sub
            and head
            and is_label(head)
            and len(kids) == 2
            and not _EXAMPLES.search(head)
            and not _sequence(sub[0])
        ):
            # "- **NEVER**:" + nested items, "- **Pros:**" + nested items
            if lead and not polarity.pure_word(head):
                head = f"{polarity.plain(lead)}: {polarity.plain(head)}"
            for k in sub[0].children:
                self.item(k, head)
            return
        if not sub and head and len(kids) == 1 and _empty_label(head):
            return  # "- **Pros:**" with nothing under it
        st = self.block(item, "bullet", lead)
        if st is not None and not lead and self.fragment(st.text):
            st.lead = self.heads[-1][1]
        self.emit(st)

    def fragment(self, text: str) -> bool:
        """A few words with no subject of their own ("React 18"): the heading says what they
        are. A full instruction or a "Label: value" line stands alone."""
        if not self.heads or self.heads[-1][0] < 2 or not self.heads[-1][1]:
            return False
        if "\n" in text or _LABEL_ITEM.match(text) or _SENTENCE_END.search(text):
            return False
        if polarity.is_negative(self.heads[-1][1]) or len(text) > 40:
            return False
        return len(polarity.plain(text).split()) <= 3

    def _table(self, node: SyntaxTreeNode) -> None:
        rows = [r for sect in node.children for r in sect.children]
        if not rows:
            return
        header = [_inline(c) for c in rows[0].children]
        lead = self.lead
        for row in rows[1:]:
            cells = [_inline(c) for c in row.children]
            if not any(cells):
                continue
            pairs = [
                f"{polarity.plain(h)}: {_cell(c)}" if polarity.plain(h) else _cell(c)
                for h, c in zip(header, cells, strict=False)
                if c.strip()
            ]
            text = "; ".join(pairs)
            st = self.block(row, "table", lead)
            if st is None:
                continue
            text = polarity.with_lead(lead, text) if lead else text
            st.composed = self.under_heading(text, lead)
            self.out.append(st)


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*_])")


def _split_lead(text: str) -> tuple[str, str]:
    """(what a long lead-in paragraph says before its last sentence, the last sentence). A
    short one ("Tests are in `testing/`. Key test files:") leads in whole."""
    parts = _SENTENCE.split(text.strip())
    if len(parts) < 2:
        return "", text
    body = " ".join(parts[:-1])
    if len(body.split()) < 12:
        return "", text
    return body, parts[-1]


def _sequence(lst: SyntaxTreeNode) -> bool:
    """An ordered list of a few words per step is one sequence (an order to keep), not
    separate statements."""
    if lst.type != "ordered_list":
        return False
    return all(len(polarity.plain(_inline(it)).split()) <= 6 for it in lst.children)


def _cell(text: str) -> str:
    s = text.strip()
    if polarity.says_negative(s) and not polarity.plain(s).strip("❌🚫⛔✗✘ "):
        return "❌ no"
    if s in ("✅", "✔", "✔️", "✓"):
        return "✅ yes"
    return s


def _empty_label(text: str) -> bool:
    s = polarity.plain(text)
    return text.rstrip("*_ ").endswith((":", "：")) or not s


def split_statements(text: str, first_line: int = 1) -> list[Statement]:
    """The statements of a Markdown body whose first line is line ``first_line`` of its file."""
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]
    root = SyntaxTreeNode(_MD.parse("\n".join(lines)))
    r = _Reader(lines, first_line)
    r.run(root)
    return [s for s in r.out if s.fact.strip()]

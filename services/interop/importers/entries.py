"""Turning ``§``-delimited entries into facts, in two dialects.

*Strict* (Memory Setup): an entry starting with ``[YYYY-MM-DD][category]`` takes its date and
category from it; an impossible date, no text after the prefix, or bytes that are not UTF-8
make it malformed: reported with its line and skipped.

*Lenient* (Hermes-native, and unprefixed entries anywhere): entries carry no prefix, or
home-grown near-miss tags such as
``[ENV · 永久]`` / ``[FIXED · 2026-05-25]``, ``Topic: text`` prefixes and ``Context > X: …``
breadcrumbs. Every entry with content is imported: its date is the tag's (or an inline
``**YYYY-MM-DD:**``), else the file's; its category is inferred from the tag words, the topic
and the content. Headers, banners and entries that hold only ``---`` are structure, not facts.

Decisions (documented for users in the report):
- An unknown category in a strict entry (``[2026-04-12][idea] …``) keeps the entry as ``fact``
  and records the original in ``metadata['original_category']`` and in its tags; it is not a
  problem, because problems mean "skipped" and nothing was skipped.
- Profile lines (``- **Name:** Allen``) become one fact each, ``pref`` when the label or value is
  about taste or style, else ``fact``; their subject is ``user:<label>`` so a changed value
  supersedes the old one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from services.interop.importers.base import ImportedFact, ImportProblem
from services.interop.importers.common import (
    STRICT_PREFIX,
    Block,
    day_start,
    has_bad_bytes,
    infer_category,
    is_decoration,
    parse_date,
    profile_fact_category,
    profile_line,
    slug,
    split_blocks,
    split_lines,
    trim_block,
)

BASE_CATEGORIES = {"fact", "pref", "env", "task", "tmp", "rule", "meta"}
ALIASES = {
    "facts": "fact",
    "preference": "pref",
    "preferences": "pref",
    "prefs": "pref",
    "environment": "env",
    "todo": "task",
    "tasks": "task",
    "temp": "tmp",
    "temporary": "tmp",
    "rules": "rule",
    "project": "proj",
    "relation": "rel",
    "relationship": "rel",
    "person": "rel",
    "people": "rel",
}


@dataclass
class FileContext:
    rel: str  # how problems and source refs name the file
    fallback: datetime  # the file's date, for entries that carry none
    user_file: bool = False  # USER.md: entries are about the user
    status: str = "active"  # "pending" for overflow queues
    extra_tags: tuple[str, ...] = ()


def normalize_category(raw: str) -> tuple[str, str | None]:
    """(engram category, original spelling when it was not one Engram knows)."""
    s = raw.strip()
    head, sep, tail = s.partition(":")
    key = ALIASES.get(head.strip().lower(), head.strip().lower())
    if key in ("proj", "rel"):
        name = tail.strip() if sep else ""
        return f"{key}:{name or 'general'}", None
    if key in BASE_CATEGORIES and not tail.strip():
        return key, None
    return "fact", s


def _problem_for_text(ctx: FileContext, line: int, text: str) -> ImportProblem | None:
    if has_bad_bytes(text):
        return ImportProblem(ctx.rel, line, "invalid UTF-8 bytes in the entry")
    return None


def _clean(lines: list[str]) -> str:
    return "\n".join(ln.rstrip() for ln in lines).strip()


def strict_entry(line: int, lines: list[str], ctx: FileContext) -> ImportedFact | ImportProblem:
    """``lines[0]`` starts with the ``[date][cat]`` prefix."""
    text = "\n".join(lines)
    bad = _problem_for_text(ctx, line, text)
    if bad:
        return bad
    m = STRICT_PREFIX.match(lines[0])
    assert m is not None  # the caller chose this parser because the prefix matched
    raw_date, raw_cat = m.group(1), m.group(2)
    d = parse_date(raw_date)
    if d is None:
        return ImportProblem(ctx.rel, line, f"invalid date {raw_date!r} in the entry prefix")
    content = _clean([lines[0][m.end() :], *lines[1:]])
    if not content or all(is_decoration(ln) for ln in split_lines(content)):
        return ImportProblem(ctx.rel, line, "entry has a date and category but no content")
    category, original = normalize_category(raw_cat)
    tags = list(ctx.extra_tags)
    meta = {}
    if original:
        meta["original_category"] = original
        tags.append(slug(original))
    return ImportedFact(
        content=content,
        category=category,
        event_date=d,
        created_at=day_start(d),
        tags=tags,
        source_ref=f"{ctx.rel}:{line}",
        status=ctx.status,
        metadata=meta,
    )


def profile_facts(start: int, lines: list[str], ctx: FileContext) -> list[ImportedFact] | None:
    """One fact per ``**Label:** value`` line, or None when the lines are not a profile."""
    rows = []
    for off, ln in enumerate(lines):
        if not ln.strip() or is_decoration(ln):
            continue
        p = profile_line(ln)
        if p is None:
            return None
        rows.append((start + off, p))
    facts = []
    for no, (label, value) in rows:
        if not value or is_decoration(value) or _PLACEHOLDER.match(value):
            continue  # "- Name: {{OPERATOR_NAME}}": a template nobody filled in
        d = ctx.fallback.date()
        facts.append(
            ImportedFact(
                content=f"{label}: {value}",
                category=profile_fact_category(label, value),
                event_date=d,
                created_at=ctx.fallback,
                subject=f"user:{slug(label)}" if ctx.user_file else None,
                tags=[*ctx.extra_tags, "profile"],
                source_ref=f"{ctx.rel}:{no}",
                status=ctx.status,
            )
        )
    return facts


def is_strict(text: str) -> bool:
    """Memory Setup wins when most entries carry the ``[YYYY-MM-DD][cat]`` prefix."""
    prefixed = unprefixed = 0
    for b in split_blocks(text):
        _, lines = trim_block(b)  # a header before the first § trims away entirely
        if not lines:
            continue
        starts = [i for i, ln in enumerate(lines) if STRICT_PREFIX.match(ln)]
        prefixed += len(starts)
        if not starts or starts[0] > 0:
            unprefixed += 1  # a block, or the text before its first prefixed line
    return prefixed > 0 and prefixed >= unprefixed


# --- lenient (Hermes) ---------------------------------------------------------------------
_TAG = re.compile(r"^\s*\[([^\[\]\n]{1,60})\](?![(:])\s*")
_TAG_SPLIT = re.compile(r"\s*[·|,;/•]\s*|\s+-\s+")
_INLINE_DATE = re.compile(r"\*\*(\d{4}-\d{1,2}-\d{1,2})[:：]?\*\*")
_TOPIC = re.compile(r"^([^\n:：]{2,48}?)\s*[:：]\s+(\S.*)$", re.S)
_CRUMB = re.compile(r"^\s*([^\n:：>]{1,40})\s*>\s*")

TAG_WORDS = {
    "env": {
        "env",
        "environment",
        "config",
        "configuration",
        "setup",
        "infra",
        "tools",
        "tool",
        "system",
        "环境",
        "配置",
        "工具",
    },
    "user": {"user", "profile", "用户", "个人"},
    "pref": {"pref", "prefs", "preference", "preferences", "style", "偏好", "习惯"},
    "rule": {
        "rule",
        "rules",
        "security",
        "policy",
        "lesson",
        "lessons",
        "pitfall",
        "gotcha",
        "warning",
        "规则",
        "教训",
        "安全",
        "禁止",
    },
    "task": {"task", "tasks", "todo", "wip", "任务", "待办"},
    "tmp": {"tmp", "temp", "temporary", "临时"},
    "fact": {
        "fact",
        "facts",
        "event",
        "events",
        "log",
        "history",
        "note",
        "notes",
        "info",
        "事实",
        "事件",
        "记录",
    },
    "meta": {"meta"},
    "proj": {"proj", "project", "项目"},
}
# Status words say how long an entry lives or what happened to it, not what it is about.
NEUTRAL = {
    "fixed",
    "done",
    "resolved",
    "updated",
    "update",
    "new",
    "important",
    "active",
    "permanent",
    "perm",
    "forever",
    "永久",
    "长期",
    "重要",
    "已修复",
    "完成",
}
PERMANENT = {"permanent", "perm", "forever", "永久", "长期"}
TOPIC_HINTS = [
    (re.compile(r"\babout\b|\buser\b|\bprofile\b|关于|用户", re.I), "user"),
    (re.compile(r"\bcommunication\b|\bstyle\b|\bthinks?\b|\bpreferences?\b", re.I), "pref"),
    (re.compile(r"\benv(ironment)?\b|\bsetup\b|\btools?\b|\bconfig", re.I), "env"),
    (re.compile(r"\blessons?\b|\brules?\b|\bpitfalls?\b|\bgotchas?\b", re.I), "rule"),
    (re.compile(r"\btodo\b|\btasks?\b|in progress", re.I), "task"),
]


def _read_tags(text: str):
    """Strip leading near-miss tags: returns (rest, words, date, permanent, raw tags)."""
    words: list[str] = []
    raw: list[str] = []
    when: date | None = None
    permanent = False
    for _ in range(3):
        m = _TAG.match(text)
        if (
            not m
            or m.group(1).strip().lower() in ("", "x")
            or any(len(part.split()) > 4 for part in _TAG_SPLIT.split(m.group(1)))
        ):
            break  # a checkbox, or a bracketed phrase rather than a tag
        raw.append(m.group(1).strip())
        for part in _TAG_SPLIT.split(m.group(1).strip()):
            p = part.strip()
            if not p:
                continue
            d = parse_date(p)
            if d is not None:
                when = when or d
            elif re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", p):
                continue  # an impossible tag date: fall back to the file's date
            elif p.lower() in PERMANENT:
                permanent = True
            else:
                words.append(p)
        text = text[m.end() :]
    return text, words, when, permanent, raw


def _category_from_words(words: list[str]) -> tuple[str | None, list[str]]:
    """(category or 'user' or None, topics that are not category words). A label Engram does
    not know (``[FRAMEWORK · …]``) is a topic: a tag, never a made-up ``proj:`` category; only
    an explicit project label (``[PROJECT · name]``) names a project."""
    cat = None
    topics = []
    for w in words:
        lw = w.lower()
        hit = next((c for c, ws in TAG_WORDS.items() if lw in ws), None)
        if hit and cat is None:
            cat = hit
        elif not hit and lw not in NEUTRAL:
            topics.append(w)
    if cat == "proj":
        return f"proj:{slug(topics[0]) if topics else 'general'}", topics
    return cat, topics


def _user_category(text: str) -> str:
    """About the user: a preference when it says so, a rule when it instructs, else a fact."""
    return infer_category(text, default="fact")


_UPDATED = re.compile(r"\((?:updated|last updated|更新)[:：]?\s*(\d{4}-\d{1,2}-\d{1,2})\)", re.I)


def _topic_of(body: str) -> tuple[list[str], str | None, bool]:
    """("Context > X: …" breadcrumbs, the "Topic:" label, whether the entry is empty once the
    label is taken off: "Context > Communication Style: ---", "Name: [Your name]")."""
    first = split_lines(body)[0]
    crumbs: list[str] = []
    rest = first
    while (m := _CRUMB.match(rest)) and len(crumbs) < 4:
        crumbs.append(m.group(1).strip())
        rest = rest[m.end() :]
    tm = _TOPIC.match(rest)
    if not tm or re.search(r"[.!?。！？`]|//", tm.group(1)) or len(tm.group(1).split()) > 6:
        return crumbs, None, False
    value = (tm.group(2) + "\n" + "\n".join(split_lines(body)[1:])).strip()
    empty = (
        not value
        or all(is_decoration(ln) for ln in split_lines(value))
        or bool(_PLACEHOLDER.match(value))
    )
    return crumbs, tm.group(1).strip(), empty


def _entry_date(body: str, when: date | None) -> date | None:
    """The tag's date, else ``(updated YYYY-MM-DD)``, else an inline ``**YYYY-MM-DD:**``."""
    if when is not None:
        return when
    m = _UPDATED.search(body)
    if m and parse_date(m.group(1)):
        return parse_date(m.group(1))
    m = _INLINE_DATE.search(split_lines(body)[0])
    return parse_date(m.group(1)) if m else None


def lenient_entry(line: int, lines: list[str], ctx: FileContext, section: str | None = None):
    """ImportedFact, list of facts (a profile block), ImportProblem, or None (not a fact).
    ``section`` is the markdown heading above the entry in a hand-written file."""
    text = "\n".join(lines)
    bad = _problem_for_text(ctx, line, text)
    if bad:
        return bad
    if STRICT_PREFIX.match(lines[0]):
        return strict_entry(line, lines, ctx)
    prof = profile_facts(line, lines, ctx)
    if prof is not None:
        return prof or None
    body, words, when, permanent, raw_tags = _read_tags(_clean(lines))
    body = body.strip()
    if not body or all(is_decoration(ln) for ln in split_lines(body)):
        return None
    crumbs, topic, empty = _topic_of(body)
    if empty or _PLACEHOLDER.match(body):
        return None
    category, _ = _category_from_words(words)
    tags = [*ctx.extra_tags, *(slug(w) for w in words), *(["permanent"] if permanent else [])]
    # A bracket tag already classifies the entry; topics then only add noise to the tags.
    for t in [*crumbs, *([topic] if topic and not raw_tags else []), *([section] or [])]:
        if not t:
            continue
        tags.append(slug(t))
        if category is None:
            category = next((c for pat, c in TOPIC_HINTS if pat.search(t)), None)
    return _lenient_fact(line, body, ctx, category, tags, raw_tags, permanent, when)


def _lenient_fact(line, body, ctx, category, tags, raw_tags, permanent, when) -> ImportedFact:
    when = _entry_date(body, when)
    if category is None and ctx.user_file:
        category = "user"
    if category == "user":
        category = _user_category(body)
        tags.append("user")
    elif category is None:
        category = infer_category(body)
    meta = {"tag": " ".join(f"[{t}]" for t in raw_tags)} if raw_tags else {}
    if when is None:
        meta["date_source"] = "file"  # no date in the entry: the file's modification date
    return ImportedFact(
        content=body,
        category=category,
        importance=0.7 if permanent else 0.5,
        event_date=when or ctx.fallback.date(),
        created_at=day_start(when) if when else ctx.fallback,
        tags=list(dict.fromkeys(t for t in tags if t)),
        source_ref=f"{ctx.rel}:{line}",
        status=ctx.status,
        pinned=permanent,
        metadata=meta,
    )


_BULLET = re.compile(r"^\s{0,3}(?:[-*+•]|\d+[.)])\s+")
_LABEL_LINE = re.compile(r"^\s*[^\s:：.!?。][^:：.!?。]{0,39}[:：]\s+\S")
_HEADING_TEXT = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
# Unfilled templates: "{{OPERATOR_NAME}}", "[Your name]", "(your name)", "(e.g. America/New_York)"
_PLACEHOLDER = re.compile(
    r"^\{\{[^{}]*\}\}$|^\[(?:your|insert|add|fill)\b[^\]]*\]$|"
    r"^\((?:your|e\.g\.|eg\b|how you|what you|tools, )[^)]*\)$",
    re.I,
)
_ITALIC_PARA = re.compile(r"^\*[^*].*[^*]\*$|^_[^_].*[^_]_$", re.S)


def _loose_items(block: Block):
    """A file without any § (a hand-written USER.md or notes): its statements as the Markdown
    reader cuts them (a "**NEVER**:" lead-in stays with each item it heads), with
    ``Label: value`` lines of one paragraph as entries of their own; the ``##`` heading above
    an entry says what it is about."""
    from services.interop.importers.mdreader import split_statements

    items: list[tuple[int, list[str], str | None]] = []
    for st in split_statements("\n".join(block.lines), block.start):
        if st.kind == "quote" and not items:
            continue  # a preamble note about the file
        text = st.fact
        if st.kind == "para" and _ITALIC_PARA.match(text):
            continue
        section = next(
            (t for t, lv in zip(reversed(st.sections), reversed(st.levels)) if 2 <= lv <= 6),
            None,
        )
        lines = split_lines(text)
        if st.kind == "para" and len(lines) > 1 and all(_is_label_line(ln) for ln in lines):
            items += [(st.start + i, [ln], section) for i, ln in enumerate(lines)]
        else:
            items.append((st.start, lines, section))
    return items


def _is_label_line(line: str) -> bool:
    return bool(profile_line(line) or _LABEL_LINE.match(line) or STRICT_PREFIX.match(line))


def parse_entries(text: str, ctx: FileContext) -> tuple[list[ImportedFact], list[ImportProblem]]:
    """Every entry of a MEMORY.md/USER.md-style file: prefixed ones strictly, the rest
    leniently (an agent writing through Hermes' memory tool drops the prefix even in a
    Memory Setup workspace, and those entries are memories too)."""
    facts: list[ImportedFact] = []
    problems: list[ImportProblem] = []
    blocks = split_blocks(text)
    if len(blocks) == 1:
        items = _loose_items(blocks[0])
    else:
        items = []
        for b in blocks:
            off, lines = trim_block(b)
            # Hermes never writes a header: a titled block before the first § was written by
            # a person to describe the file, prose included. Profile lines and prefixed
            # entries under such a title still count.
            first_entry = 0
            if b.first and any(ln.strip() and is_decoration(ln) for ln in b.lines[:off]):
                first_entry = next(
                    (i for i, ln in enumerate(lines) if STRICT_PREFIX.match(ln)), len(lines)
                )
                items += [
                    (b.line_of(off + i), [ln], None)
                    for i, ln in enumerate(lines[:first_entry])
                    if profile_line(ln)
                ]
            if first_entry >= len(lines):
                continue
            # several "[date][cat]" lines in one block are several entries
            cuts = [first_entry] + [
                i for i, ln in enumerate(lines) if i > first_entry and STRICT_PREFIX.match(ln)
            ]
            for k, i in enumerate(cuts):
                j = cuts[k + 1] if k + 1 < len(cuts) else len(lines)
                items.append((b.line_of(off + i), lines[i:j], None))
    for line, lines, section in items:
        sort_entry(lenient_entry(line, lines, ctx, section), facts, problems)
    return facts, problems


def sort_entry(r, facts: list, problems: list) -> None:
    """File what ``lenient_entry`` returned: a fact, a profile block's facts, a problem, or
    nothing."""
    if isinstance(r, ImportProblem):
        problems.append(r)
    elif isinstance(r, list):
        facts.extend(r)
    elif r is not None:
        facts.append(r)


def parse_entry_file(f, rel: str, text: str, out) -> None:
    """Entries of one MEMORY.md/USER.md-style file into ``out`` (USER.md entries are about
    the user); dated by the file where an entry carries no date of its own."""
    from services.interop.importers.common import file_time

    user = f.name.lower() == "user.md"
    ctx = FileContext(
        rel=rel, fallback=file_time(f), user_file=user, extra_tags=("user",) if user else ()
    )
    facts, problems = parse_entries(text, ctx)
    out.facts.extend(facts)
    out.problems.extend(problems)

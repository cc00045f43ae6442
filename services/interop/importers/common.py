"""Pieces the markdown importers share: reading files that may not be clean UTF-8, splitting
``§``-delimited entries with their line numbers, reading dates and times, and guessing a
category from what an entry says when its writer did not name one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from services.ingest import limits
from services.interop.importers.base import ImportProblem

# Hermes' writer joins entries with "\n§\n"; a "§" alone on a line is the delimiter.
DELIMITER = "§"

# "[2026-04-12][pref] …": the date part is matched by shape so a bad date can be reported.
STRICT_PREFIX = re.compile(
    r"^\s*\[(\d{4}-\d{1,2}-\d{1,2})\]\s*\[([^\]\n]{1,80})\]\s*(?:[:\-–—]\s+)?"
)
DATE_SHAPE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
# Surrogate escapes stand for bytes that are not UTF-8 (decoded with surrogateescape).
_BAD_BYTES = re.compile("[\udc80-\udcff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")

_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_BANNER = re.compile(r"^\s*(?:[═─━=\-_*~·•+]\s*){3,}$")
_QUOTE = re.compile(r"^\s*>")
_ITALIC_LINE = re.compile(r"^\s*(?:\*[^*\s][^*]*\*|_[^_\s][^_]*_)\s*$")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")


@dataclass
class Block:
    """The text between two ``§`` lines. ``start`` is the 1-based line of its first line."""

    start: int
    lines: list[str]
    first: bool  # before the first delimiter (where headers and preambles live)

    def line_of(self, offset: int) -> int:
        return self.start + offset


def head(path: Path, size: int = 4096) -> str:
    """A file's first bytes as text (undecodable bytes replaced): enough to tell its format;
    "" when it cannot be read."""
    try:
        with path.open("rb") as fh:
            return fh.read(size).decode("utf-8", "replace")
    except OSError:
        return ""


def read_text(path: Path, rel: str) -> tuple[str | None, list[ImportProblem]]:
    """The file's text (undecodable bytes kept as surrogate escapes, so the entries that hold
    them can be reported one by one), or None and a problem when it is not text at all."""
    try:
        too_large = limits.file_too_large(path.stat().st_size)
        if too_large:  # skipped with its reason; the folder's other files still import
            return None, [ImportProblem(rel, None, too_large)]
        raw = path.read_bytes()
    except OSError as exc:
        return None, [ImportProblem(rel, None, f"cannot read the file: {exc.strerror or exc}")]
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # Windows editors' UTF-16
        try:
            return raw.decode("utf-16"), []
        except UnicodeDecodeError:
            pass
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    text = raw.decode("utf-8", errors="surrogateescape")
    if looks_binary(raw, text):
        return None, [
            ImportProblem(rel, None, "not a text file (binary data); nothing was imported from it")
        ]
    return text, []


def looks_binary(raw: bytes, text: str) -> bool:
    if b"\x00" in raw[:65536]:
        return True
    if not text:
        return False
    junk = len(_BAD_BYTES.findall(text)) + len(_CONTROL.findall(text))
    return junk / len(text) > 0.10


def has_bad_bytes(text: str) -> bool:
    return bool(_BAD_BYTES.search(text))


def clean(text: str) -> str:
    """Undecodable bytes as U+FFFD, for side fields (tags, paths) that are kept, not judged."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def split_lines(text: str) -> list[str]:
    # str.splitlines also breaks on form feeds and U+2028, which editors don't count as lines.
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]


def split_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    cur: list[str] = []
    start, first = 1, True
    for no, line in enumerate(split_lines(text), 1):
        if line.strip() == DELIMITER:
            blocks.append(Block(start, cur, first))
            cur, start, first = [], no + 1, False
        else:
            cur.append(line)
    blocks.append(Block(start, cur, first))
    return blocks


def has_delimiter(text: str) -> bool:
    return any(line.strip() == DELIMITER for line in split_lines(text))


def is_decoration(line: str, preamble: bool = False) -> bool:
    """Markdown that frames entries rather than saying anything: headings, rules, banners."""
    s = line.strip()
    if not s:
        return True
    if _HEADING.match(s) or _BANNER.match(s) or _COMMENT.match(s):
        return True
    return preamble and bool(_QUOTE.match(s) or _ITALIC_LINE.match(s))


def trim_block(block: Block, preamble: bool | None = None) -> tuple[int, list[str]]:
    """Drop leading/trailing decoration; returns (offset of the first kept line, lines)."""
    pre = block.first if preamble is None else preamble
    lines = block.lines
    lo, hi = 0, len(lines)
    while lo < hi and is_decoration(lines[lo], pre):
        lo += 1
    while hi > lo and (not lines[hi - 1].strip() or _BANNER.match(lines[hi - 1].strip())):
        hi -= 1
    return lo, lines[lo:hi]


def parse_date(text: str) -> date | None:
    m = DATE_SHAPE.fullmatch(text.strip())
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def day_start(d: date) -> datetime:
    return datetime(d.year, d.month, d.day)


def file_time(path: Path) -> datetime:
    """The file's modification time as a naive UTC datetime (the store's convention)."""
    try:
        ts = path.stat().st_mtime
    except OSError:
        ts = datetime.now(UTC).timestamp()
    return datetime.fromtimestamp(ts, UTC).replace(tzinfo=None, microsecond=0)


def parse_iso(value) -> datetime | None:
    """ISO-8601 (with 'Z' or an offset, or Lynn's minute-precision 'YYYY-MM-DDTHH:MM') as naive
    UTC."""
    if not value or not isinstance(value, str):
        return None
    s = value.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        d = parse_date(s[:10]) if len(s) >= 10 else None
        return day_start(d) if d else None
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC).replace(tzinfo=None)
    return dt.replace(microsecond=0)


_TIME = re.compile(r"^\s*(\d{1,2})(?::|\.|h)(\d{2})\s*(?:([AaPp])\.?\s*[Mm]\.?)?\s*$")


def parse_clock(text: str) -> str | None:
    """'2:30 PM', '2:30pm', '14:30' → '2:30 PM' (how the Episode table stores times)."""
    m = _TIME.match(text)
    if not m:
        return None
    h, mi, ap = int(m.group(1)), int(m.group(2)), m.group(3)
    if mi > 59:
        return None
    if ap:
        if not 1 <= h <= 12:
            return None
        return f"{h}:{mi:02d} {ap.upper()}M"
    if h > 23:
        return None
    return clock(h, mi)


def clock(hour: int, minute: int) -> str:
    return f"{(hour % 12) or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def slug(text: str, limit: int = 40) -> str:
    s = re.sub(r"[^\w.\-]+", "-", text.strip().lower(), flags=re.UNICODE).strip("-.")
    return s[:limit].strip("-") or "general"


# --- category inference -------------------------------------------------------------------
# Order matters: an instruction that mentions a preference is still an instruction.
_RULES = [
    (
        "rule",
        re.compile(
            r"\b(always|never|must|must not|mustn't|don't|do not|avoid|make sure|"
            r"should not|shouldn't)\b|必须|不要|禁止|务必|总是|切勿|不得|不能",
            re.I,
        ),
    ),
    (
        "task",
        re.compile(
            r"\b(todo|to-do|in progress|next step|next steps|still needs?|blocked on|"
            r"wip|follow[- ]up)\b|待办|进行中|下一步|待测|未完成|待处理",
            re.I,
        ),
    ),
    (
        "pref",
        re.compile(
            r"\b(prefers?|preferred|preference|likes?|dislikes?|loves?|hates?|wants?|"
            r"favou?rite|enjoys?)\b|偏好|喜欢|讨厌|习惯|口味",
            re.I,
        ),
    ),
    (
        "env",
        re.compile(
            r"(~/|/users/|/home/|\b[a-z]:\\|\.env\b|\b(installed|version|provider|"
            r"config|configured|port|directory|dotfiles|shell|macos|linux|windows|"
            r"python \d|node \d|homebrew|docker)\b)|环境|配置|目录|安装|版本",
            re.I,
        ),
    ),
]


def infer_category(text: str, default: str = "fact") -> str:
    for cat, pat in _RULES:
        if pat.search(text):
            return cat
    return default


def profile_line(line: str) -> tuple[str, str] | None:
    """'- **Name:** Allen' / '**Timezone:** UTC+8' → (label, value)."""
    m = re.match(r"^\s*(?:[-*+•]\s+)?\*\*([^*\n]{1,60}?)\s*[:：]\s*\*\*\s*(.*)$", line) or re.match(
        r"^\s*(?:[-*+•]\s+)?\*\*([^*\n]{1,60}?)\*\*\s*[:：]\s*(.*)$", line
    )
    if not m:
        return None
    return m.group(1).strip(), m.group(2).strip()


_PREF_LABELS = re.compile(
    r"prefer|style|communicat|like|dislike|tone|language|format|habit|"
    r"偏好|风格|习惯|沟通",
    re.I,
)


def profile_fact_category(label: str, value: str) -> str:
    return "pref" if _PREF_LABELS.search(label) or infer_category(value) == "pref" else "fact"

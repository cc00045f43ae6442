"""Text normalisation shared by dedup, forget rules and search."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any

_WS = re.compile(r"\s+")
_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
WORD = re.compile(r"\w+", re.UNICODE)


def normalize(text: str) -> str:
    """Case-, width- and punctuation-insensitive form used to spot exact duplicates."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _PUNCT.sub(" ", text)
    return _WS.sub(" ", text).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()


def words(text: str) -> list[str]:
    return WORD.findall(normalize(text))


def query_terms(text: str) -> tuple[list[str], list[str]]:
    """The quoted phrases (each already an FTS5 phrase string) and the loose words of a
    user's query. Only word characters survive, so user text can never inject FTS5 syntax."""
    phrases: list[str] = []
    loose: list[str] = []
    for m in re.finditer(r'"([^"]+)"|(\S+)', text):
        if m.group(1):
            toks = WORD.findall(m.group(1))
            if toks:
                phrases.append('"' + " ".join(toks) + '"')
        else:
            loose.extend(WORD.findall(m.group(2)))
    return phrases, loose


def fts_query(text: str, mode: str = "any") -> str:
    """Free text as a safe FTS5 MATCH expression: phrases stay phrases, every other word is a
    quoted token; ``mode='any'`` ORs the terms (BM25 ranks), 'all' ANDs them."""
    phrases, loose = query_terms(text)
    joiner = " OR " if mode == "any" else " AND "
    return joiner.join(phrases + [f'"{t}"' for t in loose])


_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        "january february march april may june july august september october november december".split()
    )
}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MON = (
    r"(january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
# most specific first; each match's span is blanked so "May 3, 2023" is not also "May 2023"
_DATE_FORMS = [
    ("ymd", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MON},?\s+{_YEAR}\b", re.I)),
    ("mdy", re.compile(rf"\b{_MON}\s+{_DAY},?\s+{_YEAR}\b", re.I)),
    ("my", re.compile(rf"\b{_MON},?\s+(?:of\s+)?{_YEAR}\b", re.I)),
    # a month with no year: only a capitalised name after a preposition ("in June"), so the
    # verb "may" and the name "June" on their own are not read as dates
    (
        "m",
        re.compile(
            r"\b(?:in|during|of|since|until|by|early|late|mid|mid-)\s+"
            r"(January|February|March|April|May|June|July|August|September|October|"
            r"November|December)\b"
        ),
    ),
]


def query_dates(text: str) -> list[tuple[int | None, int, int | None]]:
    """Calendar dates a query names, as (year or None, month, day or None): "on May 3, 2023"
    → (2023, 5, 3), "in December 2023" → (2023, 12, None), "in June" → (None, 6, None).
    A year alone is ignored (it covers too much to tell memories apart)."""
    from datetime import date

    out: list[tuple[int | None, int, int | None]] = []
    rest = text
    for kind, rx in _DATE_FORMS:
        for m in rx.finditer(rest):
            g = m.groups()
            if kind == "ymd":
                y, mo, d = int(g[0]), int(g[1]), int(g[2])
            elif kind == "dmy":
                d, mo, y = int(g[0]), _MONTHS[g[1].lower()], int(g[2])
            elif kind == "mdy":
                mo, d, y = _MONTHS[g[0].lower()], int(g[1]), int(g[2])
            elif kind == "my":
                mo, y, d = _MONTHS[g[0].lower()], int(g[1]), None
            else:
                mo, y, d = _MONTHS[g[0].lower()], None, None
            try:
                date(y or 2000, mo, d or 1)
            except ValueError:
                continue
            out.append((y, mo, d))
        rest = rx.sub(lambda m: " " * len(m.group(0)), rest)
    return out


class CleanText(str):
    """Memory text that has passed the write policy (``services.ingest.policy.sanitize``).
    Only the policy makes one; the store writes memory text of no other type."""

    __slots__ = ()


class CleanMeta(dict):
    """A fact's metadata whose every string (keys and values, at any depth) has passed the
    write policy (``WritePolicy.metadata``): review notes, frontmatter descriptions and an
    import's entity names are memory text too."""

    __slots__ = ()


def require_clean(value: object, what: str = "memory text") -> str:
    if not isinstance(value, CleanText):
        raise TypeError(f"{what} must pass services.ingest.policy.sanitize before it is stored")
    return str(value)


def require_clean_subject(value: object) -> str | None:
    return None if value is None else require_clean(value, "a subject")


def require_clean_tags(tags: Any) -> list[str]:
    for t in tags or ():
        require_clean(t, "a tag")
    return list(tags or ())


def require_clean_meta(meta: Any) -> dict:
    if meta is None or (isinstance(meta, dict) and not meta):
        return {}
    if not isinstance(meta, CleanMeta):
        raise TypeError("metadata must pass services.ingest.policy before it is stored")
    return dict(meta)

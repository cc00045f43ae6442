"""Text normalisation shared by dedup, forget rules and search."""
from __future__ import annotations

import hashlib
import re
import unicodedata

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


def fts_query(text: str, mode: str = "any") -> str:
    """Turn free text into a safe FTS5 MATCH expression.

    Quoted phrases in the input stay phrases; every other word becomes a quoted token, so
    user text can never inject FTS5 syntax. ``mode='any'`` ORs the terms (BM25 ranks), 'all'
    ANDs them.
    """
    parts: list[str] = []
    for m in re.finditer(r'"([^"]+)"|(\S+)', text):
        if m.group(1):
            toks = WORD.findall(m.group(1))
            if toks:
                parts.append('"' + " ".join(toks) + '"')
        else:
            parts.extend(f'"{t}"' for t in WORD.findall(m.group(2)))
    joiner = " OR " if mode == "any" else " AND "
    return joiner.join(parts)

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

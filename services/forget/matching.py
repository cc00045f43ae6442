"""How forget decides that a text mentions what is being forgotten, the same way in the
preview, the purge and the verification (a receipt and ``--verify`` must never disagree).

Both sides are folded: default-ignorable code points removed (a soft hyphen or a zero-width
space inside "Frob\u00adnitz" hides nothing), NFKC, case folding, punctuation as spaces. A
term then matches only as whole words: "Python 3.9" is not in "Python 3.11", "cat" is not in
"category". Scripts written without spaces (CJK) are matched as substrings on those sides.
"""

from __future__ import annotations

import re

from services.store.text import normalize

# Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties), the ones seen in text
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)


def fold(text: str | None) -> str:
    """The form both sides are compared in."""
    if not text:
        return ""
    return normalize(_IGNORABLE.sub("", text))


def spaced(ch: str) -> bool:
    """Is a word edge at this character marked by a space in running text? (Not for CJK,
    kana, Thai and other scripts written without spaces between words.)"""
    return ord(ch) < 0x0E00 or 0x1E00 <= ord(ch) < 0x2E80


def found_at(hay: str, term: str, i: int) -> bool:
    """Does ``term`` (folded) occur in ``hay`` (folded) at ``i`` as whole words?"""
    if not hay.startswith(term, i):
        return False
    j = i + len(term)
    if i > 0 and spaced(term[0]) and hay[i - 1] != " ":
        return False
    return not (j < len(hay) and spaced(term[-1]) and hay[j] != " ")


def contains(hay: str, term: str) -> bool:
    """Whole-word occurrence of a folded term in a folded text."""
    if not term:
        return False
    i = hay.find(term)
    while i != -1:
        if found_at(hay, term, i):
            return True
        i = hay.find(term, i + 1)
    return False


def mentions(text: str | None, term: str | None) -> bool:
    return contains(fold(text), fold(term))


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def numbers(text: str | None) -> list[str]:
    """The numbers a text names, versions included ("3.9", "18"), as written."""
    return _NUMBER.findall(text or "")


def same_numbers(query: str, content: str) -> bool:
    """A text about "Python 3.9" is not about "Python 3.11": every number the query names
    must be in the content as a whole number (used to keep semantic look-alikes out)."""
    have = set(numbers(content))
    return all(n in have for n in numbers(query))

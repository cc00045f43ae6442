"""The forget's effect plan: what one preview decided, reused unchanged by the execution,
the receipt and the journal (issue #30: preview, execution, receipt and verify used to list
places each on their own).

A candidate the user left out after review (``exclude_ids``) is kept *as a text* too: the
scope's words ("Quokka Bakery") would still reach its line in an instruction file, its
episode or its layer block. ``PlanTerms`` blanks each kept fact's own text out of whatever
it tests, so only what still mentions something forgotten matches.
"""

from __future__ import annotations

from collections.abc import Iterable

from services.forget.files import Terms
from services.forget.matching import fold, found_at, mentions


class PlanTerms(Terms):
    """``Terms`` that never match a kept fact's own words (see the module's doc)."""

    def __init__(self, terms: Iterable[str], kept: Iterable[str] = ()):
        super().__init__(list(terms))
        # longest first: a kept text inside another kept text must not cut it in two
        self.kept = sorted({k for k in (fold(x) for x in kept if x) if k}, key=len, reverse=True)

    def mentions(self, text: str | None) -> bool:
        if not self.kept or not text:
            return super().mentions(text)
        return super().mentions(_blank(fold(text), self.kept))


_GAP = " 0engramkept0 "


def _blank(n: str, kept: list[str]) -> str:
    """The folded text with every whole-word occurrence of a kept text replaced by a word no
    term holds (a plain space would join the words on either side into a new phrase)."""
    for k in kept:
        i = n.find(k)
        while i != -1:
            if found_at(n, k, i):
                n = n[:i] + _GAP + n[i + len(k) :]
                i = n.find(k, i + len(_GAP))
            else:
                i = n.find(k, i + 1)
    return n


def said_by_kept(terms: Iterable[str], kept: Iterable[str]) -> set[str]:
    """The terms (the scope's words) a kept fact still says: they stay, by the user's
    choice, so a store copy or the check afterwards is judged by the other terms."""
    kept = list(kept)
    return {x for x in terms if any(mentions(k, x) for k in kept)} if kept else set()

"""Episode recall: which sessions a query is about.

Kept beside the fact search (``hybrid.Searcher``), not inside it: episodes are ranked by what
share of the query's content words their summary holds (BM25 picks the candidates), with a
small nudge for recency, so "when did we fix the checkout rounding?" finds the session that
did it; a long question needs two of its words in common, not all of them. Stop words do not count, so a query of only common words finds nothing rather than
everything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from services.ingest.limits import trim_query
from services.store.episodes import EpisodeView
from services.store.handle import MemoryHandle
from services.store.text import WORD

_STOP = set(
    """a an and are as at be by did do does for from had has have how i in is it its me my of
on or our so that the their them then there these they this to was we were what when where
which who why will with you your did about into over after before again just can could
should would session sessions""".split()
)
_NONWORD = re.compile(r"\W+")


@dataclass(frozen=True)
class EpisodeHit:
    episode: EpisodeView
    score: float  # 0..1: how many of the query's content words the episode holds (3 = all)
    matched: tuple[str, ...]

    def to_json(self) -> dict:
        return {
            "kind": "episode",
            "score": round(self.score, 4),
            "matched": list(self.matched),
            "episode": self.episode.to_json(),
        }


def content_words(query: str) -> list[str]:
    out: list[str] = []
    for w in WORD.findall(query.lower()):
        if len(w) > 1 and w not in _STOP and w not in out:
            out.append(w)
    return out


def _holds(text: str, word: str) -> bool:
    """The word, or a longer form of it ("fix" in "fixed"), in the text."""
    return any(tok.startswith(word) for tok in _NONWORD.split(text.lower()) if tok)


def recall_episodes(
    memory: MemoryHandle, query: str, k: int = 5, since: date | None = None, min_score: float = 0.34
) -> list[EpisodeHit]:
    words = content_words(trim_query(query))
    if not words:
        return []
    candidates = memory.episodes.search(" ".join(words), limit=max(20, k * 4))
    hits = []
    for ep in candidates:
        if since and ep.day < since:
            continue
        text = " ".join([ep.summary, *ep.tags])
        matched = tuple(w for w in words if _holds(text, w))
        # a long question is not less about a session for holding many words: two of its
        # content words in common (one for a one-word query) is a match
        share = min(1.0, len(matched) / min(len(words), 3))
        if share < min_score:
            continue
        hits.append((share, ep.day.toordinal(), ep.id, EpisodeHit(ep, share, matched)))
    hits.sort(key=lambda h: (-h[0], -h[1], -h[2]))
    return [h[3] for h in hits[:k]]

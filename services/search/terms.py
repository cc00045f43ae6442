"""What a keyword query is made of, for either backend: quoted phrases, content words (function
words dropped unless nothing else is left), and CJK runs looked up as substrings."""

from __future__ import annotations

import re
from typing import Any

from services.search.sql import run, sql_filters
from services.store.facts import FactFilters
from services.store.text import query_terms

# English function words and question words. Dropped from OR queries: each one matches most
# memories and drowns the few content words that decide the answer.
STOPWORDS = frozenset(
    """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing done down during each else ever few for
from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me might more most must my myself no nor not now of off on once only or
other our ours ourselves out over own same shall she should so some such than that the their
theirs them themselves then there these they this those through to too under until up upon us
very was we were what when where which while who whom whose why will with would you your yours
yourself yourselves also may yet
""".split()
)


def content_terms(text: str, stopwords: bool = True) -> tuple[list[str], list[str]]:
    """(phrases as FTS5 phrase strings, distinct words) of a query."""
    phrases, words = query_terms(text)
    if stopwords:
        content = [w for w in words if w.casefold() not in STOPWORDS]
        if content or phrases:
            words = content
    seen: set[str] = set()
    out = []
    for w in words:
        if w.casefold() not in seen:
            seen.add(w.casefold())
            out.append(w)
    return list(phrases), out


# unicode61 (and PostgreSQL's default parser) does not segment Chinese/Japanese/Korean:
# "回归测试" inside "今天做了回归测试" is not a token of its own. CJK runs in a query are also
# looked up as substrings (a bounded LIKE scan of one agent's facts), scored below a full hit.
CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}")


def merge_substring_hits(
    db: Any, agent_id: int, query: str, filters: FactFilters, n: int, hits: Any
) -> Any:
    runs = CJK_RUN.findall(query)
    if not runs:
        return hits
    best = max((s for _, s in hits), default=1.0)
    found: dict[int, int] = {}
    for r in runs:
        sql = "SELECT f.id FROM fact f WHERE f.agent_id = ? AND f.content LIKE ?"
        params: list = [agent_id, f"%{r}%"]
        sql, params = sql_filters(sql, params, filters)
        sql += " ORDER BY f.id DESC LIMIT ?"
        params.append(n)
        for (fid,) in run(db, sql, params).fetchall():
            found[fid] = found.get(fid, 0) + 1
    scores = dict(hits)
    for fid, k in found.items():
        scores[fid] = max(scores.get(fid, 0.0), 0.9 * best * k / len(runs))
    return sorted(scores.items(), key=lambda t: -t[1])[:n]

"""Who said a memory, and which names in a query are people who speak in the store.

A transcript memory reads ``Name: what was said``. A question that names a speaker ("What
did Melanie paint?") is answered by what that speaker said, which the second stage
(``rerank.py``) rewards. In the keyword leg the same name only adds noise: it matches every
turn that says "Thanks, Melanie!" to her, and outweighs the one rare word that decides the
answer. So in hybrid mode a query's speaker names are left out of the keyword query (the
embedding still reads the whole question) and the speaker rule does their work. On LoCoMo:
test R@5 +0.010, MRR +0.008;
dev a wash in the bench (R@5 -0.006, MRR +0.001; ``docs/retrieval.md``).

A capitalised query word counts as a speaker only if one of the agent's memories starts with
it and a colon: "Python" in a question about a project is never dropped.
"""

from __future__ import annotations

import re
from typing import Any

from models.db import is_postgres
from services.search.sql import run
from services.search.terms import STOPWORDS

# "Caroline: ...", "Dr. Ng: ...": a short capitalised name then a colon, at the very start
_SPEAKER = re.compile(r"^\s*([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2})\s*:\s")
_NAME = re.compile(r"\b[A-Z][\w-]*")  # stops at an apostrophe: "Ana's" names Ana
_WORD = re.compile(r"\S+")
_MAX_NAMES = 8  # a query naming more is not a question about people; one lookup each


def speaker_of(text: str) -> str | None:
    """The name a transcript line starts with (``"Ana: hi"`` → ``"Ana"``), else None."""
    m = _SPEAKER.match(text or "")
    return m.group(1) if m else None


def named_in(query: str) -> set[str]:
    """Capitalised words of the query, the way a question names people (``"Ana's"`` → ana)."""
    return {w.lower() for w in _NAME.findall(query or "")}


def _candidates(query: str) -> list[str]:
    # a question's first word is capitalised too: "What", "When" are never looked up
    return sorted(n for n in named_in(query) if n not in STOPWORDS)


def speakers_named(db: Any, agent_id: int, query: str) -> set[str]:
    """The names of ``query`` (lower case) that start at least one of the agent's memories
    as ``Name:``. One indexed lookup per name on SQLite (FTS5's initial-token query, then
    the colon checked on the few rows it returns)."""
    names = _candidates(query)
    if not names or len(names) > _MAX_NAMES:
        return set()
    found = set()
    for name in names:
        if not name.replace("-", "").isalnum():
            continue
        pattern = name.replace("_", "\\_") + ":%"
        if is_postgres(db):
            # the full-text index narrows to the memories holding the name, as on SQLite
            sql = (
                "SELECT 1 FROM fact f WHERE f.fts @@ plainto_tsquery('english', ?) "
                "AND f.agent_id = ? AND f.status = 'active' "
                "AND f.content ILIKE ? ESCAPE '\\' LIMIT 1"
            )
            params: list = [name, agent_id, pattern]
        else:
            sql = (
                # NOT INDEXED: from the name's FTS rows to their facts by rowid; left to
                # itself SQLite walks the agent's index and matches each row (200 ms at 100k
                # for a name nobody speaks as)
                "SELECT 1 FROM fact_fts JOIN fact f NOT INDEXED ON f.id = fact_fts.rowid "
                "WHERE fact_fts MATCH ? AND f.agent_id = ? AND f.status = 'active' "
                "AND f.content LIKE ? ESCAPE '\\' LIMIT 1"
            )
            params = [f'content: ^"{name}"', agent_id, pattern]
        if run(db, sql, params).fetchone():
            found.add(name)
    return found


def without_names(query: str, names: set[str]) -> str:
    """``query`` less the words that are one of ``names`` (``"Ana's"`` counts as Ana); the
    query itself when nothing else would be left."""
    if not names:
        return query
    kept = [w for w in _WORD.findall(query) if _base(w) not in names]
    rest = " ".join(kept)
    return rest if re.search(r"\w", rest) else query


def _base(word: str) -> str:
    w = re.sub(r"['’]s\W*$", "", word)
    return re.sub(r"\W", "", w).lower()

"""The store's own full-text index, as the hybrid search calls it: SQLite FTS5 BM25 on the
local store (``keyword_sqlite``), ``ts_rank_cd`` over a generated tsvector on a team store
(``keyword_postgres``). Each backend is a module; the module itself satisfies the protocol."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from peewee import Database

from models.db import is_postgres
from services.store.facts import FactFilters

# (db, agent id, query, filters, n, mode "any"/"all", drop stop words) → (fact id, relevance
# ≥ 0) best first, at most n
Candidates = Callable[[Database, int, str, FactFilters, int, str, bool], list[tuple[int, float]]]


class KeywordBackend(Protocol):
    @property
    def keyword_candidates(self) -> Candidates: ...


def keyword_backend(db: Database) -> KeywordBackend:
    if is_postgres(db):
        from services.search import keyword_postgres

        return keyword_postgres
    from services.search import keyword_sqlite

    return keyword_sqlite

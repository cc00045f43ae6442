"""SQL both backends share: the filters as a WHERE tail, a list of ids as one parameter, and
one way to run it. Written with ``?`` placeholders; ``run`` turns them into psycopg's ``%s``
on PostgreSQL (no SQL here holds a literal ``?`` or ``%``: patterns are parameters)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from models.db import is_postgres
from services.store.facts import FactFilters, tag_needle


def run(db: Any, sql: str, params: Sequence[Any] = ()) -> Any:  # a DB-API cursor
    if is_postgres(db):
        sql = sql.replace("%", "%%").replace("?", "%s")
    return db.execute_sql(sql, list(params))


def facts_by_id(db: Any) -> str:
    """``FROM`` for a query that picks facts out of an id list. SQLite cannot size a
    ``json_each`` list, so it walked the agent's (agent_id, status) index and tested every
    fact against the list: 7 ms at 100k facts, three times a hybrid search. ``NOT INDEXED``
    leaves it the rowid lookups only (0.07 ms); an ``ANALYZE`` would do it too, but only
    once statistics exist and while they stay true."""
    return "fact f" if is_postgres(db) else "fact f NOT INDEXED"


def ids_in(db: Any, ids: Iterable[int]) -> tuple[str, object]:
    """``IN (…)`` over a list of ids passed as one parameter (no per-id placeholder)."""
    ids = sorted(int(i) for i in ids)
    if is_postgres(db):
        return "= ANY(?)", ids
    return "IN (SELECT value FROM json_each(?))", json.dumps(ids)


def sql_filters(sql: str, params: list, f: FactFilters) -> tuple[str, list]:
    if f.status:
        sql += " AND f.status IN (%s)" % ",".join("?" * len(f.status))
        params += list(f.status)
    if f.category:
        conds = []
        for c in f.category:
            if c.endswith(":"):
                conds.append("f.category LIKE ?")
                params.append(c + "%")
            else:
                conds.append("f.category = ?")
                params.append(c)
        sql += " AND (" + " OR ".join(conds) + ")"
    if f.memory_type:
        sql += " AND f.memory_type IN (%s)" % ",".join("?" * len(f.memory_type))
        params += list(f.memory_type)
    if f.pinned is not None:
        sql += " AND f.pinned = ?"
        params.append(bool(f.pinned))
    if f.since is not None:
        sql += " AND f.created_at >= ?"
        params.append(_iso(f.since))
    if f.until is not None:
        sql += " AND f.created_at <= ?"
        params.append(_iso(f.until, end=True))
    if f.text:
        sql += " AND f.content LIKE ? ESCAPE '\\'"
        params.append(f"%{_like_escape(f.text)}%")
    if f.tags:
        sql += " AND (" + " OR ".join(["f.tags LIKE ? ESCAPE '\\'"] * len(f.tags)) + ")"
        params += [f"%{_like_escape(tag_needle(t))}%" for t in f.tags]
    return sql, params


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _iso(v: Any, end: bool = False) -> str:
    if isinstance(v, datetime):
        return v.isoformat(sep=" ")
    return v.isoformat() + (" 23:59:59" if end else "")

"""Writes of many fact rows at once, by prepared statement: garbage collection's state
changes, bulk import's inserts, an archive's rows and their supersession links. They skip
peewee's per-row work (at 10^5 rows it costs more than SQLite's own), so they live here,
next to the row's shape, rather than as raw SQL in each caller (issue 37)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import peewee as pw

from models import Fact
from services.store.chunks import chunks

_FIELDS = [f for f in Fact._meta.sorted_fields if f.name != "id"]
_INSERT = 'INSERT INTO "fact" (%s) VALUES (%s)' % (
    ", ".join(f'"{f.column_name}"' for f in _FIELDS),
    ", ".join("?" * len(_FIELDS)),
)
_DEFAULTS = {"access_count": 0}
# the columns a state change may set: an UPDATE of content/subject/tags would churn the FTS
# index, so those are not among them
_STATE_COLUMNS = frozenset({"importance", "status", "metadata", "updated_at"})


def _sql(db: pw.Database, sql: str) -> str:
    """Raw SQL in the store's placeholder style (``?`` for SQLite, ``%s`` for PostgreSQL)."""
    return sql.replace("?", db.param)


def set_states(db: pw.Database, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """Set ``columns`` on many facts: each row is the columns' values (as the driver takes
    them: metadata as JSON text) followed by the fact id."""
    bad = set(columns) - _STATE_COLUMNS
    if bad or not columns:
        raise ValueError(f"not a state column: {sorted(bad)}")
    sets = ", ".join(f"{c} = ?" for c in columns)
    db.cursor().executemany(_sql(db, f"UPDATE fact SET {sets} WHERE id = ?"), rows)


def insert_rows(db: pw.Database, rows: Sequence[dict]) -> None:
    """Insert new fact rows (the caller has applied the write policy) with one prepared
    statement; a column a row leaves out gets its default (none for most: NULL)."""
    db.cursor().executemany(
        _sql(db, _INSERT),
        ([f.db_value(r.get(f.name, _DEFAULTS.get(f.name))) for f in _FIELDS] for r in rows),
    )


def insert_archived(model: type[pw.Model], agent_id: int, rows: list[dict]) -> None:
    """Insert an agent's rows of a table (facts, sessions, episodes, layers, audit events
    restored from an archive) with the ids they carry, a few hundred per statement."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:  # insert_many wants one set of columns per statement
        groups.setdefault(tuple(sorted(r)), []).append({**r, "agent": agent_id})
    for group in groups.values():
        for part in chunks(group, 200):  # rows x columns bound variables per statement
            model.insert_many(list(part)).execute()


def link_successors(db: pw.Database, links: Sequence[tuple[int, int]]) -> None:
    """(successor id, fact id) pairs: set each fact's ``superseded_by`` and nothing else (an
    archive's rows keep the status they were exported with)."""
    if links:
        db.cursor().executemany(
            _sql(db, "UPDATE fact SET superseded_by_id = ? WHERE id = ?"), links
        )

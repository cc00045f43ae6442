"""Reads and writes of fact rows that are not one agent's CRUD (``FactStore``): the scans
forget, verify, import and entity code run over an agent's rows or over ids of any agent.
The rows stay behind this module so that their shape is known in one package."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date, datetime, timedelta
from functools import reduce
from typing import Any

import peewee as pw

from models import AuditEvent, Fact, FactEntity
from services.store.chunks import chunks


def fact_texts(agent_id: int | None = None) -> Iterator[tuple[int, str]]:
    """(id, content) of every fact of an agent, or of every agent when ``agent_id`` is None."""
    q = Fact.select(Fact.id, Fact.content)
    if agent_id is not None:
        q = q.where(Fact.agent == agent_id)
    yield from q.tuples()


def texts_of(ids: Sequence[int]) -> Iterator[tuple[int, str]]:
    """(id, content) of the facts with these ids that exist, whichever agent owns them."""
    for part in chunks(list(ids)):
        yield from Fact.select(Fact.id, Fact.content).where(Fact.id.in_(list(part))).tuples()


def fact_ids(agent_id: int) -> list[int]:
    """Every fact id of an agent, oldest first."""
    q = Fact.select(Fact.id).where(Fact.agent == agent_id).order_by(Fact.id)
    return [i for (i,) in q.tuples()]


def owners(ids: Iterable[int]) -> set[int]:
    """The ids of the agents that own these facts."""
    out: set[int] = set()
    for part in chunks(list(ids)):
        out.update(a for (a,) in Fact.select(Fact.agent).where(Fact.id.in_(list(part))).tuples())
    return out


def any_exist(ids: Sequence[int]) -> bool:
    return any(Fact.select().where(Fact.id.in_(list(p))).exists() for p in chunks(list(ids)))


def delete_rows(agent_id: int, ids: Sequence[int]) -> None:
    """Delete an agent's facts outright (a forget: no soft delete, no history of the text);
    facts that named them as their successor keep no dangling link."""
    for part in chunks(list(ids)):
        Fact.update(superseded_by=None).where(Fact.superseded_by.in_(list(part))).execute()
        Fact.delete().where((Fact.agent == agent_id) & Fact.id.in_(list(part))).execute()


def rewrite_metadata(fact_id: int, change: Callable[[dict], dict]) -> bool:
    """Replace a fact's metadata with ``change(old)``; False when the fact is gone."""
    row = Fact.get_or_none(Fact.id == fact_id)
    if row is None:
        return False
    Fact.update(metadata=change(row.metadata)).where(Fact.id == fact_id).execute()
    return True


def row(agent_id: int, fact_id: int) -> Any:
    """An agent's fact row (the model instance), or None."""
    return Fact.get_or_none((Fact.agent == agent_id) & (Fact.id == fact_id))


def rows(agent_id: int, ids: Iterable[int]) -> list[Any]:
    """An agent's fact rows with these ids (absent and other agents' ids are skipped)."""
    out: list[Any] = []
    for part in chunks(list(ids)):
        out.extend(Fact.select().where((Fact.agent == agent_id) & Fact.id.in_(list(part))))
    return out


def existing(ids: Iterable[int]) -> set[int]:
    """Those of these fact ids that still exist."""
    out: set[int] = set()
    for part in chunks(list(ids)):
        out.update(i for (i,) in Fact.select(Fact.id).where(Fact.id.in_(list(part))).tuples())
    return out


def not_forgotten(agent_id: int, ids: Iterable[int]) -> set[int]:
    """Those of an agent's fact ids whose row exists and is not forgotten."""
    out: set[int] = set()
    for part in chunks(list(ids)):
        q = Fact.select(Fact.id).where(
            (Fact.agent == agent_id) & Fact.id.in_(list(part)) & (Fact.status != "forgotten")
        )
        out.update(i for (i,) in q.tuples())
    return out


def active_categories(agent_id: int) -> list[str]:
    q = Fact.select(Fact.category).distinct().where(_active(agent_id))
    return [c for (c,) in q.tuples()]


def pinned_ids(agent_id: int) -> list[int]:
    """An agent's active pinned facts."""
    q = Fact.select(Fact.id).where(_active(agent_id) & (Fact.pinned == True))  # noqa: E712
    return [i for (i,) in q.tuples()]


def frequent_values(agent_id: int, column: str, limit: int, prefixes: tuple[str, ...] = ()) -> list:
    """The most used values of a column among an agent's active facts (``subject``,
    ``category``), most used first; only those starting with one of ``prefixes`` if given."""
    col = getattr(Fact, column)
    cond = _active(agent_id) & col.is_null(False)
    if prefixes:
        cond &= reduce(operator.or_, [col.startswith(p) for p in prefixes])
    q = (
        Fact.select(col)
        .where(cond)
        .group_by(col)
        .order_by(pw.fn.COUNT(Fact.id).desc(), col)
        .limit(limit)
    )
    return [v for (v,) in q.tuples()]


# facts linked to an entity (people and projects) -------------------------------------------
def entity_fact_ids(entity_id: int) -> set[int]:
    q = Fact.select(Fact.id).join(FactEntity, on=(FactEntity.fact == Fact.id))
    return {i for (i,) in q.where(FactEntity.entity == entity_id).tuples()}


def entity_facts(entity_id: int) -> list[tuple]:
    """(id, content, status, created_at, link source, fact source, source ref), oldest first."""
    q = (
        Fact.select(
            Fact.id,
            Fact.content,
            Fact.status,
            Fact.created_at,
            FactEntity.source,
            Fact.source,
            Fact.source_ref,
        )
        .join(FactEntity, on=(FactEntity.fact == Fact.id))
        .where(FactEntity.entity == entity_id)
        .order_by(Fact.created_at, Fact.id)
    )
    return list(q.tuples())


def entity_top_texts(entity_id: int, limit: int) -> list[str]:
    """The text of an entity's most important active facts, newest first among equals."""
    q = (
        Fact.select(Fact.content)
        .join(FactEntity, on=(FactEntity.fact == Fact.id))
        .where((FactEntity.entity == entity_id) & (Fact.status == "active"))
        .order_by(Fact.importance.desc(), Fact.created_at.desc())
        .limit(limit)
    )
    return [c for (c,) in q.tuples()]


def entity_mentions(entity_id: int) -> tuple[int, Any, Any]:
    """(linked facts, first and last of their creation times)."""
    return (
        Fact.select(pw.fn.COUNT(Fact.id), pw.fn.MIN(Fact.created_at), pw.fn.MAX(Fact.created_at))
        .join(FactEntity, on=(FactEntity.fact == Fact.id))
        .where(FactEntity.entity == entity_id)
        .tuples()
        .get()
    )


def _active(agent_id: int) -> Any:
    return (Fact.agent == agent_id) & (Fact.status == "active")


def brief_rows(
    agent_id: int, ids: Iterable[int] | None = None, created_before: Any = None
) -> list[Any]:
    """An agent's facts as rows with ``id``, ``content`` and ``status`` only: all of them, those
    with these ids, or those created before a time."""
    q = Fact.select(Fact.id, Fact.content, Fact.status).where(Fact.agent == agent_id)
    if created_before is not None:
        q = q.where(Fact.created_at < created_before)
    if ids is None:
        return list(q)
    out: list[Any] = []
    for part in chunks(list(dict.fromkeys(ids))):
        out.extend(q.where(Fact.id.in_(list(part))))
    return out


def _ranked(agent_id: int, where: Any, also: Sequence[Any] = ()) -> Any:
    q = Fact.select(
        Fact.id,
        Fact.content,
        Fact.category,
        Fact.importance,
        Fact.pinned,
        Fact.created_at,
        Fact.event_date,
        *also,
    ).where(_active(agent_id))
    if where is not None:
        q = q.where(where)
    return q.order_by(
        Fact.pinned.desc(),
        Fact.importance.desc(),
        Fact.access_count.desc(),
        Fact.created_at.desc(),
        Fact.id.desc(),
    )


def ranked_active(
    agent_id: int,
    where: Any = None,
    limit: int | None = None,
    offset: int = 0,
    also: Sequence[Any] = (),
) -> list[tuple]:
    """An agent's active facts as (id, content, category, importance, pinned, created_at,
    event_date), most worth keeping first: pinned, then importance, use and recency. ``where``
    narrows them (a peewee expression over ``Fact``, built by the caller); ``offset`` skips
    the best ones (a page); ``also`` adds columns (expressions) at the end of each row."""
    q = _ranked(agent_id, where, also).limit(limit)
    if offset:
        q = q.offset(offset)
    return list(q.tuples())


class CategoryPages:
    """``ranked_active`` of one category at a time, a page from an offset, as many times as
    there are categories (memory.md's projects): the SQL is made once and each page is one
    execute. Building a peewee query took longer than SQLite takes to answer it through
    ``fact_category_rank``: 300 projects cost 0.1 s of SQL building alone."""

    _MARKS = ("\x00category", -7001, -7002)  # stand-ins for (category, limit, offset)

    def __init__(self, agent_id: int, pinned: bool | None = None):
        cat, limit, offset = self._MARKS
        where = Fact.category == cat
        if pinned is not None:
            where &= Fact.pinned == pinned
        self._db = Fact._meta.database
        self._sql, params = _ranked(agent_id, where).limit(limit).offset(offset).sql()
        self._params = list(params)
        self._at = [self._params.index(m) for m in self._MARKS]

    def __call__(self, category: str, offset: int, limit: int) -> list[tuple]:
        params = list(self._params)
        for i, v in zip(self._at, (category, limit, offset)):
            params[i] = v
        created, day = Fact.created_at.python_value, Fact.event_date.python_value
        rows = self._db.execute_sql(self._sql, params).fetchall()
        return [(i, c, k, imp, bool(p), created(at), day(ev)) for i, c, k, imp, p, at, ev in rows]


def count(agent_id: int) -> int:
    """How many facts an agent has, whatever their status."""
    return Fact.select().where(Fact.agent == agent_id).count()


def active_count(agent_id: int) -> int:
    """How many of an agent's facts are active."""
    return Fact.select().where((Fact.agent == agent_id) & (Fact.status == "active")).count()


def archived_metadata(agent_id: int) -> Iterator[tuple[int, Any]]:
    """(id, metadata) of an agent's archived facts."""
    yield from (
        Fact.select(Fact.id, Fact.metadata)
        .where((Fact.agent == agent_id) & (Fact.status == "archived"))
        .tuples()
    )


def owner(fact_id: int) -> int | None:
    """The id of the agent that owns a fact, or None when there is no such fact."""
    got = Fact.select(Fact.agent).where(Fact.id == fact_id).first()
    return None if got is None else got.agent_id


def content_hashes(agent_id: int) -> set[str]:
    """The content hashes of every fact of an agent."""
    return {h for (h,) in Fact.select(Fact.content_hash).where(Fact.agent == agent_id).tuples()}


def ordered_texts(agent_id: int) -> list[tuple[int, str]]:
    """(id, content) of every fact of an agent, oldest first."""
    q = Fact.select(Fact.id, Fact.content).where(Fact.agent == agent_id).order_by(Fact.id)
    return list(q.tuples())


def ordered_hashed_texts(agent_id: int) -> list[tuple[int, str, str]]:
    """(id, content, content hash) of every fact of an agent, oldest first."""
    q = Fact.select(Fact.id, Fact.content, Fact.content_hash).where(Fact.agent == agent_id)
    return list(q.order_by(Fact.id).tuples())


# the write pipeline (services/ingest) ---------------------------------------------------------
def hash_twins(
    agent_id: int, hashes: Sequence[str], statuses: Sequence[str]
) -> Iterator[tuple[int, str, str, str | None]]:
    """(id, content hash, status, subject) of an agent's facts in these statuses whose hash is
    one of ``hashes``, oldest first within each chunk of hashes."""
    for part in chunks(list(hashes)):
        yield from (
            Fact.select(Fact.id, Fact.content_hash, Fact.status, Fact.subject)
            .where(
                (Fact.agent == agent_id)
                & Fact.content_hash.in_(list(part))
                & Fact.status.in_(list(statuses))
            )
            .order_by(Fact.id)
            .tuples()
        )


def known_hashes(agent_id: int, hashes: Sequence[str], n: int) -> set[str]:
    """Those of ``hashes`` an agent already holds in a fact that is not forgotten (``n``
    hashes per query)."""
    out: set[str] = set()
    for part in chunks(list(hashes), n):
        out.update(
            h
            for (h,) in Fact.select(Fact.content_hash)
            .where(
                (Fact.agent == agent_id)
                & Fact.content_hash.in_(list(part))
                & (Fact.status != "forgotten")
            )
            .tuples()
        )
    return out


def newest_ids(agent_id: int, n: int) -> list[int]:
    """An agent's ``n`` newest fact ids, oldest first."""
    q = Fact.select(Fact.id).where(Fact.agent == agent_id).order_by(Fact.id.desc()).limit(n)
    return [i for (i,) in q.tuples()][::-1]


def near_rows(
    agent_id: int, ids: Iterable[int], statuses: Sequence[str]
) -> list[tuple[int, str | None, str, str, Any]]:
    """(id, subject, content, status, created_at) of an agent's facts with these ids and in
    these statuses."""
    out: list[tuple[int, str | None, str, str, Any]] = []
    for part in chunks(list(ids)):
        out.extend(
            Fact.select(Fact.id, Fact.subject, Fact.content, Fact.status, Fact.created_at)
            .where((Fact.agent == agent_id) & Fact.id.in_(list(part)) & Fact.status.in_(statuses))
            .tuples()
        )
    return out


def create_row(**fields: Any) -> Any:
    """Insert one fact row (the caller has applied the write policy); the new row."""
    return Fact.create(**fields)


def older_on_subject(agent_id: int, subject: str, newer_id: int, newer_at: Any) -> list[Any]:
    """An agent's other active rows on ``subject`` created no later than ``newer_at``: the
    ones a newer statement about that subject supersedes."""
    return list(
        Fact.select().where(
            (Fact.agent == agent_id)
            & (Fact.subject == subject)
            & (Fact.status == "active")
            & (Fact.id != newer_id)
            & (Fact.created_at <= newer_at)
        )
    )


def row_in(fact_id: int, statuses: Sequence[str]) -> Any:
    """A fact row (any agent's) if it is in one of these statuses, else None."""
    return Fact.get_or_none((Fact.id == fact_id) & Fact.status.in_(tuple(statuses)))


# garbage collection (services/lifecycle/gc.py) ------------------------------------------------
def short_term_count(agent_id: int) -> int:
    """Active, unpinned facts whose metadata marks them short-term."""
    return (
        Fact.select()
        .where(
            (Fact.agent == agent_id)
            & (Fact.status == "active")
            & (Fact.pinned == False)  # noqa: E712
            & (pw.fn.json_extract(Fact.metadata, "$.tier") == "short")
        )
        .count()
    )


def lifecycle_tuples(agent_id: int) -> list[tuple]:
    """An agent's active and pending facts, oldest first: (id, category, importance, pinned,
    status, created_at, last_accessed, access_count, expires_at, metadata) as the driver
    returns them (times as text on SQLite, metadata as JSON text). GC plans over every fact of
    an agent, and peewee's per-value conversion was most of a 100k-fact plan; GC converts what
    it reads (``stored_time``)."""
    q = (
        Fact.select(
            Fact.id,
            Fact.category,
            Fact.importance,
            Fact.pinned,
            Fact.status,
            Fact.created_at,
            Fact.last_accessed,
            Fact.access_count,
            Fact.expires_at,
            Fact.metadata,
        )
        .where((Fact.agent == agent_id) & Fact.status.in_(["active", "pending"]))
        .order_by(Fact.id)
    )
    sql, params = q.sql()
    return list(Fact._meta.database.execute_sql(sql, params).fetchall())


def stored_time(value: Any) -> Any:
    """A time as the store keeps it, read back as peewee would (its accepted formats)."""
    return Fact.created_at.python_value(value)


def states(ids: Sequence[int], agent_id: int | None = None) -> list[tuple[int, Any, str, Any]]:
    """(id, importance, status, metadata) of the facts with these ids (of one agent if given)."""
    out: list[tuple[int, Any, str, Any]] = []
    for part in chunks(list(ids)):
        cond = Fact.id.in_(list(part))
        if agent_id is not None:
            cond &= Fact.agent == agent_id
        out.extend(
            Fact.select(Fact.id, Fact.importance, Fact.status, Fact.metadata).where(cond).tuples()
        )
    return out


def any_rows(ids: Sequence[int]) -> list[Any]:
    """The rows (model instances) of the facts with these ids, whichever agent owns them."""
    out: list[Any] = []
    for part in chunks(list(ids)):
        out.extend(Fact.select().where(Fact.id.in_(list(part))))
    return out


def archived_rows(agent_id: int, limit: int, offset: int = 0) -> list[Any]:
    """An agent's archived facts, most recently changed first (``offset``: a later page)."""
    return list(
        Fact.select()
        .where((Fact.agent == agent_id) & (Fact.status == "archived"))
        .order_by(Fact.updated_at.desc(), Fact.id.desc())
        .limit(limit)
        .offset(offset)
    )


# offline-first team sync (services/teamsync) --------------------------------------------------
def any_row(fact_id: int) -> Any:
    """A fact row whichever agent owns it, or None."""
    return Fact.get_or_none(Fact.id == fact_id)


def row_by_id(fact_id: int) -> Any:
    """A fact row that must exist (peewee's ``DoesNotExist`` when it does not)."""
    return Fact.get_by_id(fact_id)


def mark_superseded(fact_id: int, new_id: int, at: datetime | None = None) -> None:
    """Mark a fact superseded by ``new_id`` (its history stays), and changed ``at`` when
    given: the one writer of supersession, for a newer statement on the same subject, a
    correction (services/ingest) and a supersession pulled from the team (services/teamsync);
    no other column changes."""
    fields: dict[Any, Any] = {Fact.status: "superseded", Fact.superseded_by: new_id}
    if at is not None:
        fields[Fact.updated_at] = at
    Fact.update(fields).where(Fact.id == fact_id).execute()


def refresh(fact_id: int, importance: float, status: str, at: datetime) -> None:
    """A fact stated again: its new importance and status, changed ``at``."""
    Fact.update(importance=importance, status=status, updated_at=at).where(
        Fact.id == fact_id
    ).execute()


def sync_states() -> Iterator[tuple[Any, ...]]:
    """(id, agent id, content hash, status, category, importance, pinned, tags) of every
    fact of every agent: what sync carries (services/teamsync/local_state.py)."""
    yield from Fact.select(
        Fact.id,
        Fact.agent,
        Fact.content_hash,
        Fact.status,
        Fact.category,
        Fact.importance,
        Fact.pinned,
        Fact.tags,
    ).tuples()


def deleted_not_forgotten(ids: Iterable[int]) -> set[int]:
    """Of these ids (rows gone), those a plain delete removed: their last audit event is the
    delete (a forget erases a fact's events, so it leaves none)."""
    out: set[int] = set()
    for part in chunks(list(ids)):
        last: dict[int, str] = {}
        q = (
            AuditEvent.select(AuditEvent.fact_id, AuditEvent.action)
            .where(AuditEvent.fact_id.in_(list(part)))
            .order_by(AuditEvent.id)
            .tuples()
        )
        for fid, action in q:
            last[fid] = action
        out |= {fid for fid, action in last.items() if action == "delete"}
    return out


# where-expressions for ``ranked_active`` (services/lifecycle/compile.py) -----------------------
def about_days(start: date, end: date) -> Any:
    """Facts about [start, end]: their event date, else their creation day."""
    lo, hi = (
        datetime(start.year, start.month, start.day),
        datetime(end.year, end.month, end.day) + timedelta(days=1),
    )
    return (
        (Fact.event_date.is_null(False)) & (Fact.event_date >= start) & (Fact.event_date <= end)
    ) | (Fact.event_date.is_null(True) & (Fact.created_at >= lo) & (Fact.created_at < hi))


def long_term(session_settled_before: datetime | None = None) -> Any:
    """Pinned facts and those of the long-term tier (or of none); with a time, also what a
    session taught before it that is not a task or a scratch note."""
    tier = pw.fn.json_extract(Fact.metadata, "$.tier")
    durable = (Fact.pinned == True) | tier.is_null(True) | (tier == "long")  # noqa: E712
    if session_settled_before is not None:
        durable |= (
            (tier == "short")
            & (Fact.created_at < session_settled_before)
            & Fact.category.not_in(["task", "tmp"])
            & (Fact.source == "session")
        )
    return durable


def active_mentioning(agent_id: int, words: Sequence[str], limit: int = 50) -> list[tuple]:
    """(id, content) of an agent's active facts whose text contains every one of ``words``
    (case-insensitive), newest first: the candidates a value change may replace."""
    if not words:
        return []
    cond = (Fact.agent == agent_id) & (Fact.status == "active")
    for w in words:
        cond &= Fact.content.contains(w)
    q = Fact.select(Fact.id, Fact.content).where(cond).order_by(Fact.id.desc()).limit(limit)
    return list(q.tuples())

"""Reads and writes of fact rows that are not one agent's CRUD (``FactStore``): the scans
forget, verify, import and entity code run over an agent's rows or over ids of any agent.
The rows stay behind this module so that their shape is known in one package."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from models import Fact
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

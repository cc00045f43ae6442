"""Reading entities: the list, one entity's page, candidates, and the entities a query is
about (for ``context``). Plain data out (records), never rows."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime

from peewee import fn

from models.tables import Entity, EntityCandidate, EntityRelation, FactEntity
from services.entities.extract import entity_key, extract
from services.errors import InvalidInput, NotFound
from services.store import fact_rows
from services.store.text import words


@dataclass(frozen=True)
class EntityView:
    id: int
    name: str
    type: str
    aliases: tuple[str, ...]
    mention_count: int
    first_mentioned: datetime
    last_mentioned: datetime

    def to_json(self) -> dict:
        d = asdict(self)
        d["aliases"] = list(self.aliases)
        d["first_mentioned"] = self.first_mentioned.isoformat()
        d["last_mentioned"] = self.last_mentioned.isoformat()
        return d


@dataclass(frozen=True)
class EntityFact:
    id: int
    content: str
    status: str
    created_at: datetime
    link_source: str
    fact_source: str
    source_ref: str | None


@dataclass(frozen=True)
class EntityPage:
    entity: EntityView
    facts: list[EntityFact] = field(default_factory=list)  # oldest first: facts over time
    relations: list[tuple[str, str, str, int]] = field(default_factory=list)  # (from, type, to, id)
    sources: dict[str, int] = field(default_factory=dict)  # link source → count
    candidates: list[tuple[int, EntityView]] = field(default_factory=list)  # (candidate id, other)

    def to_json(self) -> dict:
        return {
            **self.entity.to_json(),
            "facts": [{**asdict(f), "created_at": f.created_at.isoformat()} for f in self.facts],
            "relations": [
                {"from": a, "type": t, "to": b, "entity": i} for a, t, b, i in self.relations
            ],
            "sources": self.sources,
            "candidates": [{"candidate": c, **v.to_json()} for c, v in self.candidates],
        }


def view(e: Entity) -> EntityView:
    return EntityView(
        e.id,
        e.name,
        e.type,
        tuple(e.aliases or ()),
        e.mention_count,
        e.first_mentioned,
        e.last_mentioned,
    )


def entities(agent_id: int, typ: str | None = None, query: str | None = None) -> list[EntityView]:
    # an entity no fact names any more (its fact went back to review) is not listed
    q = Entity.select().where((Entity.agent == agent_id) & (Entity.mention_count > 0))
    if typ:
        q = q.where(Entity.type == typ)
    if query:
        q = q.where(
            Entity.key.contains(entity_key(query))
            | (fn.instr(fn.lower(Entity.aliases), query.lower()) > 0)
        )
    return [view(e) for e in q.order_by(Entity.mention_count.desc(), Entity.key)]


def find(agent_id: int, name_or_id: str) -> Entity:
    """An entity by id or by name/alias; two entities with the name is the user's choice."""
    from services.entities.identity import by_name

    s = str(name_or_id).strip()
    if s.isdigit():
        e = Entity.get_or_none((Entity.id == int(s)) & (Entity.agent == agent_id))
        if e is not None:
            return e
    rows = by_name(agent_id, s)
    if not rows:
        raise NotFound(f"no entity called {s!r} (see `engram entities`)")
    if len(rows) > 1:
        listed = ", ".join(f"{e.id} ({e.type}, {e.mention_count} facts)" for e in rows)
        raise InvalidInput(f"{len(rows)} entities are called {s!r}: {listed}; give the id")
    return rows[0]


def page(agent_id: int, entity_id: int) -> EntityPage:
    e = Entity.get_or_none((Entity.id == entity_id) & (Entity.agent == agent_id))
    if e is None:
        raise NotFound(f"no entity {entity_id} for this agent")
    facts = [EntityFact(*row) for row in fact_rows.entity_facts(e.id)]
    rels = []
    for r in EntityRelation.select().where(
        (EntityRelation.src == e.id) | (EntityRelation.dst == e.id)
    ):
        other = r.dst if r.src_id == e.id else r.src
        a, b = (e.name, other.name) if r.src_id == e.id else (other.name, e.name)
        if (a, r.type, b, other.id) not in rels:
            rels.append((a, r.type, b, other.id))
    sources = dict(
        FactEntity.select(FactEntity.source, fn.COUNT(FactEntity.id))
        .where(FactEntity.entity == e.id)
        .group_by(FactEntity.source)
        .tuples()
    )
    return EntityPage(view(e), facts, rels, sources, candidates_of(agent_id, e.id))


def candidates_of(agent_id: int, entity_id: int) -> list[tuple[int, EntityView]]:
    out = []
    for c in EntityCandidate.select().where(
        (EntityCandidate.agent == agent_id)
        & (EntityCandidate.status == "open")
        & ((EntityCandidate.entity == entity_id) | (EntityCandidate.other == entity_id))
    ):
        other = c.other if c.entity_id == entity_id else c.entity
        out.append((c.id, view(other)))
    return out


def candidates(agent_id: int) -> list[tuple[int, EntityView, EntityView, str]]:
    return [
        (c.id, view(c.entity), view(c.other), c.reason)
        for c in EntityCandidate.select()
        .where((EntityCandidate.agent == agent_id) & (EntityCandidate.status == "open"))
        .order_by(EntityCandidate.id)
    ]


def relevant(
    agent_id: int, query: str, limit: int = 5, facts: int = 3
) -> list[tuple[EntityView, list[str]]]:
    """The entities a query names (extracted, or any of its words ≥ 3 letters equal to an
    entity's name or alias word), each with its most recent active facts."""
    named = {m.key for m in extract(query)}
    loose = {w for w in words(query) if len(w) >= 3}
    if not (named or loose):
        return []
    full: dict[int, Entity] = {}
    partial: dict[int, Entity] = {}
    for e in (
        Entity.select()
        .where(Entity.agent == agent_id)
        .order_by(Entity.mention_count.desc())
        .limit(5000)
    ):
        names = [e.key, *(entity_key(a) for a in e.aliases or ())]
        if any(n in named or (n in loose) for n in names):
            full[e.id] = e
        elif any(set(n.split()) & loose for n in names if len(n) >= 3):
            partial[e.id] = e
    # a query naming "Maria Lopez" is about her; one saying only "Maria" may be about any Maria
    hits = list((full or partial).values())[:limit]
    out = []
    for e in hits:
        lines = fact_rows.entity_top_texts(e.id, facts)
        out.append((view(e), lines))
    return out

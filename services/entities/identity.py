"""Identity: which entity a mention is. Same name is not the same entity.

A mention joins an existing entity of the same agent only with evidence: its exact name or
an alias the user (or an import) gave, with a compatible type; a bare first name joins a
full-name entity only when the fact also names something that entity's facts name (shared
context). Otherwise the mention becomes its own entity and, when a same-first-name entity
exists, the pair is recorded as a merge candidate for the user (``EntityCandidate``)."""

from __future__ import annotations

import json

from models.db import is_postgres
from models.tables import Entity, EntityCandidate, FactEntity
from services.entities.extract import Mention, entity_key


def compatible(entity_type: str, mention_type: str) -> bool:
    return entity_type == mention_type or "concept" in (entity_type, mention_type)


def by_name(agent_id: int, name: str) -> list[Entity]:
    """Entities of the agent called ``name`` or carrying it as an alias. Raw SQL: this runs
    for every name of every fact written, and building the query costs more than running it."""
    key = entity_key(name)
    needle = json.dumps(name.strip(), ensure_ascii=False)[1:-1].lower()
    sql = (
        "SELECT * FROM entity WHERE agent_id = ? AND (key = ? OR "
        "(aliases != '[]' AND instr(lower(aliases), ?) > 0)) ORDER BY id"
    )
    if is_postgres(Entity._meta.database):  # a team store: the same query in its dialect
        sql = sql.replace("instr(", "strpos(").replace("?", "%s")
    rows = list(Entity.raw(sql, agent_id, key, needle))
    return [e for e in rows if e.key == key or any(entity_key(a) == key for a in e.aliases or ())]


def neighbours(entity_id: int) -> set[int]:
    """Entities named in the same facts as this one (its context)."""
    facts = FactEntity.select(FactEntity.fact).where(FactEntity.entity == entity_id)
    return {
        eid
        for (eid,) in FactEntity.select(FactEntity.entity)
        .where(FactEntity.fact.in_(facts) & (FactEntity.entity != entity_id))
        .tuples()
    }


def resolve(agent_id: int, mention: Mention, context: set[int]) -> Entity:
    exact = [e for e in by_name(agent_id, mention.name) if compatible(e.type, mention.type)]
    key = mention.key
    if mention.type == "person" and " " not in key and not key.startswith("@"):
        # a bare first name: the entity its context points at, else the bare-named one
        fuller = list(
            Entity.select().where(
                (Entity.agent == agent_id)
                & (Entity.type == "person")
                & (Entity.key.startswith(key + " "))
            )
        )
        backed = [e for e in exact + fuller if neighbours(e.id) & context]
        if len(backed) == 1:
            return backed[0]
        if not exact:
            return _create(agent_id, mention, fuller)
    if exact:
        best = exact[0]
        if len(exact) > 1:  # two entities share the name (a split): the context decides
            best = max(exact, key=lambda e: (len(neighbours(e.id) & context), e.mention_count))
        if best.type == "concept" and mention.type != "concept":
            best.type = mention.type
            best.save()
        return best
    if mention.type == "person" and " " in key:
        bare = list(
            Entity.select().where(
                (Entity.agent == agent_id)
                & (Entity.type == "person")
                & (Entity.key == key.split(" ")[0])
            )
        )
        return _create(agent_id, mention, bare)
    return _create(agent_id, mention, [])


def _create(agent_id: int, mention: Mention, maybe_same: list[Entity]) -> Entity:
    e = Entity.create(agent=agent_id, name=mention.name, key=mention.key, type=mention.type)
    for other in maybe_same:
        EntityCandidate.create(agent=agent_id, entity=e.id, other=other.id)
    return e

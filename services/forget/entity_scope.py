"""Forget a person (or any entity): a scope expansion, not a new kind of forget.

``expand_entity(engram, scope, name)`` turns "everything about Maria Lopez" into what the
forget service already erases and proves: the ids of every fact linked to the entity, plus
every fact whose text names it or one of its aliases, and the name and aliases as terms, so
episodes, session logs, compiled layers, workspace files, exports, backups and the audit
history that mention them are found, rewritten or removed, and verified byte for byte.
The entity row goes with its last linked fact (the ``fact_entity_prune`` trigger); its
relations and merge candidates go with it (foreign keys)."""

from __future__ import annotations

from dataclasses import replace

from services.entities.queries import find
from services.errors import InvalidInput
from services.forget.files import Terms
from services.forget.matching import fold
from services.forget.scope import ForgetScope, short_names
from services.store import fact_rows
from services.store.handle import EngramHandle


def entity_terms(entity) -> list[str]:
    """The entity's name and aliases (handles also without their @), and for a person the
    parts of the name. Case and width never matter (``matching.fold``)."""
    out: list[str] = []
    names = [entity.name, *(entity.aliases or ())]
    if (entity.type or "") == "person":
        names += [p for n in list(names) for p in short_names(n)]
    seen: set[str] = set()
    for t in names:
        for v in (t, t[1:] if t.startswith("@") else None):
            if v and fold(v) and fold(v) not in seen:
                seen.add(fold(v))
                out.append(v)
    return out


def expand_entity(engram: EngramHandle, scope: ForgetScope, name: str) -> ForgetScope:
    if not scope.agent:
        raise InvalidInput("--entity needs --agent (entities belong to one agent)")
    mem = engram.agent(scope.agent)
    entity = find(mem.agent_id, name)
    terms = entity_terms(entity)
    ids = fact_rows.entity_fact_ids(entity.id)
    wanted = Terms(terms)
    for fid, content in fact_rows.fact_texts(mem.agent_id):
        if fid not in ids and wanted.mentions(content):
            ids.add(fid)
    if not ids:  # named only outside the facts (an episode, a file): the terms still go
        return replace(scope, matching=terms[0], terms=tuple(terms[1:]), semantic=False)
    return replace(
        scope,
        fact_ids=tuple(sorted(ids)),
        terms=tuple(terms),
        label=scope.label or f"entity {entity.id}",
    )

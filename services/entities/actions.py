"""The user's entity actions: merge, split, rename, alias, dismiss a candidate, and undo.

Each action writes one ``AuditEvent`` (``entity.merge`` …) holding the before and after state
of every entity it touched (rows, links, relations, candidates), so ``undo(event id)`` puts the
before state back exactly, ids included."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from models import AuditEvent
from models.tables import ENTITY_TYPES, Entity, EntityCandidate, EntityRelation, FactEntity
from services.entities.extract import entity_key
from services.entities.linking import refresh
from services.errors import InvalidInput, NotFound
from services.store import fact_rows
from services.store.audit import record_audit

Clean = Callable[[str], "str | None"]
_ENTITY_FIELDS = ("id", "name", "key", "type", "aliases", "mention_count")


def state(entity_ids: Iterable[int]) -> dict:
    ids = sorted(set(entity_ids))
    ents = [
        {
            **{f: getattr(e, f) for f in _ENTITY_FIELDS},
            "agent": e.agent_id,
            "first_mentioned": str(e.first_mentioned),
            "last_mentioned": str(e.last_mentioned),
            "created_at": str(e.created_at),
        }
        for e in Entity.select().where(Entity.id.in_(ids))
    ]
    links = [
        [f, e, s]
        for f, e, s in FactEntity.select(FactEntity.fact, FactEntity.entity, FactEntity.source)
        .where(FactEntity.entity.in_(ids))
        .tuples()
    ]
    rels = [
        [r.id, r.agent_id, r.src_id, r.dst_id, r.type, r.fact_id, r.source]
        for r in EntityRelation.select().where(
            EntityRelation.src.in_(ids) | EntityRelation.dst.in_(ids)
        )
    ]
    cands = [
        [c.id, c.agent_id, c.entity_id, c.other_id, c.reason, c.status]
        for c in EntityCandidate.select().where(
            EntityCandidate.entity.in_(ids) | EntityCandidate.other.in_(ids)
        )
    ]
    return {"ids": ids, "entities": ents, "links": links, "relations": rels, "candidates": cands}


def _put_back(snap: dict, drop: Iterable[int]) -> None:
    ids = sorted(set(snap["ids"]) | set(drop))
    Entity.delete().where(Entity.id.in_(ids)).execute()  # cascades links, relations, candidates
    live_facts = fact_rows.existing(l[0] for l in snap["links"])
    for e in snap["entities"]:
        Entity.insert(**e).execute()
    for f, e, s in snap["links"]:
        if f in live_facts:  # a fact forgotten since then stays forgotten
            FactEntity.insert(fact=f, entity=e, source=s).on_conflict_ignore().execute()
    for rid, agent, src, dst, typ, fact, source in snap["relations"]:
        if (
            (fact is None or fact in live_facts)
            and Entity.get_or_none(Entity.id == dst)
            and (Entity.get_or_none(Entity.id == src))
        ):
            EntityRelation.insert(
                id=rid, agent=agent, src=src, dst=dst, type=typ, fact=fact, source=source
            ).on_conflict_ignore().execute()
    for cid, agent, ent, other, reason, status in snap["candidates"]:
        if Entity.get_or_none(Entity.id == ent) and Entity.get_or_none(Entity.id == other):
            EntityCandidate.insert(
                id=cid, agent=agent, entity=ent, other=other, reason=reason, status=status
            ).on_conflict_ignore().execute()


class EntityActions:
    def __init__(self, agent_id: int, db, clean: Clean):
        self.agent_id, self.db, self.clean = agent_id, db, clean

    def _get(self, entity_id: int) -> Entity:
        e = Entity.get_or_none((Entity.id == entity_id) & (Entity.agent == self.agent_id))
        if e is None:
            raise NotFound(f"no entity {entity_id} for this agent")
        return e

    def _name(self, name: str) -> str:
        ok = self.clean((name or "").strip()) if (name or "").strip() else None
        if not ok or not entity_key(ok):
            raise InvalidInput(
                "an entity name needs at least one letter or digit, and must "
                "pass the write policy unchanged"
            )
        return ok

    def _audit(self, action: str, before: dict, after: dict, reason: str) -> int:
        return record_audit(self.agent_id, action, None, before, after, "user", reason)

    def merge(self, target_id: int, other_ids: Iterable[int]) -> int:
        target = self._get(target_id)
        others = [self._get(i) for i in other_ids if i != target_id]
        if not others:
            raise InvalidInput("name at least one other entity to merge into this one")
        with self.db.atomic():
            before = state([target.id] + [o.id for o in others])
            aliases = list(target.aliases or [])
            for o in others:
                for a in [o.name, *(o.aliases or [])]:
                    if entity_key(a) != target.key and a not in aliases:
                        aliases.append(a)
                for f, s in (
                    FactEntity.select(FactEntity.fact, FactEntity.source)
                    .where(FactEntity.entity == o.id)
                    .tuples()
                ):
                    FactEntity.insert(
                        fact=f, entity=target.id, source=s
                    ).on_conflict_ignore().execute()
                EntityRelation.update(src=target.id).where(EntityRelation.src == o.id).execute()
                EntityRelation.update(dst=target.id).where(EntityRelation.dst == o.id).execute()
                EntityRelation.delete().where(
                    (EntityRelation.src == target.id) & (EntityRelation.dst == target.id)
                ).execute()
                Entity.delete().where(Entity.id == o.id).execute()
            if target.type == "concept":
                target.type = next((o.type for o in others if o.type != "concept"), "concept")
            target.aliases = aliases
            target.save()
            refresh(target.id)
            return self._audit(
                "entity.merge",
                before,
                state([target.id]),
                f"merged {len(others)} entit{'y' if len(others) == 1 else 'ies'} into {target.id}",
            )

    def split(
        self, entity_id: int, fact_ids: Iterable[int], name: str | None = None
    ) -> tuple[int, int]:
        """Move the given facts' links to a new entity: (new entity id, audit event id)."""
        e = self._get(entity_id)
        fids = set(fact_ids)
        linked = {
            f
            for (f,) in FactEntity.select(FactEntity.fact).where(FactEntity.entity == e.id).tuples()
        }
        if not fids or not fids <= linked or fids == linked:
            raise InvalidInput("split needs some, not all, of the entity's facts")
        new_name = self._name(name) if name else e.name
        with self.db.atomic():
            before = state([e.id])
            new = Entity.create(
                agent=self.agent_id, name=new_name, key=entity_key(new_name), type=e.type
            )
            FactEntity.update(entity=new.id).where(
                (FactEntity.entity == e.id) & FactEntity.fact.in_(list(fids))
            ).execute()
            for col in (EntityRelation.src, EntityRelation.dst):
                EntityRelation.update({col: new.id}).where(
                    (col == e.id) & EntityRelation.fact.in_(list(fids))
                ).execute()
            refresh([e.id, new.id])
            ev = self._audit(
                "entity.split",
                before,
                state([e.id, new.id]),
                f"split {len(fids)} fact(s) of entity {e.id} into {new.id}",
            )
        return new.id, ev

    def rename(self, entity_id: int, name: str, keep_alias: bool = True) -> int:
        e = self._get(entity_id)
        new_name = self._name(name)
        with self.db.atomic():
            before = state([e.id])
            aliases = [a for a in (e.aliases or []) if entity_key(a) != entity_key(new_name)]
            if keep_alias and entity_key(e.name) != entity_key(new_name) and e.name not in aliases:
                aliases.append(e.name)
            e.name, e.key, e.aliases = new_name, entity_key(new_name), aliases
            e.save()
            return self._audit("entity.rename", before, state([e.id]), f"renamed entity {e.id}")

    def set_type(self, entity_id: int, typ: str) -> int:
        if typ not in ENTITY_TYPES:
            raise InvalidInput(f"type must be one of {', '.join(ENTITY_TYPES)}")
        e = self._get(entity_id)
        with self.db.atomic():
            before = state([e.id])
            e.type = typ
            e.save()
            return self._audit("entity.type", before, state([e.id]), f"entity {e.id} is a {typ}")

    def alias(self, entity_id: int, add: Iterable[str] = (), remove: Iterable[str] = ()) -> int:
        e = self._get(entity_id)
        with self.db.atomic():
            before = state([e.id])
            drop = {entity_key(r) for r in remove}
            aliases = [a for a in (e.aliases or []) if entity_key(a) not in drop]
            for a in add:
                ok = self._name(a)
                if entity_key(ok) != e.key and all(
                    entity_key(x) != entity_key(ok) for x in aliases
                ):
                    aliases.append(ok)
            e.aliases = aliases
            e.save()
            return self._audit("entity.alias", before, state([e.id]), f"aliases of entity {e.id}")

    def dismiss(self, candidate_id: int) -> None:
        EntityCandidate.update(status="dismissed").where(
            (EntityCandidate.id == candidate_id) & (EntityCandidate.agent == self.agent_id)
        ).execute()

    def undo(self, event_id: int) -> int:
        ev = AuditEvent.get_or_none(
            (AuditEvent.id == event_id) & (AuditEvent.agent == self.agent_id)
        )
        if ev is None or not ev.action.startswith("entity.") or ev.action == "entity.undo":
            raise NotFound(f"no entity action {event_id} to undo")
        with self.db.atomic():
            now = state(set(ev.after["ids"]) | set(ev.before["ids"]))
            _put_back(ev.before, ev.after["ids"])
            refresh(ev.before["ids"])
            return self._audit("entity.undo", now, state(ev.before["ids"]), f"undo of {event_id}")

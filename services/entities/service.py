"""One agent's entity memory: ``memory.entities`` (the façade builds it with the write
policy's name check, so every name a user or an import gives passes the one policy)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from models import Fact
from services.entities import linking, queries
from services.entities.actions import EntityActions
from services.entities.queries import EntityPage, EntityView
from services.store import fact_rows
from services.store.handle import MemoryHandle


class EntityService:
    def __init__(self, agent_id: int, db, clean: Callable[[str], str | None]):
        self.agent_id, self.db, self.clean = agent_id, db, clean
        self._actions = EntityActions(agent_id, db, clean)

    # reading
    def list(self, typ: str | None = None, query: str | None = None) -> list[EntityView]:
        return queries.entities(self.agent_id, typ, query)

    def find(self, name_or_id: str | int) -> EntityView:
        return queries.view(queries.find(self.agent_id, str(name_or_id)))

    def page(self, name_or_id: str | int) -> EntityPage:
        return queries.page(self.agent_id, queries.find(self.agent_id, str(name_or_id)).id)

    def candidates(self):
        return queries.candidates(self.agent_id)

    def relevant(self, query: str, limit: int = 5):
        return queries.relevant(self.agent_id, query, limit)

    # linking (the pipeline and edits call these)
    def link(self, fact_ids: Iterable[int]) -> None:
        for row in fact_rows.rows(self.agent_id, fact_ids):
            linking.link_fact(self.agent_id, row, self.clean)

    def relink(self, fact_id: int) -> None:
        row = fact_rows.row(self.agent_id, fact_id)
        if row is not None:
            with self.db.atomic():
                linking.relink(self.agent_id, row, self.clean)

    # the user's actions (audited, undoable)
    def merge(self, target: str | int, others: Iterable[str | int]) -> int:
        t = queries.find(self.agent_id, str(target)).id
        return self._actions.merge(t, [queries.find(self.agent_id, str(o)).id for o in others])

    def split(self, entity: str | int, fact_ids: Iterable[int], name: str | None = None):
        return self._actions.split(queries.find(self.agent_id, str(entity)).id, fact_ids, name)

    def rename(self, entity: str | int, name: str, keep_alias: bool = True) -> int:
        return self._actions.rename(queries.find(self.agent_id, str(entity)).id, name, keep_alias)

    def alias(self, entity: str | int, add: Iterable[str] = (), remove: Iterable[str] = ()) -> int:
        return self._actions.alias(queries.find(self.agent_id, str(entity)).id, add, remove)

    def set_type(self, entity: str | int, typ: str) -> int:
        return self._actions.set_type(queries.find(self.agent_id, str(entity)).id, typ)

    def dismiss(self, candidate_id: int) -> None:
        self._actions.dismiss(candidate_id)

    def undo(self, event_id: int) -> int:
        return self._actions.undo(event_id)


def link_row(memory: MemoryHandle, row: Fact) -> None:
    """The write pipeline's one call: link a fact just inserted (inside its transaction). A
    failure here must not lose the fact: the links are rolled back to a savepoint and logged."""
    import logging

    try:
        with memory.db.atomic():
            linking.link_fact(memory.agent_id, row, memory.entities.clean)
    except Exception:  # entity links are derived data; `engram entities --relink` remakes them
        logging.getLogger(__name__).warning(
            "entity linking failed for fact %s", row.id, exc_info=True
        )

"""The entity and timeline tools as the SDK sees them: find, show and link people, projects
and tools, the recent sessions, and the ``recent`` resource whose subscribers hear of every
write. The work is done by ``entities.py``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from services.integrations.mcp import entities
from services.integrations.mcp.common import (
    ADDS,
    READ,
    client_name,
    expected,
    hints,
    recent_uri,
)

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle


def register(server, mem: Callable[[], MemoryHandle], slug: str, changed) -> None:
    @server.tool(
        name="search_entities",
        title="Find people, projects and tools",
        description=(
            "List the entities this memory names (people, organisations, projects, places, "
            "tools), most mentioned first, optionally only those matching a name or of one "
            "type. Each comes with its aliases and how many memories mention it."
        ),
        annotations=hints(**READ),
    )
    @expected
    def search_entities(
        query: Annotated[str | None, Field(description="part of a name or alias")] = None,
        type: Annotated[str | None, Field(description="person, org, project, place, tool…")] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> dict:
        return entities.search_entities(mem(), query, type, limit)

    @server.tool(
        name="show_entity",
        title="Everything about one entity",
        description=(
            "One entity by name, alias or id: its type, aliases, its relations to other "
            "entities (from, type, to) and the memories that mention it, newest last."
        ),
        annotations=hints(**READ),
    )
    @expected
    def show_entity(
        name: Annotated[str, Field(description="name, alias or id", min_length=1)],
        facts: Annotated[int, Field(ge=1, le=100, description="at most this many")] = 20,
    ) -> dict:
        return entities.show_entity(mem(), name, facts)

    @server.tool(
        name="link_entities",
        title="Link two entities",
        description=(
            "Record a relation between two people, projects, organisations or tools, e.g. "
            "('Ada', 'works_at', 'Acme'). It is stored as a memory the user can see and "
            "correct, and the entities are linked from it."
        ),
        annotations=hints(**ADDS),
    )
    @expected
    async def link_entities(
        source: Annotated[str, Field(description="the first entity", min_length=1)],
        relation: Annotated[str, Field(description="works_at, owns, uses…", min_length=1)],
        target: Annotated[str, Field(description="the second entity", min_length=1)],
        ctx: Context,
    ) -> dict[str, Any]:
        out = entities.link_entities(mem(), source, relation, target, client=client_name(ctx))
        await changed(ctx)
        return out

    @server.tool(
        name="recent_episodes",
        title="What happened in recent sessions",
        description=(
            "The timeline: what each recent session did and how it ended, newest first, "
            "optionally since a date (YYYY-MM-DD) and only those tagged with a project."
        ),
        annotations=hints(**READ),
    )
    @expected
    def recent_episodes(
        since: Annotated[str | None, Field(description="YYYY-MM-DD")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
        project: Annotated[str | None, Field(description="only this project's")] = None,
    ) -> dict:
        return entities.recent_episodes(mem(), since, limit, project)

    server.resource(
        recent_uri(slug),
        name="recent.md",
        title=f"Recent memories of {slug}",
        description="The newest memories; subscribers are told when a write changes it.",
        mime_type="text/markdown",
    )(lambda: entities.recent_markdown(mem()))

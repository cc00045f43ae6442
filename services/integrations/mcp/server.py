"""`engram mcp`: one agent's memory served over the Model Context Protocol (official SDK).

Tools and resources are built per agent: the server can only reach the memory of the agent it
was started for. This module puts the server together from the tool modules of each domain
(``memory_tools``, ``forget_tools``, ``entity_tools``), the prompts and the compiled layers
as resources; ``transports.py`` runs it over stdio or HTTP.

Tool bodies run on the event loop's thread, one at a time: the store's connection is per
thread, and a local single-user server gains nothing from running writes in parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from services.errors import EngramError
from services.integrations.mcp import (
    common,
    entity_tools,
    forget_tools,
    memory,
    memory_tools,
    prompts,
)

if TYPE_CHECKING:
    from services.integrations.mcp.resident import Resident
    from services.store.handle import EngramHandle, MemoryHandle

LAYER_NAMES = ("today", "week", "longterm", "memory")

INSTRUCTIONS = (
    "Engram is the user's memory store for this agent. Call `recall` or `get_context` before "
    "answering questions that may depend on what the user told you earlier; call `remember` "
    "for durable facts, preferences and decisions worth keeping (one fact per call, written "
    "as a short self-contained sentence). The user sees and governs everything you store."
)


def build_server(engram: EngramHandle, slug: str, resident: Resident | None = None):
    """An ``MCPServer`` bound to agent ``slug`` (which must exist); with ``resident``, recall
    and the context block are asked of the store's daemon first (``resident.py``)."""
    from mcp.server.mcpserver import MCPServer

    engram.agent(slug)  # NotFound now, not on the first call
    server = MCPServer(
        "engram",
        title=f"Engram memory of {slug}",
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        version=common.server_version(),
    )

    def mem() -> MemoryHandle:
        if resident is not None:
            resident.local()  # this process does the work: its own model, if deferred
        return engram.agent(slug)  # fresh handle: settings may change while the server runs

    changed = common.change_notice(slug)
    # the order of tools/list: writes, then reads, then the rest
    memory_tools.register_writes(server, mem)
    forget_tools.register(server, mem)
    memory_tools.register_reads(server, mem, resident)
    _register_resources(server, mem, slug)
    memory_tools.register_projects(server, mem, changed, resident)
    entity_tools.register(server, mem, slug, changed)
    prompts.register(server, mem)
    common.harden(server)
    return server


def _register_resources(server, mem: Callable[[], MemoryHandle], slug: str) -> None:
    def reader(layer: str):
        def read() -> str:
            from mcp.server.mcpserver.exceptions import ResourceError

            try:
                return memory.resource_text(mem(), layer)
            except EngramError as exc:
                raise ResourceError(str(exc)) from exc

        return read

    server.resource(
        f"engram://{slug}/memory.md",
        name="memory.md",
        title=f"Compiled memory of {slug}",
        description="The agent's compiled long-term memory (what `engram compile` writes).",
        mime_type="text/markdown",
    )(reader("memory"))
    for layer in LAYER_NAMES:
        server.resource(
            f"engram://{slug}/layers/{layer}.md",
            name=f"{layer}.md",
            title=f"{layer} layer of {slug}",
            description=f"The compiled {layer!r} layer.",
            mime_type="text/markdown",
        )(reader(layer))

"""``delete_memory`` and ``forget`` as the SDK sees them. Nothing is erased on the model's
word: a client that declared MCP elicitation asks its user, else the request waits in the
review inbox (``review.py``); the work is done by ``forget.py``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from services.integrations.mcp import forget as plain
from services.integrations.mcp.common import can_ask, client_name, expected, hints

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle


class ForgetConfirmation(BaseModel):
    erase: bool = Field(description="erase these memories for good and refuse them from now on")


class DeleteConfirmation(BaseModel):
    delete: bool = Field(description="delete this memory (it can be undone in Engram)")


def register(server, mem: Callable[[], MemoryHandle]) -> None:
    @server.tool(
        name="delete_memory",
        title="Ask to delete a memory",
        description=(
            "Ask the user to delete one memory by id. Nothing is deleted on your word alone: "
            "the user is asked in your client if it supports elicitation, else the request "
            "waits in the user's Engram review inbox until they approve it (it stays "
            "undoable). To ask for a subject to be forgotten everywhere, use `forget`."
        ),
        annotations=hints(readOnlyHint=False, destructiveHint=True, idempotentHint=True),
    )
    @expected
    async def delete_memory(
        id: Annotated[int, Field(description="the memory's id")], ctx: Context
    ) -> dict[str, Any]:
        memory, client = mem(), client_name(ctx)
        if can_ask(ctx):
            answer = await ctx.elicit(
                plain.delete_question(memory, id, client=client), schema=DeleteConfirmation
            )
            if answer.action == "accept" and answer.data.delete:
                return plain.delete_approved(memory, id, client=client)
            if answer.action in ("accept", "decline"):
                return {"deleted": False, "id": id, "status": "the user declined"}
        # no way to ask in the client (or the question was dismissed): the inbox holds it
        return plain.delete_memory(memory, id, client=client)

    @server.tool(
        name="forget",
        title="Ask to forget a subject for good",
        description=(
            "Ask the user to erase everything this agent remembers that mentions a specific "
            "phrase (facts, their history, vectors, episodes, compiled files) and block it "
            "from being stored again. preview=true (the default) lists what would go. "
            "preview=false asks the user: in your client if it supports elicitation, else the "
            "request waits in Engram's review inbox until the user approves it. Nothing is "
            "erased on your word alone. The phrase must be specific (no stop words, not most "
            "of the memory)."
        ),
        annotations=hints(readOnlyHint=False, destructiveHint=True, idempotentHint=False),
    )
    @expected
    async def forget(
        matching: Annotated[str, Field(description="the phrase to forget", min_length=1)],
        ctx: Context,
        preview: Annotated[bool, Field(description="true: only list what would go")] = True,
    ) -> dict[str, Any]:
        memory, client = mem(), client_name(ctx)
        plan = plain.forget(memory, matching, preview=True, client=client)
        if preview:
            return plan
        if can_ask(ctx):
            answer = await ctx.elicit(
                plain.forget_question(client, matching, plan["would_forget"]),
                schema=ForgetConfirmation,
            )
            if answer.action == "accept" and answer.data.erase:
                return plain.forget_approved(memory, matching, client=client)
            if answer.action in ("accept", "decline"):
                return {"preview": False, "forgotten": False, "status": "the user declined"}
        # no way to ask in the client (or the question was dismissed): the inbox holds it
        return plain.forget(memory, matching, preview=False, client=client)

"""What the ``forget`` and ``delete_memory`` tools do, as plain functions: preview a forget,
queue a request for the person (``review.py``), word the question a client with MCP
elicitation puts to its user, and carry out what the user approved there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.integrations.mcp import review
from services.integrations.mcp.memory import actor_for
from services.store.untrusted import one_line

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle


def delete_memory(memory: MemoryHandle, id: int, client: str | None = None) -> dict:
    """Queued for the user, like ``forget``: an agent alone cannot remove a memory."""
    return review.queue_delete(memory, int(id), actor_for(client))


def forget(
    memory: MemoryHandle, matching: str, preview: bool = True, client: str | None = None
) -> dict:
    """Preview what a forget would erase; with ``preview=False`` queue it for the user.

    The model alone never erases: see ``review.py``."""
    from services.forget.service import ForgetScope, ForgetService

    scope = ForgetScope(agent=memory.slug, matching=matching)
    pv = ForgetService(memory.engram).preview(scope)
    ids = [f["id"] for a in pv.agents for f in a.facts]
    review.check_phrase(memory, matching, len(ids))
    if preview:
        return {
            "preview": True,
            "would_forget": [
                {k: f.get(k) for k in ("id", "content", "why", "score")}
                for a in pv.agents
                for f in a.facts
            ],
            "counts": pv.counts(),
            "next": "call forget again with preview=false to ask the user; nothing is erased "
            "until they approve it",
        }
    return review.queue_forget(memory, matching, ids, actor_for(client))


ASKED_MAX = 10  # memories quoted in a question; the rest are counted
ASKED_CHARS = 120


def _quote(text: str) -> str:
    q = one_line(text)  # stored text is data: one line, prompt tags neutralised
    return q if len(q) <= ASKED_CHARS else q[: ASKED_CHARS - 1] + "…"


def forget_question(client: str | None, matching: str, would_forget: list[dict]) -> str:
    """What the person is asked in their client: each memory that would go (capped), so they
    answer about the memories, not about a number."""
    n = len(would_forget)
    lines = [
        f"{client or 'An MCP client'} asks Engram to forget {n} memor"
        f"{'y' if n == 1 else 'ies'} mentioning {matching!r} for good, and to refuse that "
        "text from now on:"
    ]
    lines += [f"- {_quote(f['content'])}" for f in would_forget[:ASKED_MAX]]
    if n > ASKED_MAX:
        lines.append(f"+{n - ASKED_MAX} more")
    lines.append("Erase them?")
    return "\n".join(lines)


def delete_question(memory: MemoryHandle, id: int, client: str | None = None) -> str:
    fact = memory.get(int(id))  # NotFound for another agent's id: nothing to ask
    return (
        f"{client or 'An MCP client'} asks Engram to delete memory #{fact.id}:\n"
        f"- {_quote(fact.content)}\n"
        "It goes to Engram's history (it can be undone there). Delete it?"
    )


def delete_approved(memory: MemoryHandle, id: int, client: str | None = None) -> dict:
    """The user said yes in their client (MCP elicitation): delete now, as a user delete."""
    memory.get(int(id))
    memory.delete([int(id)], actor=f"user via {actor_for(client)}", reason="approved in client")
    return {"deleted": True, "id": int(id)}


def forget_approved(memory: MemoryHandle, matching: str, client: str | None = None) -> dict:
    """The user said yes in their client (MCP elicitation): erase now."""
    # the receipt holds counts and keyed hashes, never the forgotten text
    receipt = review.execute_forget(memory, matching, actor=f"user via {actor_for(client)}")
    return {"preview": False, "receipt": receipt}

"""What the MCP server's tools do, as plain functions over one agent's memory.

The transport (``mcp_server.py``) only maps tool calls onto these; keeping them free of the
SDK lets the write-policy table and the benchmark call them in-process. Every function takes
the agent handle it is scoped to, so an id from another agent is "not found" (the fact store
filters by agent), and every write goes through ``memory.remember_many`` / ``memory.edit``:
the one write policy, dedup, supersession and the audit log, with ``mcp:<client>`` as actor.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from models import Agent
from models.tables import FACT_STATUSES
from services.errors import InvalidInput, NotFound
from services.ingest.pipeline import NewFact
from services.store.facts import FactFilters
from services.store.review import review_metadata
from services.store.untrusted import DATA_NOTICE, one_line

if TYPE_CHECKING:
    from services.store.handle import EngramHandle, MemoryHandle

REVIEW_SETTING = "mcp_review"  # Agent.settings key: MCP writes wait in the review inbox
MAX_LIST = 200
MAX_K = 50


def actor_for(client: str | None) -> str:
    """The audit log's actor for a write by an MCP client ("mcp:claude-code")."""
    name = "".join(c for c in (client or "unknown").strip() if c.isprintable())[:64]
    return f"mcp:{name or 'unknown'}"


def review_required(memory: MemoryHandle) -> bool:
    """Read from the row, not the handle: the desktop app may flip it while a server runs."""
    row = Agent.get_or_none(Agent.id == memory.agent_id)
    return bool(((row.settings if row else None) or {}).get(REVIEW_SETTING))


def set_review_required(engram: EngramHandle, slug: str, on: bool) -> None:
    engram.update_agent(slug, settings={REVIEW_SETTING: bool(on)})


def _fact_json(f) -> dict:
    day = f.event_date or f.created_at.date()
    return {
        "id": f.id,
        # stored text is data: one line, prompt tags (and their look-alikes) neutralised
        "content": one_line(f.content),
        "category": one_line(f.category),
        "date": day.isoformat(),
        "status": "pending review" if f.status == "pending" else f.status,
        "pinned": f.pinned,
        "importance": round(f.importance, 3),
    }


# writes ------------------------------------------------------------------------------------
def remember(
    memory: MemoryHandle,
    text: str,
    category: str = "fact",
    importance: float = 0.5,
    pin: bool = False,
    client: str | None = None,
) -> dict:
    item = NewFact(
        content=text,
        category=(category or "fact").strip() or "fact",
        importance=importance,
        pinned=bool(pin),
        source="mcp",
        source_ref=actor_for(client),
    )
    if review_required(memory):
        item = replace(item, status="pending", metadata=review_metadata("mcp", client=client))
    [res] = memory.remember_many([item], actor=actor_for(client))
    if res.status == "empty":
        raise InvalidInput("nothing to remember: the text is empty")
    if res.status == "refused":
        raise InvalidInput(f"not stored: {res.reason}")
    out: dict = {"id": res.fact_id, "redacted_secrets": res.redactions}
    if res.status == "blocked":
        out.update(id=None, status="blocked by a forget rule")
        return out
    if res.status in ("duplicate", "near-duplicate"):
        out["status"] = "duplicate"
    elif res.superseded:
        out.update(status="superseded", superseded=res.superseded)
    elif res.status == "conflict":
        out.update(
            status="conflict: waits for the user's review", conflicts_with=res.conflicts_with
        )
        return out
    else:
        out["status"] = "added"
    if res.fact_id is not None and memory.get(res.fact_id).status == "pending":
        out["status"] = "pending review"
    return out


def update_memory(
    memory: MemoryHandle,
    id: int,
    text: str | None = None,
    category: str | None = None,
    importance: float | None = None,
    pin: bool | None = None,
    client: str | None = None,
) -> dict:
    given = {"content": text, "category": category, "importance": importance, "pinned": pin}
    changes: dict = {k: v for k, v in given.items() if v is not None}
    if not changes:
        raise InvalidInput("say what to change: text, category, importance or pin")
    before = memory.get(int(id))  # NotFound for another agent's id
    if text is not None and review_required(memory):
        changes["status"] = "pending"
        changes["metadata"] = {**before.metadata, **review_metadata("mcp", client=client)}
    after = memory.edit(int(id), actor=actor_for(client), **changes)
    return {"updated": True, **_fact_json(after)}


def delete_memory(memory: MemoryHandle, id: int, client: str | None = None) -> dict:
    """Queued for the user, like ``forget``: an agent alone cannot remove a memory."""
    from services.integrations import mcp_requests

    return mcp_requests.queue_delete(memory, int(id), actor_for(client))


# reads -------------------------------------------------------------------------------------
# A server answers `initialize` first and loads the model behind it; a recall meanwhile waits
# for the model (1-3 s idle) rather than answer keyword-only: keyword alone finds R@5 .497 of
# LoCoMo against hybrid's .678, and 10 of 10 first recalls were keyword-only. Bounded, so a
# machine too loaded to load it still answers (keyword-only, and says so).
MODEL_WAIT_S = 30.0


def recall(
    memory: MemoryHandle,
    query: str,
    k: int = 5,
    category: str | None = None,
    mode: str = "auto",
) -> dict:
    if not (query or "").strip():
        raise InvalidInput("recall needs a query")
    if mode != "keyword":
        memory.engram.wait_model(MODEL_WAIT_S)
    if mode == "auto":
        mode = "hybrid" if memory.engram.semantic_enabled else "keyword"
    if mode not in ("hybrid", "keyword", "semantic"):
        raise InvalidInput("mode must be auto, hybrid, keyword or semantic")
    filters = FactFilters(status="active", category=category) if category else None
    hits = memory.search(query, k=max(1, min(int(k), MAX_K)), filters=filters, mode=mode)
    from services.search.hybrid import Pipeline, pipeline_for

    pipeline = pipeline_for(memory, mode)
    out = {
        "notice": DATA_NOTICE,
        "mode": mode,
        "pipeline": pipeline,
        "keyword_only": pipeline == Pipeline.KEYWORD_ONLY.value,
        "hits": [{**_fact_json(h.fact), "score": round(h.score, 4)} for h in hits],
    }
    if out["keyword_only"]:  # the agent should know a paraphrase may have been missed
        out["note"] = "keyword-only: semantic search is not loaded, results match words only"
    return out


def list_memories(
    memory: MemoryHandle,
    category: str | None = None,
    status: str = "active",
    limit: int = 50,
    offset: int = 0,
) -> dict:
    status = "pending" if status in ("review", "pending review") else status
    if status not in (*FACT_STATUSES, "all"):
        raise InvalidInput(f"status must be one of {', '.join((*FACT_STATUSES, 'all'))}")
    filters = FactFilters(status=None if status == "all" else status, category=category)
    limit = max(1, min(int(limit), MAX_LIST))
    facts = memory.list(filters, limit=limit, offset=max(0, int(offset)))
    return {
        "notice": DATA_NOTICE,
        "total": memory.facts.count(filters),
        "offset": max(0, int(offset)),
        "items": [_fact_json(f) for f in facts],
    }


def get_context(memory: MemoryHandle, query: str, budget: int = 1500) -> str:
    from services.search.context import build_context

    return build_context(memory, query, budget=int(budget))


# forget ------------------------------------------------------------------------------------
def forget(
    memory: MemoryHandle, matching: str, preview: bool = True, client: str | None = None
) -> dict:
    """Preview what a forget would erase; with ``preview=False`` queue it for the user.

    The model alone never erases: see ``mcp_requests``."""
    from services.forget.service import ForgetScope, ForgetService
    from services.integrations import mcp_requests

    scope = ForgetScope(agent=memory.slug, matching=matching)
    pv = ForgetService(memory.engram).preview(scope)
    ids = [f["id"] for a in pv.agents for f in a.facts]
    mcp_requests.check_phrase(memory, matching, len(ids))
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
    return mcp_requests.queue_forget(memory, matching, ids, actor_for(client))


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
    from services.integrations import mcp_requests

    # the receipt holds counts and keyed hashes, never the forgotten text
    receipt = mcp_requests.execute_forget(memory, matching, actor=f"user via {actor_for(client)}")
    return {"preview": False, "receipt": receipt}


def resource_text(memory: MemoryHandle, layer: str = "memory") -> str:
    from services.lifecycle.compile import latest_layers

    got = latest_layers(memory).get(layer)
    if got is None:
        raise NotFound(
            f"no compiled {layer!r} layer for agent {memory.slug!r} yet (run `engram compile`)"
        )
    return got.markdown

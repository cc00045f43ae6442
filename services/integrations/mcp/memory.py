"""What the memory tools do, as plain functions over one agent's memory: remember (one, a
batch, in a project), correct, recall, list, read one with its history, the context block.

The SDK-facing modules (``*_tools.py``) only map tool calls onto these; keeping them free of
the SDK lets the write-policy table and the benchmark call them in-process. Every function takes
the agent handle it is scoped to, so an id from another agent is "not found" (the fact store
filters by agent), and every write goes through ``memory.remember_many`` / ``memory.edit``:
the one write policy, dedup, supersession and the audit log, with ``mcp:<client>`` as actor.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from models.tables import FACT_STATUSES
from services.errors import InvalidInput, NotFound
from services.ingest.pipeline import NewFact
from services.integrations.mcp.review import review_required
from services.records import RememberStatus
from services.store.facts import FactFilters
from services.store.review import review_metadata
from services.store.untrusted import DATA_NOTICE, one_line

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle

MAX_LIST = 200
MAX_K = 50
MAX_BATCH = 50


def actor_for(client: str | None) -> str:
    """The audit log's actor for a write by an MCP client ("mcp:claude-code")."""
    name = "".join(c for c in (client or "unknown").strip() if c.isprintable())[:64]
    return f"mcp:{name or 'unknown'}"


def fact_json(f) -> dict:
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
    from services.store.pause import PAUSED_MESSAGE, is_paused

    if is_paused(memory.agent_id):  # the user's incognito switch: the model is told so
        return {"id": None, "status": PAUSED_MESSAGE, "redacted_secrets": 0}
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
    if res.status == RememberStatus.EMPTY:
        raise InvalidInput("nothing to remember: the text is empty")
    if res.status == RememberStatus.REFUSED:
        raise InvalidInput(f"not stored: {res.reason}")
    out: dict = {"id": res.fact_id, "redacted_secrets": res.redactions}
    if res.status == RememberStatus.BLOCKED:
        out.update(id=None, status="blocked by a forget rule")
        return out
    if res.status in (RememberStatus.DUPLICATE, RememberStatus.NEAR_DUPLICATE):
        out["status"] = "duplicate"
    elif res.superseded:
        out.update(status="superseded", superseded=res.superseded)
    elif res.status == RememberStatus.CONFLICT:
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
    return {"updated": True, **fact_json(after)}


def project_category(project: str | None, category: str | None) -> str:
    """A project scope is Engram's ``proj:<name>`` category (the one the importers use)."""
    if project and project.strip():
        return f"proj:{project.strip().lower().replace(' ', '-')}"
    return (category or "fact").strip() or "fact"


def remember_batch(memory: MemoryHandle, items: list[dict], client: str | None = None) -> dict:
    if not items:
        raise InvalidInput("remember_batch needs at least one item")
    if len(items) > MAX_BATCH:
        raise InvalidInput(f"at most {MAX_BATCH} items per call, not {len(items)}")
    out = []
    for n, it in enumerate(items, 1):
        text = str(it.get("text") or "").strip()
        if not text:
            out.append({"item": n, "status": "skipped: empty text"})
            continue
        cat = project_category(it.get("project"), it.get("category"))
        res = remember(
            memory, text, cat, float(it.get("importance", 0.5)), bool(it.get("pin")), client
        )
        out.append({"item": n, **res})
    return {"results": out, "added": sum(1 for r in out if r.get("status") == "added")}


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
    from services.store.read_log import record_reads

    record_reads(memory.db, memory.agent_id, "mcp recall", [h.fact.id for h in hits])
    out = {
        "notice": DATA_NOTICE,
        "mode": mode,
        "pipeline": pipeline,
        "keyword_only": pipeline == Pipeline.KEYWORD_ONLY.value,
        "hits": [{**fact_json(h.fact), "score": round(h.score, 4)} for h in hits],
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
        "items": [fact_json(f) for f in facts],
    }


def get_memory(memory: MemoryHandle, id: int) -> dict:
    f = memory.get(int(id))
    hist = memory.facts.history(int(id))
    return {
        **fact_json(f),
        "tags": list(f.tags or []),
        "source": f.source,
        "history": [
            {
                k: _plain(h[k])
                for k in ("action", "created_at", "actor", "reason", "before", "after")
                if h.get(k) is not None
            }  # fmt: skip
            for h in hist
        ],
    }


def _plain(value):
    """JSON-ready: dates as ISO text, nested dicts and lists alike."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def get_context(memory: MemoryHandle, query: str, budget: int = 1500) -> str:
    from services.search.context import build_context

    return build_context(memory, query, budget=int(budget), reader="mcp get_context")


def resource_text(memory: MemoryHandle, layer: str = "memory") -> str:
    from services.lifecycle.compile import latest_layers

    got = latest_layers(memory).get(layer)
    if got is None:
        raise NotFound(
            f"no compiled {layer!r} layer for agent {memory.slug!r} yet (run `engram compile`)"
        )
    return got.markdown

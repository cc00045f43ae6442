"""What the entity and timeline tools do, as plain functions over one agent's memory (the
SDK-facing part is ``entity_tools.py``): entities and their relations, linking two of them,
the timeline of episodes and the ``recent`` resource."""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.errors import InvalidInput
from services.records import RememberStatus

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle


def search_entities(
    memory: MemoryHandle, query: str | None = None, type: str | None = None, limit: int = 20
) -> dict:
    rows = memory.entities.list(type or None, (query or "").strip() or None)
    limit = max(1, min(int(limit), 100))
    return {
        "total": len(rows),
        "entities": [
            {
                "id": e.id,
                "name": e.name,
                "type": e.type,
                "aliases": list(e.aliases),
                "facts": e.mention_count,
                "last_mentioned": e.last_mentioned.date().isoformat(),
            }
            for e in rows[:limit]
        ],
    }


def show_entity(memory: MemoryHandle, name: str, facts: int = 20) -> dict:
    page = memory.entities.page(name)
    e = page.entity
    return {
        "id": e.id,
        "name": e.name,
        "type": e.type,
        "aliases": list(e.aliases),
        "relations": [{"from": a, "type": t, "to": b} for a, t, b, _ in page.relations],
        "facts": [
            {
                "id": f.id,
                "content": f.content,
                "date": f.created_at.date().isoformat(),
                "status": f.status,
            }  # fmt: skip
            for f in page.facts[-max(1, min(int(facts), 100)) :]
        ],
    }


def recent_episodes(
    memory: MemoryHandle, since: str | None = None, limit: int = 20, project: str | None = None
) -> dict:
    from datetime import date

    try:
        day = date.fromisoformat(since) if since else None
    except ValueError:
        raise InvalidInput(f"since must be a date like 2026-11-30, not {since!r}") from None
    eps = memory.episodes.list(since=day, limit=max(1, min(int(limit), 200)))
    rows = [e.to_json() for e in eps]
    if project:
        p = project.strip().lower()
        rows = [r for r in rows if p in " ".join(map(str, r.get("tags") or [])).lower()]
    keep = ("id", "day", "time", "summary", "tags")
    return {"episodes": [{k: r.get(k) for k in keep if k in r} for r in rows]}


def recent_markdown(memory: MemoryHandle, n: int = 30) -> str:
    """The newest memories as Markdown (the ``recent`` resource; it changes with each write,
    and subscribers are told so)."""
    rows = memory.list(limit=n)
    if not rows:
        return f"# Recent memories of {memory.slug}\n\nNothing remembered yet.\n"
    lines = [f"# Recent memories of {memory.slug}", ""]
    lines += [f"- #{f.id} [{f.category}] {f.content}" for f in rows]
    return "\n".join(lines) + "\n"


def link_entities(
    memory: MemoryHandle, source: str, relation: str, target: str, client: str | None = None
) -> dict:
    """State that ``source`` —relation→ ``target``: a fact in the ``rel:<relation>``
    category carrying the relation in its metadata (how importers state one), through the one
    write pipeline; the entity linker makes both entities and the edge from it."""
    from dataclasses import replace

    from services.ingest.pipeline import NewFact
    from services.ingest.policy import Target, policy_for
    from services.integrations.mcp.memory import actor_for
    from services.integrations.mcp.review import review_required
    from services.store.review import review_metadata

    a, rel, b = (x.strip() for x in (source, relation, target))
    if not (a and rel and b):
        raise InvalidInput("link_entities needs a source, a relation and a target")
    # the names also go into the fact's metadata: they pass the write policy like its text
    policy = policy_for(memory)
    verdicts = [policy.sanitize(x, Target.OTHER) for x in (a, rel, b)]
    if any(v.blocked_by for v in verdicts):
        return {"id": None, "status": "blocked by a forget rule"}
    a, rel, b = (str(v.text) for v in verdicts)
    words = rel.replace("_", " ")
    item = NewFact(
        content=f"{a} {words} {b}",
        category=f"rel:{rel.lower().replace(' ', '_')}",
        source="mcp",
        source_ref=actor_for(client),
        metadata={"relation": {"from": a, "to": b, "type": words}},
    )
    if review_required(memory):
        item = replace(item, status="pending", metadata={**item.metadata, **review_metadata("mcp")})
    [res] = memory.remember_many([item], actor=actor_for(client))
    if res.status == RememberStatus.BLOCKED:
        return {"id": None, "status": "blocked by a forget rule"}
    return {"id": res.fact_id, "status": res.status, "relation": [a, words, b]}

"""Destructive requests from an MCP client wait for the person (and so does every MCP write
of an agent whose "review MCP writes" setting is on).

A model can be prompt-injected by the very memories it reads, so ``forget`` and
``delete_memory`` over MCP never erase anything on the model's word. The request becomes an
item in the agent's review inbox (a ``pending`` fact whose review note says
``forget-request`` or ``delete-request``); the user approves it with ``engram review accept
ID`` (or in the app) and only then does Engram run the forget service or the delete. A client
that declares MCP elicitation can ask the user in its own UI instead (``forget_tools.py``).

A forget also installs a forget rule, so its phrase must be specific: not a stop word, not
too short, and not matching more than ``MAX_SHARE`` of the agent's facts. A memory whose text
asks for a forget is data like any other: nothing here reads memory text as a command.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from models import Agent
from services.errors import InvalidInput, NotFound
from services.ingest.contradiction import STOP
from services.ingest.pipeline import NewFact
from services.ingest.policy import policy_for
from services.store import review
from services.store.text import normalize

if TYPE_CHECKING:
    from services.store.handle import EngramHandle, MemoryHandle

FORGET = "forget-request"
DELETE = "delete-request"
MIN_PHRASE = 4  # characters, once normalised
MAX_SHARE = 0.25  # a phrase in more than this share of the agent's facts is not specific
MIN_BROAD = 3  # ...when it matches at least this many (a small agent's one fact is fine)
EXTRA_STOP = frozenset("all any every everything memory memories fact facts thing things".split())
REVIEW_SETTING = "mcp_review"  # Agent.settings key: MCP writes wait in the review inbox


def review_required(memory: MemoryHandle) -> bool:
    """Read from the row, not the handle: the desktop app may flip it while a server runs."""
    row = Agent.get_or_none(Agent.id == memory.agent_id)
    return bool(((row.settings if row else None) or {}).get(REVIEW_SETTING))


def set_review_required(engram: EngramHandle, slug: str, on: bool) -> None:
    engram.update_agent(slug, settings={REVIEW_SETTING: bool(on)})


def check_phrase(memory: MemoryHandle, phrase: str, would_forget: int) -> None:
    """InvalidInput unless ``phrase`` is specific enough to become a forget rule."""
    norm = normalize(phrase or "")
    words = norm.split()
    content = [w for w in words if w not in STOP and w not in EXTRA_STOP]
    if len(norm) < MIN_PHRASE or not content:
        raise InvalidInput(
            f"forget needs a specific phrase (at least {MIN_PHRASE} characters and a word that "
            f"is not a stop word): {phrase!r} would block ordinary text"
        )
    total = memory.facts.count()
    if total and would_forget >= MIN_BROAD and would_forget / total > MAX_SHARE:
        raise InvalidInput(
            f"forget phrase {phrase!r} is too broad: it matches {would_forget} of {total} facts "
            f"(more than {int(MAX_SHARE * 100)} %); ask the user to run `engram forget` themselves"
        )


def _queue(memory: MemoryHandle, kind: str, text: str, detail: dict, key: str) -> int | None:
    item = NewFact(
        content=text,
        category="meta",
        source="mcp",
        source_ref=detail.get("client"),
        status="pending",
        # its own subject: a request never supersedes or merges with a memory or another request
        subject=f"{kind}:{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}",
        metadata=review.review_metadata(kind, **detail),
    )
    [res] = memory.remember_many([item], near_duplicate=None, actor=detail["client"], bump=False)
    return res.fact_id


def queue_forget(memory: MemoryHandle, phrase: str, would_forget: list[int], client: str) -> dict:
    verdict = policy_for(memory).sanitize(phrase)
    if verdict.blocked_by:
        return {"queued": False, "status": "already forgotten: a forget rule blocks this text"}
    # the phrase as the write policy lets it be stored (a secret in it is redacted)
    clean = str(verdict.text)
    text = (
        f"Request from {client}: forget every memory that mentions “{clean}” "
        f"({len(would_forget)} now) and refuse it from now on."
    )
    rid = _queue(
        memory, FORGET, text, {"client": client, "matching": clean, "facts": would_forget}, clean
    )
    return _queued(rid)


def queue_delete(memory: MemoryHandle, fact_id: int, client: str) -> dict:
    fact = memory.get(int(fact_id))  # NotFound for another agent's id
    quote = " ".join(fact.content.split())
    quote = quote if len(quote) <= 120 else quote[:119] + "…"
    text = f"Request from {client}: delete memory #{fact.id} (“{quote}”)."
    rid = _queue(memory, DELETE, text, {"client": client, "fact": fact.id}, f"delete:{fact.id}")
    return _queued(rid)


def _queued(rid: int | None) -> dict:
    return {
        "queued": True,
        "request_id": rid,
        "status": "waiting for the user: nothing is erased until they approve it in Engram "
        f"(`engram review accept {rid} --agent …` or the app's review inbox)",
    }


def execute_forget(memory: MemoryHandle, phrase: str, actor: str = "user") -> dict:
    from services.forget.service import ForgetScope, ForgetService

    scope = ForgetScope(agent=memory.slug, matching=phrase)
    service = ForgetService(memory.engram)
    pv = service.preview(scope)
    return service.execute(scope, preview=pv)


def approve(memory: MemoryHandle, request_id: int, actor: str = "user") -> None:
    """Run an approved request (the review inbox calls this on accept)."""
    row = memory.get(int(request_id))
    note = (row.metadata or {}).get(review.REVIEW) or {}
    kind = note.get("reason")
    if kind == FORGET:
        phrase = str(note.get("matching") or "")
        if not phrase:
            raise InvalidInput(f"request {request_id} names nothing to forget")
        # the request's own row mentions the phrase, so the forget erases it too
        execute_forget(memory, phrase, actor=actor)
        if _exists(memory, row.id):
            memory.delete([row.id], actor=actor, reason="forget request carried out")
    elif kind == DELETE:
        # a fact already gone is fine: approving is still the user's answer
        memory.delete([int(note["fact"])], actor=actor, reason=f"approved request {row.id}")
        memory.delete([row.id], actor=actor, reason="delete request carried out")
    else:
        raise InvalidInput(f"fact {request_id} is not a request")


def _exists(memory: MemoryHandle, fact_id: int) -> bool:
    try:
        memory.get(fact_id)
    except NotFound:
        return False
    return True


# what accepting a request in the review inbox does; the façade hands it to its ReviewInbox
REVIEW_ACTIONS = {FORGET: approve, DELETE: approve}

"""The review inbox: memories that wait for the user before they are used.

A fact is *in review* when its status is ``pending`` and its ``metadata["review"]`` says why:

    {"reason": "personal-data" | "low-confidence" | "conflict" | "mcp" | "entity-merge" | …,
     "confidence": 0.55, "source": "session 1af7…", …any detail the writer wants to show}

Writers put a fact in review with ``review_metadata(...)`` on ``NewFact.metadata`` and
``status="pending"``; the write policy does it for personal data under "ask". Pending facts
*without* a review note are the lifecycle's overflow queue, which GC drains on its own; facts
in review are never drained: only the user moves them.

Accepting makes the fact active (the note is kept as ``reviewed``). Rejecting archives it with
``rejected: true``: its text stays as the reason a restatement is recognised (exact duplicates
of an archived fact are not stored again, and a rejected one is never revived by being said
again), and the user can delete it for good from the Archived view.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from models import Fact
from models.entities import utcnow
from services.errors import InvalidInput, NotFound
from services.records import FactView
from services.store.facts import fact_view, snapshot

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.engram import AgentMemory

REVIEW = "review"
REASONS = ("personal-data", "low-confidence", "conflict", "mcp", "entity-merge", "llm")
# reasons whose acceptance is an action rather than a memory (an MCP client's forget or delete
# request): the layer that can carry it out registers ``run(memory, fact_id, actor)`` here
ACTIONS: dict[str, Callable[..., None]] = {}


def review_metadata(reason: str, confidence: float | None = None, **detail) -> dict:
    """The ``metadata`` entry that puts a new fact in the inbox (merge it into the rest)."""
    note = {"reason": reason, **detail}
    if confidence is not None:
        note["confidence"] = round(float(confidence), 3)
    return {REVIEW: note}


def in_review(metadata: dict | None) -> bool:
    note = (metadata or {}).get(REVIEW)
    return isinstance(note, dict) and not note.get("rejected")


def _reason(metadata: dict | None) -> str | None:
    note = (metadata or {}).get(REVIEW)
    return note.get("reason") if isinstance(note, dict) else None


def was_rejected(metadata: dict | None) -> bool:
    note = (metadata or {}).get(REVIEW)
    return isinstance(note, dict) and bool(note.get("rejected"))


@dataclass(frozen=True)
class ReviewItem:
    fact: FactView
    reason: str
    confidence: float | None
    detail: dict

    def to_json(self) -> dict:
        return {
            "fact": self.fact.to_json(),
            "reason": self.reason,
            "confidence": self.confidence,
            "detail": self.detail,
        }


def _item(row) -> ReviewItem:
    note = dict((row.metadata or {}).get(REVIEW) or {})
    reason = str(note.pop("reason", "review"))
    conf = note.pop("confidence", None)
    return ReviewItem(fact_view(row), reason, conf, note)


class ReviewInbox:
    """One agent's inbox (``memory.review``)."""

    def __init__(self, memory: AgentMemory):
        self.m = memory

    def _rows(self):
        return (
            Fact.select()
            .where((Fact.agent == self.m.agent_id) & (Fact.status == "pending"))
            .order_by(Fact.created_at.desc(), Fact.id.desc())
        )

    def items(self, limit: int | None = None) -> builtins.list[ReviewItem]:
        out = [_item(r) for r in self._rows() if in_review(r.metadata)]
        return out[:limit] if limit else out

    def count(self) -> int:
        return sum(1 for r in self._rows().select(Fact.metadata) if in_review(r.metadata))

    def _take(self, ids: Iterable[int]) -> builtins.list:
        ids = builtins.list(dict.fromkeys(int(i) for i in ids))
        rows = builtins.list(
            Fact.select().where((Fact.agent == self.m.agent_id) & Fact.id.in_(ids))
        )
        found = {r.id for r in rows}
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound(f"no fact {', '.join(map(str, missing))} for this agent")
        not_pending = [r.id for r in rows if not (r.status == "pending" and in_review(r.metadata))]
        if not_pending:
            raise InvalidInput(f"fact {', '.join(map(str, not_pending))} is not waiting for review")
        return rows

    def accept(self, ids: Iterable[int], actor: str = "user") -> builtins.list[int]:
        rows = self._take(ids)
        acts = {r.id: ACTIONS[k] for r in rows if (k := _reason(r.metadata)) in ACTIONS}
        done = self._decide([r.id for r in rows if r.id not in acts], accept=True, actor=actor)
        for fid, run in acts.items():  # outside the transaction: a forget vacuums
            run(self.m, fid, actor)
            done.append(fid)
        return done

    def reject(self, ids: Iterable[int], actor: str = "user") -> builtins.list[int]:
        return self._decide(ids, accept=False, actor=actor)

    def _decide(self, ids, accept: bool, actor: str) -> builtins.list[int]:
        m = self.m
        done: builtins.list[int] = []
        with m.db.atomic():
            for row in self._take(ids):
                before = snapshot(row)
                meta = dict(row.metadata or {})
                note = dict(meta.pop(REVIEW) or {})
                note["decided_at"] = utcnow().isoformat(timespec="seconds")
                note["decided_by"] = actor
                if accept:
                    meta["reviewed"] = note
                    row.status = "active"
                else:
                    meta[REVIEW] = {**note, "rejected": True}
                    row.status = "archived"
                row.metadata = meta
                row.updated_at = utcnow()
                row.save()
                m.facts.audit(
                    "review.accept" if accept else "review.reject",
                    row.id,
                    before,
                    snapshot(row),
                    actor=actor,
                )
                done.append(row.id)
        if done:
            m.engram.bus.emit("fact.updated", agent_id=m.agent_id, ids=done)
        return done

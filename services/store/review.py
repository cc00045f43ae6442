"""The review inbox: memories that wait for the user before they are used.

A fact is *in review* when its status is ``pending`` and its ``metadata["review"]`` says why:

    {"reason": "personal-data" | "low-confidence" | "conflict" | "mcp" | "entity-merge" | …,
     "confidence": 0.55, "source": "session 1af7…", …any detail the writer wants to show}

Writers put a fact in review with ``review_metadata(...)`` on ``NewFact.metadata`` and
``status="pending"``; the write policy does it for personal data under "ask". Pending facts
*without* a review note are the lifecycle's overflow queue, which GC drains on its own; facts
in review are never drained: only the user moves them.

Accepting makes the fact active (the note is kept as ``reviewed``). Rejecting means gone: the
fact is erased everywhere with the forget machinery (row, history snapshots, vectors, the
entities made from it, free pages), a forget rule keeps it from being stored again, and the
forget receipt says what was removed. "Not now" is the other answer: the fact is archived with
``rejected: true`` and ``kept: true``, hidden from the agent and from the inbox, its text kept
(a restatement is recognised as it and never revives it) until the user erases it.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models import Fact
from models.tables import utcnow
from services.errors import InvalidInput, NotFound
from services.records import FactView
from services.store.facts import fact_view, snapshot

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.store.handle import MemoryHandle

REVIEW = "review"
REASONS = (
    "personal-data",
    "low-confidence",
    "conflict",
    "mcp",
    "entity-merge",
    "llm",
    "agent-inbox",
)
# reasons whose acceptance is an action rather than a memory (an MCP client's forget or delete
# request), each with its ``run(memory, fact_id, actor)``: the façade passes the table in
Actions = dict[str, Callable[..., None]]


def review_metadata(reason: str, confidence: float | None = None, **detail: Any) -> dict:
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


def _item(row: Any) -> ReviewItem:
    note = dict((row.metadata or {}).get(REVIEW) or {})
    reason = str(note.pop("reason", "review"))
    conf = note.pop("confidence", None)
    return ReviewItem(fact_view(row), reason, conf, note)


Eraser = Callable[[builtins.list[int]], dict]
# (fact id, corrected text, actor) → (the accepted memory's id, the original's erasure receipt)
Editor = Callable[[int, str, str], tuple[int, dict | None]]


class ReviewInbox:
    """One agent's inbox (``memory.review``). ``erase`` is the forget service's erasure of
    facts (the façade passes it in: the store sits below the forget package)."""

    def __init__(
        self,
        memory: MemoryHandle,
        erase: Eraser | None = None,
        edit: Editor | None = None,
        actions: Actions | None = None,
    ):
        self.m = memory
        self._actions: Actions = dict(actions or {})
        self._erase = erase
        self._edit = edit  # ``services.ingest.review_edit``, passed in by the façade
        self.last_receipt: dict | None = None  # the forget receipt of the last reject

    def _rows(self) -> Any:
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

    def _take(self, ids: Iterable[int], kept_too: bool = False) -> builtins.list:
        ids = builtins.list(dict.fromkeys(int(i) for i in ids))
        rows = builtins.list(
            Fact.select().where((Fact.agent == self.m.agent_id) & Fact.id.in_(ids))
        )
        found = {r.id for r in rows}
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound(f"no fact {', '.join(map(str, missing))} for this agent")
        not_pending = [
            r.id
            for r in rows
            if not (r.status == "pending" and in_review(r.metadata))
            and not (kept_too and was_rejected(r.metadata))
        ]
        if not_pending:
            raise InvalidInput(f"fact {', '.join(map(str, not_pending))} is not waiting for review")
        return rows

    def accept(self, ids: Iterable[int], actor: str = "user") -> builtins.list[int]:
        rows = self._take(ids)
        acts = {r.id: self._actions[k] for r in rows if (k := _reason(r.metadata)) in self._actions}
        done = self._decide([r.id for r in rows if r.id not in acts], accept=True, actor=actor)
        for fid, run in acts.items():  # outside the transaction: a forget vacuums
            run(self.m, fid, actor)
            done.append(fid)
        return done

    def reject(self, ids: Iterable[int], actor: str = "user") -> builtins.list[int]:
        """Erase the candidates everywhere; the ids erased (the receipt: ``last_receipt``)."""
        rows = self._take(ids, kept_too=True)  # "not now" ones too
        done = [r.id for r in rows]
        if self._erase is None:
            raise InvalidInput("rejecting needs the forget service; open the agent via Engram")
        # an agent's proposal (a Gemini inbox patch) holds the same text: it goes too
        proposals = [((r.metadata or {}).get(REVIEW) or {}).get("patch_file") for r in rows]
        self.last_receipt = self._erase(done) if done else None
        for patch in proposals:
            if patch:
                Path(patch).unlink(missing_ok=True)
        return done

    def edit(self, fact_id: int, content: str, actor: str = "user") -> int:
        """Accept a corrected version of a candidate; the original text is erased everywhere
        (receipt: ``last_receipt``). The id of the accepted memory (a new one when the text
        changed)."""
        if self._edit is None:
            raise InvalidInput("editing needs the forget service; open the agent via Engram")
        fid, self.last_receipt = self._edit(int(fact_id), content, actor)
        return fid

    def not_now(self, ids: Iterable[int], actor: str = "user") -> builtins.list[int]:
        """Hide the candidates and keep them (archived, never revived by a restatement)."""
        return self._decide(ids, accept=False, actor=actor)

    def _decide(self, ids: Iterable[int], accept: bool, actor: str) -> builtins.list[int]:
        m = self.m
        done: builtins.list[int] = []
        settled: builtins.list[Path | None] = []  # agents' proposal files to remove after
        with m.db.atomic():
            for row in self._take(ids):
                before = snapshot(row)
                meta = dict(row.metadata or {})
                note = dict(meta.pop(REVIEW) or {})
                if note.get("patch_file"):
                    settled.append(_settle_proposal(note["patch_file"], accept))
                note["decided_at"] = utcnow().isoformat(timespec="seconds")
                note["decided_by"] = actor
                if accept:
                    meta["reviewed"] = note
                    row.status = "active"
                else:
                    meta[REVIEW] = {**note, "rejected": True, "kept": True}
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
        for patch in settled:  # decided: the agent must not find its proposal again
            if patch is not None:
                patch.unlink(missing_ok=True)
        if accept and done:
            _link_accepted(m, done)
        if done:
            m.engram.bus.emit("fact.updated", agent_id=m.agent_id, ids=done)
        return done


def _link_accepted(m: MemoryHandle, ids: builtins.list[int]) -> None:
    """An accepted memory's names become entities now (waiting, it linked none). Links are
    derived data: a failure is logged, the decision stands (``engram entities --relink``)."""
    import logging

    try:
        with m.db.atomic():
            m.entities.link(ids)
    except Exception:
        logging.getLogger(__name__).warning("entity linking failed for %s", ids, exc_info=True)


def _settle_proposal(patch_file: str, accept: bool) -> Path | None:
    """An agent's proposed change to its own memory file (a Gemini CLI Auto Memory inbox
    patch): accepting applies it to the file (a patch that no longer fits is refused and the
    item stays in the inbox); either way the proposal file goes once the decision is saved."""
    from services.store.patch_files import apply_patch_file

    path = Path(patch_file)
    if not path.exists():
        return None
    if accept:
        apply_patch_file(path)
    return path

"""Edit before accepting: the user corrects a candidate in the review inbox (typically to take
personal data out of it) and accepts the correction.

The original text must not survive the correction, so the candidate is not edited in place
(its history would keep the original in the "before" snapshot, and the old row bytes would
linger in free pages, the FTS index and Chroma): it is erased like a forget of it (row,
history, vectors, entities, free pages; no forget rule: a correction is not a ban), and the
corrected text is stored as a new memory through the write policy, already accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from models.tables import utcnow
from services.errors import InvalidInput
from services.ingest.pipeline import NewFact
from services.ingest.policy import sanitize_for
from services.store.review import REVIEW, in_review

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.store.handle import MemoryHandle

Eraser = Callable[[list[int]], dict]


def edit_and_accept(
    memory: MemoryHandle, fact_id: int, content: str, erase: Eraser, actor: str = "user"
) -> tuple[int, dict | None]:
    """The accepted memory's id and the receipt of the original's erasure (None when the
    text did not change: then it is a plain accept)."""
    view = memory.get(fact_id)
    if not (view.status == "pending" and in_review(view.metadata)):
        raise InvalidInput(f"fact {fact_id} is not waiting for review")
    # refused before anything is erased: a correction that cannot be stored loses nothing
    verdict = sanitize_for(memory, content)
    if verdict.blocked_by:
        raise InvalidInput(f"not stored: the text matches forget rule {verdict.blocked_by!r}")
    if verdict.empty:
        raise InvalidInput("a fact cannot be empty")
    if str(verdict.text) == view.content:
        return memory.review.accept([fact_id])[0], None
    note = dict(view.metadata.get(REVIEW) or {})
    # an agent's proposal (a Gemini inbox patch) holds the original text: it is not applied
    proposal = note.pop("patch_file", None)
    note.update(edited=True, decided_by=actor, decided_at=utcnow().isoformat(timespec="seconds"))
    meta = {k: v for k, v in view.metadata.items() if k != REVIEW}
    meta["reviewed"] = note
    receipt = erase([fact_id])
    if proposal:
        Path(proposal).unlink(missing_ok=True)
    # the corrected words are a new fact: written now, active, their subject read afresh
    item = NewFact.like(
        view, content=content, metadata=meta, subject=None, created_at=None, status="active"
    )
    [result] = memory.remember_many([item], actor=actor)
    if result.fact_id is None:
        raise InvalidInput(f"the corrected memory was not stored: {result.reason}")
    stored = memory.get(result.fact_id)
    if stored.status == "pending" and in_review(stored.metadata):
        memory.review.accept([stored.id])  # still personal data under "ask": the user said yes
    return stored.id, receipt

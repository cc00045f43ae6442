"""Undo/redo of edits, pins and deletes (``QUndoStack`` commands).

Each command's ``redo``/``undo`` queues its write on the runner's serial lane, so the GUI
never waits on SQLite and the writes reach the store in the order the user made them. A
delete keeps the snapshots of what it removed; undoing it restores them with their ids
through ``memory.restore``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from services import FactView, InvalidInput, NewFact

# every step gets the next number: Edit → Undo picks the newest step among the tab's stack
# and the window's (a GC run, a removed agent), whichever tab is current
STEP_SEQ = itertools.count(1)

# what the fact editor and the bulk actions may change
FIELDS = ("content", "category", "importance", "tags", "pinned")


def snapshot_of(f: FactView) -> dict:
    """The restore snapshot (same shape as ``services.store.facts.snapshot``) from a FactView."""
    iso = lambda v: v.isoformat() if v else None  # noqa: E731
    return {
        "id": f.id,
        "content": f.content,
        "category": f.category,
        "memory_type": f.memory_type,
        "importance": f.importance,
        "confidence": f.confidence,
        "pinned": f.pinned,
        "status": f.status,
        "source": f.source,
        "source_ref": f.source_ref,
        "subject": f.subject,
        "tags": list(f.tags),
        "event_date": iso(f.event_date),
        "created_at": iso(f.created_at),
        "expires_at": iso(f.expires_at),
        "access_count": f.access_count,
        "metadata": dict(f.metadata or {}),
        "superseded_by": f.superseded_by,
    }


_PAST = {"Edit": "Edited", "Pin": "Pinned", "Unpin": "Unpinned", "Delete": "Deleted"}
_PAST.update({"Move": "Moved", "Restore": "Restored", "Add": "Added", "Run": "Ran"})


def past_tense(text: str) -> str:
    """ "Delete 4 facts" → "Deleted 4 facts" (the confirmation the status bar shows)."""
    verb, _, rest = text.partition(" ")
    return f"{_PAST.get(verb, verb)} {rest}".strip()


def values_of(f: FactView, fields=FIELDS) -> dict:
    return {k: (list(getattr(f, k)) if k == "tags" else getattr(f, k)) for k in fields}


class _WriteCommand(QUndoCommand):
    """Queues ``op`` on the serial lane; ``done(kind, ids)`` runs on the GUI thread after."""

    def __init__(
        self,
        text: str,
        memory,
        runner,
        done: Callable[..., None],
        failed: Callable[[str], None] | None = None,
    ):
        super().__init__(text)
        self.memory, self.runner, self._done, self._failed = memory, runner, done, failed
        self.seq = next(STEP_SEQ)

    def _queue(self, title: str, op, kind: str, ids: list[int]) -> None:
        """``done(kind, ids, what, undone, step)``: ``what`` is the past-tense confirmation,
        ``step`` this command (the status-bar notice undoes exactly it)."""
        undone = title.startswith("Undo ")
        what = past_tense(self.text())
        self.runner.start(
            title,
            lambda progress, cancelled: op(),
            serial=True,
            visible=False,
            finish_on_close=True,  # the user's edit: quitting never drops it
            success=lambda _r: self._done(kind, ids, what, undone, self),
            failure=self._on_failure,
        )

    def _on_failure(self, message: str) -> None:
        # the write did not happen: undoing it must not write the old values back
        self.setObsolete(True)
        if self._failed:
            self._failed(message)


class EditFactsCommand(_WriteCommand):
    """Changes fields of one or many facts; ``before``/``after`` map fact id → values."""

    def __init__(
        self,
        memory,
        runner,
        before: dict[int, dict],
        after: dict[int, dict],
        done,
        failed=None,
        text: str | None = None,
    ):
        n = len(after)
        super().__init__(
            text or (f"Edit fact #{next(iter(after))}" if n == 1 else f"Edit {n} facts"),
            memory,
            runner,
            done,
            failed,
        )
        self.before, self.after = before, after

    def _apply(self, values: dict[int, dict]) -> None:
        for fid, changes in values.items():
            self.memory.edit(fid, **changes)

    def redo(self) -> None:
        vals = self.after
        self._queue(self.text(), lambda: self._apply(vals), "edit", list(vals))

    def undo(self) -> None:
        vals = self.before
        self._queue("Undo " + self.text(), lambda: self._apply(vals), "edit", list(vals))


def pin_command(memory, runner, facts: list[FactView], pinned: bool, done, failed=None):
    before = {f.id: {"pinned": f.pinned} for f in facts}
    after = {f.id: {"pinned": pinned} for f in facts}
    verb = "Pin" if pinned else "Unpin"
    text = f"{verb} fact #{facts[0].id}" if len(facts) == 1 else f"{verb} {len(facts)} facts"
    return EditFactsCommand(memory, runner, before, after, done, failed, text=text)


def recategorize_command(memory, runner, facts: list[FactView], category: str, done, failed=None):
    before = {f.id: {"category": f.category} for f in facts}
    after = {f.id: {"category": category} for f in facts}
    return EditFactsCommand(
        memory, runner, before, after, done, failed, text=f"Move {len(facts)} fact(s) to {category}"
    )


class DeleteFactsCommand(_WriteCommand):
    def __init__(self, memory, runner, facts: list[FactView], done, failed=None):
        n = len(facts)
        super().__init__(
            f"Delete fact #{facts[0].id}" if n == 1 else f"Delete {n} facts",
            memory,
            runner,
            done,
            failed,
        )
        self.snapshots = [snapshot_of(f) for f in facts]
        self.ids = [f.id for f in facts]

    def redo(self) -> None:
        ids = list(self.ids)
        self._queue(self.text(), lambda: self.memory.delete(ids), "delete", ids)

    def undo(self) -> None:
        snaps = list(self.snapshots)

        def restore():
            # oldest supersession targets first: a restored row may point at another
            for snap in sorted(snaps, key=lambda s: s["superseded_by"] is not None):
                snap = dict(snap)
                self.memory.restore(snap)

        self._queue("Undo " + self.text(), restore, "restore", list(self.ids))


class AddFactCommand(_WriteCommand):
    """A fact typed by the user (Edit → Add fact). Undo deletes it; redo restores the same
    fact (same id), so later commands that name it still find it."""

    def __init__(self, memory, runner, text: str, category: str, done, failed=None):
        super().__init__(f"Add fact “{text[:40]}”", memory, runner, done, failed)
        self.content, self.category = text, category
        self.fact_id: int | None = None
        self.snapshot: dict | None = None

    def redo(self) -> None:
        if self.snapshot is not None:
            snap = dict(self.snapshot)
            self._queue(self.text(), lambda: self.memory.restore(snap), "restore", [snap["id"]])
            return

        def add():
            r = self.memory.remember_many(
                [NewFact(content=self.content, category=self.category, source="manual")]
            )[0]
            if r.fact_id is None or r.status not in ("added", "pending"):
                raise InvalidInput(r.reason or f"not stored: {r.status}")
            self.fact_id = r.fact_id
            return r

        self.runner.start(
            self.text(),
            lambda p, c: add(),
            serial=True,
            visible=False,
            finish_on_close=True,  # the user's edit: quitting never drops it
            success=lambda _r: self._done(
                "restore", [self.fact_id], past_tense(self.text()), False, self
            ),
            failure=self._on_failure,
        )

    def undo(self) -> None:
        fid = self.fact_id
        if fid is None:
            return
        memory = self.memory

        def remove():
            self.snapshot = snapshot_of(memory.get(fid))
            memory.delete([fid])

        self._queue("Undo " + self.text(), remove, "delete", [fid])


REVIEW_FIELDS = ("content", "status", "metadata")
_REVIEW_TEXT = {
    "accept": ("Accept", "Accepted"),
    "reject": ("Reject", "Rejected"),
    "not_now": ("Hide", "Hid"),
    "edit": ("Edit and accept", "Edited and accepted"),
}


def review_state(f: FactView) -> dict:
    return {"content": f.content, "status": f.status, "metadata": dict(f.metadata or {})}


class ReviewDecisionCommand(_WriteCommand):
    """A review decision (Accept, Edit, Reject) already made in a worker; undo puts the
    memories back in the inbox as they were, redo makes the same decision again."""

    def __init__(self, memory, runner, what: str, before: dict, after: dict, done, failed=None):
        n = len(after)
        verb = _REVIEW_TEXT[what][0]
        noun = f"memory #{next(iter(after))}" if n == 1 else f"{n} memories"
        super().__init__(f"{verb} {noun}", memory, runner, done, failed)
        self.what, self.before, self.after = what, before, after
        self._first = True

    def done_text(self) -> str:
        return self.text().replace(_REVIEW_TEXT[self.what][0], _REVIEW_TEXT[self.what][1], 1)

    def _apply(self, states: dict[int, dict]) -> None:
        for fid, st in states.items():
            cur = self.memory.get(fid)
            changes = {k: v for k, v in st.items() if getattr(cur, k) != v}
            if changes:
                self.memory.edit(fid, **changes)

    def _queue_states(self, title: str, states: dict, undone: bool) -> None:
        ids, what = list(states), self.done_text()
        self.runner.start(
            title,
            lambda p, c: self._apply(states),
            serial=True,
            visible=False,
            finish_on_close=True,  # the user's edit: quitting never drops it
            success=lambda _r: self._done("edit", ids, what, undone, self),
            failure=self._on_failure,
        )

    def redo(self) -> None:
        if self._first:  # pushed after the decision ran
            self._first = False
            return
        self._queue_states(self.text(), self.after, False)

    def undo(self) -> None:
        self._queue_states("Undo " + self.text(), self.before, True)

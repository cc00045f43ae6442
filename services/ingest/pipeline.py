"""The ingest pipeline every write path shares (manual, CLI, importers, sessions, sync):

the write policy (``policy.py``: secrets → personal data → forget rules) → exact dedup (normalised hash) → near-duplicate (cosine) →
supersession (same subject key) → row + FTS (one transaction) → vectors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from models.tables import MEMORY_TYPES, utcnow
from services.entities.service import link_row
from services.errors import InvalidInput
from services.ingest.contradiction import compare, signature
from services.ingest.limits import memory_too_long
from services.ingest.policy import check_utf8, policy_for
from services.ingest.subjects import subject_key
from services.records import RememberResult, RememberStatus
from services.store import fact_rows
from services.store.facts import snapshot
from services.store.review import review_metadata, was_rejected
from services.store.text import (
    content_hash,
    require_clean,
    require_clean_meta,
    require_clean_subject,
    require_clean_tags,
)

if TYPE_CHECKING:
    import numpy as np  # at run time where vectors are used: the app's tabs import this

    from services.store.handle import MemoryHandle

NEAR_DUPLICATE = 0.95
# below the merge cut, a stored fact this close that says the same sentence with one value
# changed ("port 8080" → "port 8081", cosine 0.86) is still a correction of it
CORRECTION_WINDOW = 0.80
# the most memories of one batch checked for value changes and opposites (a session's facts
# and single remembers are; a large import is not)
VALUE_CHANGE_BATCH = 200
BATCH_WINDOW = 512  # earlier same-signature memories a batch item is compared with
DEDUP_STATUSES = (
    "active",
    "pending",
    "archived",
)  # cosine at or above which two memories say the same thing
CATEGORY_TYPES = {
    "task": "procedural",
    "rule": "procedural",
    "tmp": "temporal",
    "episode": "episodic",
}


@dataclass
class NewFact:
    content: str
    category: str = "fact"
    importance: float = 0.5
    pinned: bool = False
    source: str = "manual"
    source_ref: str | None = None
    subject: str | None = None
    tags: list[str] = field(default_factory=list)
    memory_type: str | None = None
    event_date: date | None = None
    created_at: datetime | None = None
    confidence: float = 0.8
    status: str = "active"
    metadata: dict = field(default_factory=dict)

    @classmethod
    def like(cls, other: Any, **changes: Any) -> NewFact:
        """A fact to write with ``other``'s value (a stored or an imported fact) for each field
        it has, then ``changes``; tags as a new list."""
        values = {f.name: getattr(other, f.name) for f in fields(cls) if hasattr(other, f.name)}
        values["tags"] = list(values.get("tags") or ())
        return cls(**{**values, **changes})


def memory_type_for(category: str) -> str:
    return CATEGORY_TYPES.get(category.split(":")[0], "semantic")


def validate(item: NewFact) -> None:
    check_utf8(item.content or "")
    if not 0.0 <= float(item.importance) <= 1.0:
        raise InvalidInput("importance must be between 0 and 1")
    if item.memory_type and item.memory_type not in MEMORY_TYPES:
        raise InvalidInput(f"memory type must be one of {', '.join(MEMORY_TYPES)}")


def _older(a: datetime | None, b: datetime | None) -> bool:
    if a is None or b is None:
        return False
    if (a.tzinfo is None) != (b.tzinfo is None):  # naive is UTC in the store
        a, b = a.replace(tzinfo=None), b.replace(tzinfo=None)
    return a < b


def _in_conflict(item: NewFact, other: int) -> NewFact:
    """A fact that contradicts ``other`` and cannot be settled by rule: kept, in review."""
    meta = {**(item.metadata or {}), **review_metadata("conflict", with_fact=other)}
    return replace(item, status="pending", metadata=meta)


# (batch index, item, clean text, content hash) of an item the write policy let through
_Prepared = tuple[int, "NewFact", str, str]


class _Bucket:
    """The latest ``BATCH_WINDOW`` kept memories of one signature, their vectors in a ring
    (no per-item copy of the window: that copy alone made a 100k batch take minutes). The
    ring grows as it fills: most signatures hold one memory."""

    def __init__(self, dim: int, dtype: np.dtype) -> None:
        import numpy as np

        self.ring = np.empty((1, dim), dtype=dtype)
        self.positions: list[int] = []  # batch positions, in ring order
        self._next = 0

    def add(self, position: int, vector: np.ndarray) -> None:
        n = len(self.positions)
        if n < BATCH_WINDOW:
            if n == len(self.ring):
                import numpy as np

                grown = np.empty((min(2 * n, BATCH_WINDOW), self.ring.shape[1]), self.ring.dtype)
                grown[:n] = self.ring
                self.ring = grown
            self.ring[n] = vector
            self.positions.append(position)
            self._next = (n + 1) % BATCH_WINDOW
            return
        self.ring[self._next] = vector
        self.positions[self._next] = position
        self._next = (self._next + 1) % BATCH_WINDOW

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        return self.ring[: len(self.positions)] @ vector


class Ingestor:
    """One write batch. Holds per-batch state: make a new one per ``remember_many`` call."""

    def __init__(self, memory: MemoryHandle) -> None:
        self.m = memory
        self._links: dict[int, tuple[str, int]] = {}  # batch index → (update|conflict, fact)
        self._why: dict[int, str] = {}  # batch index → the reason a value change gives
        # near twins: subject, text, status, created_at
        self._stored: dict[int, tuple[str | None, str, str, datetime]] = {}
        self._policy = policy_for(memory)

    def remember_many(
        self,
        items: Sequence[NewFact],
        near_duplicate: float | None = NEAR_DUPLICATE,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        actor: str = "user",
        bump: bool = True,
    ) -> list[RememberResult]:
        screened: list[RememberResult | None] = [None] * len(items)
        prepared, notes = self._screen(items, screened)
        results = [r for r in screened if r is not None]
        assert len(results) == len(items)  # the policy gave every item its result
        # Restating a superseded fact makes it current again (a new fact that supersedes the
        # newer one); re-importing an old file (bump=False) must not, so there it is a duplicate.
        live = DEDUP_STATUSES if bump else DEDUP_STATUSES + ("superseded",)
        fresh, dup_of = self._exact_duplicates(prepared, results, live)
        vectors = None
        if fresh and self.m.engram.embedder is not None:
            vectors = self.m.engram.embedder.embed([t for _, _, t, _ in fresh])
        if vectors is not None and near_duplicate is not None:
            fresh, vectors = self._near_duplicates(
                fresh, vectors, near_duplicate, results, dup_of, live
            )
        fresh = self._value_changes(fresh)
        ids, texts, vecs = self._store(fresh, vectors, notes, results, actor, progress, cancelled)
        # batch-internal duplicates point at the fact their twin became
        for i, ref in dup_of.items():
            if ref < 0:
                results[i].fact_id = results[-ref - 1].fact_id
        if bump:
            self._bump(
                [
                    r.fact_id
                    for r in results
                    if r and r.status in ("duplicate", "near-duplicate") and r.fact_id
                ]
            )
        self._publish(ids, texts, vecs, vectors is not None)
        return results

    def _screen(
        self, items: Sequence[NewFact], results: list[RememberResult | None]
    ) -> tuple[list[tuple[int, NewFact, str, str]], dict[int, dict]]:
        """The write policy on every item: (index, item, clean text, hash) for those that may
        be stored; the others get their result here (empty, blocked)."""
        policy = self._policy
        prepared: list[tuple[int, NewFact, str, str]] = []
        notes: dict[int, dict] = {}  # index → redaction counts for the audit log (no content)
        for i, item in enumerate(items):
            too_long = memory_too_long((item.content or "").strip())
            if too_long:  # refused alone, with its reason: the rest of the batch goes on
                results[i] = RememberResult(RememberStatus.REFUSED, None, reason=too_long)
                continue
            validate(item)
            verdict = policy.sanitize(item.content)
            if verdict.pending and item.status == "active":
                kinds = sorted(verdict.pii_found)
                item = replace(
                    item,
                    status="pending",
                    metadata={
                        **(item.metadata or {}),
                        **review_metadata("personal-data", kinds=kinds),
                    },
                )
            # every text field beside the content passes the policy too: a subject is indexed
            # and shown, tags are searched, metadata is exported and read by the entity linker
            tags: list[str] = list(policy.tags(item.tags))
            item = replace(
                item,
                subject=policy.field(item.subject),
                tags=tags,
                category=policy.category(item.category),
            )
            note = verdict.audit_note()
            if note:
                notes[i] = note
            if verdict.empty:
                results[i] = RememberResult(RememberStatus.EMPTY, None, reason="empty text")
            elif verdict.blocked_by:
                results[i] = RememberResult(
                    RememberStatus.BLOCKED,
                    None,
                    reason=f"forget rule: {verdict.blocked_by}",
                    redactions=verdict.secrets,
                )
            else:
                results[i] = RememberResult(RememberStatus.ADDED, None, redactions=verdict.secrets)
                prepared.append((i, item, verdict.text, content_hash(verdict.text)))
        return prepared, notes

    def _value_changes(self, fresh: list[_Prepared]) -> list[_Prepared]:
        """A memory that says a value moved on ("Standup moved to 10:00") supersedes the fact
        holding the old value; one that says the opposite of a stored fact waits in review
        (``value_change``). Only for what the near-duplicate pass left unlinked."""
        from services.ingest.value_change import found_in_store

        if len(fresh) > VALUE_CHANGE_BATCH:
            return fresh  # a bulk import: its file is its truth, and a lookup each is too slow
        out: list[_Prepared] = []
        for i, item, text, h in fresh:
            if i not in self._links and item.status == "active" and not item.subject:
                hit = found_in_store(self.m.agent_id, text)
                if hit is not None:
                    kind, fid, why = hit
                    self._links[i], self._why[i] = (kind, fid), why
                    if kind == "conflict":
                        item = _in_conflict(item, fid)
            out.append((i, item, text, h))
        return out

    def _exact_duplicates(
        self, prepared: list[_Prepared], results: list[RememberResult], live: tuple[str, ...]
    ) -> tuple[list[_Prepared], dict[int, int]]:
        """Exact duplicates against the store and within the batch: (fresh items, dup_of)
        where dup_of maps an index to a fact id or -(batch index)-1."""
        existing = self._existing_hashes(list({h for _, _, _, h in prepared}), prepared, live)
        fresh: list[tuple[int, NewFact, str, str]] = []
        seen_batch: dict[str, int] = {}
        dup_of: dict[int, int] = {}
        for entry in prepared:
            i, _item, _text, h = entry
            if h in existing:
                results[i].status, results[i].fact_id = RememberStatus.DUPLICATE, existing[h]
                dup_of[i] = existing[h]
            elif h in seen_batch:
                results[i].status = RememberStatus.DUPLICATE
                dup_of[i] = -seen_batch[h] - 1
            else:
                seen_batch[h] = i
                fresh.append(entry)
        return fresh, dup_of

    def _existing_hashes(
        self, hashes: list[str], prepared: list[_Prepared], live: tuple[str, ...]
    ) -> dict[str, int]:
        m = self.m
        rows_of: dict[str, list[tuple[int, str, str | None]]] = {}
        for fid, h, st, subj in fact_rows.hash_twins(m.agent_id, hashes, live):
            rows_of.setdefault(h, []).append((fid, st, subj))
        existing: dict[str, int] = {}
        old_subjects: dict[str, set] = {}  # hash -> subjects of its twins, all superseded
        for h, rows in rows_of.items():
            current = [r for r in rows if r[1] != "superseded"]
            existing[h] = (current or rows)[0][0]  # a live twin wins over superseded ones
            if not current:
                old_subjects[h] = {r[2] for r in rows}
        # ...except that a source naming its subject (a task file, a profile line) which says
        # an earlier thing again has changed back: that is current again, not a stale re-import
        for _, item, _, h in prepared:
            if item.subject and item.subject in old_subjects.get(h, ()):
                existing.pop(h, None)
        return existing

    def _store(
        self,
        fresh: list[_Prepared],
        vectors: np.ndarray | None,
        notes: dict[int, dict],
        results: list[RememberResult],
        actor: str,
        progress: Callable[[int, int], None] | None,
        cancelled: Callable[[], bool] | None,
    ) -> tuple[list[int], list[str], list[np.ndarray]]:
        """Rows + FTS in transactions of 500; returns (ids, texts, vectors) added."""
        m = self.m
        added_ids: list[int] = []
        added_texts: list[str] = []
        added_vecs: list[np.ndarray] = []
        total, chunk = len(fresh), 500
        for s in range(0, total, chunk):
            if cancelled and cancelled():
                for i, *_ in fresh[s:]:
                    results[i].status, results[i].reason = RememberStatus.CANCELLED, "cancelled"
                break
            with m.db.atomic():
                for j, (i, item, text, h) in enumerate(fresh[s : s + chunk]):
                    fid, superseded = self._insert(item, text, h, actor)
                    if i in notes:
                        audit_redaction(m, fid, notes[i])
                    results[i].fact_id = fid
                    results[i].superseded = superseded + self._link(i, fid, results[i])
                    if superseded and results[i].status == "added":
                        # said so, never silently: the user sees which fact was replaced
                        results[i].reason = (
                            f"supersedes fact {', '.join(map(str, superseded))} "
                            "(a newer value for the same subject)"
                        )
                    added_ids.append(fid)
                    added_texts.append(text)
                    if vectors is not None:
                        added_vecs.append(vectors[s + j])
            if progress:
                progress(min(s + chunk, total), total)
        return added_ids, added_texts, added_vecs

    def _publish(
        self, ids: list[int], texts: list[str], vecs: list[np.ndarray], have_vectors: bool
    ) -> None:
        m = self.m
        if ids and have_vectors and m.engram.index is not None:
            import numpy as np

            m.engram.index.upsert(m.agent_id, ids, texts, np.stack(vecs))
        if ids:
            m.engram.bus.emit("fact.added", agent_id=m.agent_id, ids=ids)

    def _near_duplicates(
        self,
        fresh: list[_Prepared],
        vectors: np.ndarray,
        threshold: float,
        results: list[RememberResult],
        dup_of: dict[int, int],
        live: tuple[str, ...],
    ) -> tuple[list[_Prepared], np.ndarray]:
        """Merge what says the same thing again; a near twin that changes a value, a name
        or a negation is a correction (it supersedes) or a conflict (both stay, in review)."""
        keep_idx: list[int] = []
        buckets: dict[tuple, _Bucket] = {}  # signature → the latest kept memories with it
        nearest = self._nearest_stored(fresh, vectors, threshold, live)
        for j, (i, item, text, _h) in enumerate(fresh):
            hit, link = self._match_stored(nearest[j], threshold, text, item.created_at)
            bucket = buckets.get(sig := signature(text))
            if bucket is None:
                bucket = buckets[sig] = _Bucket(vectors.shape[1], vectors.dtype)
            if hit is None and link is None:
                twin = self._batch_twin(fresh, vectors, bucket, j, threshold)
                if twin is not None:
                    results[i].status = RememberStatus.NEAR_DUPLICATE
                    dup_of[i] = -fresh[twin][0] - 1
                    continue
            if hit is not None:
                results[i].status, results[i].fact_id = RememberStatus.NEAR_DUPLICATE, hit
                dup_of[i] = hit
                continue
            if link is not None:
                self._links[i] = link
                if link[0] == "conflict":
                    fresh[j] = (i, _in_conflict(item, link[1]), text, _h)
            keep_idx.append(j)
            bucket.add(j, vectors[j])
        return [fresh[j] for j in keep_idx], vectors[keep_idx] if keep_idx else vectors[:0]

    def _nearest_stored(
        self, fresh: list[_Prepared], vectors: np.ndarray, threshold: float, live: tuple[str, ...]
    ) -> list[list[tuple[int, float]]]:
        """Stored facts at or above the threshold for each fresh item, with their text."""
        m = self.m
        index = m.engram.index
        if index is None or index.count(m.agent_id) == 0:
            return [[] for _ in fresh]
        nearest = index.query_many(m.agent_id, vectors, k=3)
        window = min(threshold, CORRECTION_WINDOW)
        cand = {fid for hits in nearest for fid, sim in hits if sim >= window}
        rows = fact_rows.near_rows(m.agent_id, cand, live) if cand else []
        self._stored = {fid: (subj, content, st, at) for fid, subj, content, st, at in rows}
        # a fact naming the same subject as its near twin is a newer statement about it
        # (a task moving on by a word): it supersedes, it is not absorbed
        return [
            [
                (fid, sim)
                for fid, sim in hits
                if sim >= window
                and fid in self._stored
                and not (item.subject and self._stored[fid][0] == item.subject)
            ]
            for hits, (_i, item, _t, _h) in zip(nearest, fresh)
        ]

    def _match_stored(
        self, hits: list[tuple[int, float]], threshold: float, text: str, when: datetime | None
    ) -> tuple[int | None, tuple[str, int] | None]:
        """(fact it repeats, None) or (None, (update|conflict, fact it contradicts))."""
        link: tuple[str, int] | None = None
        for fid, sim in hits:
            _subj, content, status, at = self._stored[fid]
            verdict = compare(content, text, strict=sim < threshold)
            if verdict == "update" and _older(when, at):
                verdict = "conflict"  # an older statement (a re-import) must not win
            if verdict == "same" and sim >= threshold:
                return fid, None
            if link is None and verdict in ("update", "conflict") and status != "archived":
                link = (verdict, fid)
        return None, link

    def _batch_twin(
        self,
        fresh: list[_Prepared],
        vectors: np.ndarray,
        bucket: _Bucket,
        j: int,
        threshold: float,
    ) -> int | None:
        """An earlier memory of this batch that says the same thing. Only memories with the
        same signature can (``contradiction.signature``), and of those the latest
        ``BATCH_WINDOW``: a 100k-memory import stays linear, not quadratic."""
        item, text = fresh[j][1], fresh[j][2]
        if not bucket.positions:
            return None
        sims = bucket.similarities(vectors[j])
        for best in (-sims).argsort():
            if sims[best] < threshold:
                break
            k = bucket.positions[int(best)]
            if item.subject and fresh[k][1].subject == item.subject:
                continue  # a newer statement about a named subject supersedes, not merges
            if compare(fresh[k][2], text) == "same":
                return k
        return None

    def _insert(self, item: NewFact, text: str, h: str, actor: str) -> tuple[int, list[int]]:
        m = self.m
        subject = item.subject or self._policy.field(subject_key(text))
        now = utcnow()
        row = fact_rows.create_row(
            agent=m.agent_id,
            content=require_clean(text),
            content_hash=h,
            category=item.category or "fact",
            memory_type=item.memory_type or memory_type_for(item.category or "fact"),
            importance=float(item.importance),
            confidence=float(item.confidence),
            pinned=bool(item.pinned),
            status=item.status,
            source=item.source,
            source_ref=item.source_ref,
            subject=require_clean_subject(subject),
            tags=require_clean_tags(item.tags),
            event_date=item.event_date,
            created_at=item.created_at or now,
            updated_at=now,
            # after the batch has added its own notes (a conflict, a review reason)
            metadata=require_clean_meta(self._policy.metadata(item.metadata)),
        )
        m.facts.audit("create", row.id, None, snapshot(row), actor=actor)
        link_row(m, row)
        superseded: list[int] = []
        if subject and item.status == "active":
            olds = fact_rows.older_on_subject(m.agent_id, subject, row.id, row.created_at)
            for old in olds:
                before = snapshot(old)
                old.status, old.superseded_by, old.updated_at = "superseded", row.id, now
                fact_rows.mark_superseded(old.id, row.id, at=now)
                m.facts.audit(
                    "supersede",
                    old.id,
                    before,
                    snapshot(old),
                    actor="engram",
                    reason=f"superseded by fact {row.id} (subject {subject})",
                )
                superseded.append(old.id)
        return row.id, superseded

    def _link(self, i: int, fid: int, result: RememberResult) -> list[int]:
        """Act on a contradiction found for batch item ``i`` (now fact ``fid``)."""
        kind, old_id = self._links.get(i, ("", 0))
        if kind == "conflict":
            result.status, result.conflicts_with = RememberStatus.CONFLICT, old_id
            result.reason = self._why.get(i) or f"contradicts fact {old_id}: both kept for review"
            return []
        if kind != "update" or _waits_as_conflict(fid):
            return []
        old = fact_rows.row_in(old_id, ("active", "pending"))
        if old is None:
            return []
        before = snapshot(old)
        old.status, old.superseded_by, old.updated_at = "superseded", fid, utcnow()
        fact_rows.mark_superseded(old.id, fid, at=old.updated_at)
        self.m.facts.audit(
            "supersede",
            old.id,
            before,
            snapshot(old),
            actor="engram",
            reason=self._why.get(i) or f"superseded by fact {fid} (a correction of it)",
        )
        result.status = RememberStatus.SUPERSEDED
        result.reason = self._why.get(i) or f"supersedes fact {old_id} (a correction of it)"
        return [old.id]

    def _bump(self, ids: list[int]) -> None:
        """A repeated memory is a signal: refresh it instead of storing it twice."""
        if not ids:
            return
        with self.m.db.atomic():
            for fid in set(ids):
                row = fact_rows.row(self.m.agent_id, fid)
                if row is None:
                    continue
                before = snapshot(row)
                row.updated_at = utcnow()
                row.importance = row.importance + (1.0 - row.importance) * 0.1
                if row.status == "archived" and not was_rejected(row.metadata):
                    # said again: it matters after all (unless the user rejected it in review)
                    row.status = "active"
                fact_rows.refresh(fid, row.importance, row.status, row.updated_at)
                if before["status"] != row.status:
                    self.m.facts.audit(
                        "restore", fid, before, snapshot(row), actor="engram", reason="stated again"
                    )


def audit_redaction(memory: MemoryHandle, fid: int, note: dict) -> None:
    """What the write policy took out of a stored fact: counts, never the text."""
    memory.facts.audit(
        "redact",
        fid,
        None,
        note,
        actor="engram",
        reason=f"{note['secrets']} secret(s), {note['pii_redacted']} personal detail(s) redacted",
    )


def _waits_as_conflict(fid: int) -> bool:
    """A wording parked in review beside the shared one (services/teamsync: an edit made on
    two machines) replaces nothing until the user accepts it."""
    row = fact_rows.row_by_id(fid)
    note = (row.metadata or {}).get("review") if row is not None else None
    return isinstance(note, dict) and note.get("reason") == "conflict" and row.status == "pending"

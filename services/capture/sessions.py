"""Session transcripts → a ``Session`` row, episodes every N turns and at the end, and facts
the user stated.

Exactly once per (agent, session id): agents' hooks fire twice and may race, so the claim,
the episodes, the facts and the "processed" mark are one ``BEGIN IMMEDIATE`` transaction. A
second caller waits for the first to commit, then sees the session as processed and adds
nothing; a crash part-way leaves nothing half-ingested.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from models import Session
from models.tables import utcnow
from services.capture.episode_summary import (
    compose,
    did,
    final_words,
    outcome,
    real_asks,
    short,
    unwritten,
)
from services.capture.extract import ExtractedFact
from services.capture.gather import gather_facts
from services.capture.transcripts import Exchange, Transcript, parse_transcript, peek_session_id
from services.ingest.pipeline import NewFact
from services.ingest.policy import Target, WritePolicy, policy_for
from services.lifecycle.config import LifecycleConfig, config_for
from services.lifecycle.gc import hot_count
from services.store.handle import MemoryHandle
from services.store.pause import PAUSED_MESSAGE, is_paused
from services.store.review import review_metadata
from services.store.text import normalize

LOG_CHARS_PER_MESSAGE = 600
LOG_MAX_CHARS = 60_000
_STOP = set(
    """a about above after again all also am an and any are as at be because been before
being below between both but by can could did do does doing done for from further had has have
having here how i if in into is it its just let like me more most my no nor not now of off on
once only or other our out over own please same should so some such than that the their them then
there these they this those through to too under until up very was we were what when where which
while who why will with would you your yes okay ok thanks thank sure want need make get use using
file files code lets let's can't don't it's i'm""".split()
)


@dataclass
class SessionReport:
    session_id: str
    already_processed: bool
    turns: int = 0
    episodes_added: int = 0
    facts_added: int = 0
    facts_pending: int = 0
    facts_updated: int = 0  # earlier sessions' facts a later session restated
    skipped_lines: int = 0
    extractor: str = "deterministic"
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def local_time(ts: datetime | None) -> datetime | None:
    """A naive-UTC transcript time in the user's local zone (episodes are read locally)."""
    if ts is None:
        return None
    return ts.replace(tzinfo=UTC).astimezone().replace(tzinfo=None)


def clock_label(ts: datetime) -> str:
    """ "2:30 PM", as Memory Setup episode headings write it."""
    return f"{ts.hour % 12 or 12}:{ts.minute:02d} {'AM' if ts.hour < 12 else 'PM'}"


def keywords(texts: list[str], n: int = 4) -> list[str]:
    counts: Counter[str] = Counter()
    for t in texts:
        for w in re.findall(r"[a-zA-Z][a-zA-Z0-9_-]{3,}", t.lower()):
            if w not in _STOP:
                counts[w] += 1
    return [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def summarize(
    chunk: list[Exchange],
    facts: list[ExtractedFact],
    t: Transcript | None = None,
    last: bool = True,
) -> tuple[str, list[str]]:
    """The episode text of a stretch of the session: title, asks, what was done, how it ended."""
    asks = [short(a, 160) for a in real_asks(chunk)]
    decided = [f.content for f in facts if f.kind in ("decision", "rule", "correction")]
    title = t.title if t is not None else None
    events = _events_in(t, chunk) if t is not None else []
    ending, closing = "", ""
    if last and t is not None:
        ending = outcome(t)
        final = next((m.text for m in reversed(t.messages) if m.role == "assistant"), "")
        closing = unwritten(t) or short(_final(final), 200)
    elif not last:
        ending = "continued"
    if t is None or t.source == "jsonl":
        closing = closing or _closing(chunk)
    summary = compose(
        title, asks, did(t, events) if t is not None else "", ending, closing, decided
    )
    return summary, keywords([x.user for x in chunk] + [x.assistant for x in chunk])


def _closing(chunk: list[Exchange]) -> str:
    last = next((x.assistant for x in reversed(chunk) if x.assistant), "")
    return short(_final(last), 200)


def _final(text: str) -> str:
    return final_words(text)  # a plan ("Let me …") says nothing about how it ended


def _events_in(t: Transcript, chunk: list[Exchange]) -> list:
    start = chunk[0].started_at
    end = next((x.ended_at for x in reversed(chunk) if x.ended_at), None)
    if start is None or end is None:
        return list(t.events)
    return [e for e in t.events if e.timestamp is None or start <= e.timestamp <= end]


def condensed_log(t: Transcript, policy: WritePolicy | None = None) -> str:
    """The condensed transcript kept for summaries; each line passes the write policy (a line
    holding forgotten text becomes ``[forgotten]``)."""
    lines, total = [], 0
    for m in t.messages:
        text = " ".join(m.text.split())
        if len(text) > LOG_CHARS_PER_MESSAGE:
            text = text[: LOG_CHARS_PER_MESSAGE - 1] + "…"
        line = f"{m.role}: {text}"
        total += len(line) + 1
        if total > LOG_MAX_CHARS:
            lines.append("… (truncated)")
            break
        lines.append(line)
    if policy is None:
        return "\n".join(lines)
    out = []
    for line in lines:
        v = policy.sanitize(line, Target.OTHER)
        out.append("[forgotten]" if v.blocked_by else str(v.text))
    return "\n".join(out)


def _review_note(f: ExtractedFact, cfg: LifecycleConfig, sid: str) -> dict:
    line = f.provenance.get("line")
    if f.provenance.get("section") == "llm" and cfg.llm_review:
        return review_metadata("llm", f.confidence, session=sid, line=line)
    if f.confidence < float(cfg.review_below):
        why = f.provenance.get("unsure") or "the words alone do not make it a durable fact"
        return review_metadata("low-confidence", f.confidence, session=sid, line=line, why=why)
    return {}


def _new_fact(
    f: ExtractedFact, t: Transcript, sid: str, path: Path, cfg, extractor: str, room: int
):
    stamp = f.timestamp or t.ended_at
    review = _review_note(f, cfg, sid)
    status = "pending" if review or room <= 0 else "active"  # overflow waits for GC to drain
    prov = {
        "session": sid,
        "line": f.provenance.get("line"),
        "section": f.provenance.get("section"),
        "timestamp": stamp.isoformat(timespec="milliseconds") + "Z" if stamp else None,
        "file": str(path),
    }
    return NewFact(
        content=f.content,
        category=f.category,
        importance=f.importance,
        source="session",
        source_ref=sid,
        tags=list(f.tags),
        status=status,
        created_at=stamp,
        event_date=lt.date() if (lt := local_time(stamp)) else None,
        confidence=f.confidence,
        metadata={
            "tier": "short",
            "kind": f.kind,
            "extractor": extractor,
            "provenance": prov,
            **review,
        },
    )


def _store_facts(memory: MemoryHandle, facts, t, sid, path, cfg, report: SessionReport) -> None:
    room = max(0, int(cfg.pending_threshold) - hot_count(memory))
    items = []
    for f in facts:
        item = _new_fact(f, t, sid, path, cfg, report.extractor, room)
        room -= item.status == "active"
        items.append(item)
    if not items:
        return
    results = memory.remember_many(items, actor="session", bump=True)
    for it, r in zip(items, results):
        if r.stored_new:  # plain, a correction that supersedes, or a conflict for review
            report.facts_added += 1
            report.facts_pending += it.status == "pending"
        elif r.status == "near-duplicate" and r.fact_id and it.status == "active":
            report.facts_updated += _update_earlier(memory, r.fact_id, it, sid)


def _update_earlier(memory: MemoryHandle, fid: int, item: NewFact, sid: str) -> int:
    """A later session restating what an earlier one taught, in other words: the fact takes
    the newer wording and provenance; the edit is audited, so the old text stays in its
    history. Facts the user wrote, pinned or reviewed are left as they are."""
    old = memory.get(fid)
    if (
        old.source != "session"
        or old.source_ref == sid
        or old.pinned
        or old.status != "active"
        or "reviewed" in (old.metadata or {})
        or normalize(old.content) == normalize(item.content)
        or (item.created_at and old.created_at and item.created_at < old.created_at)
    ):
        return 0
    earlier = list((old.metadata or {}).get("earlier") or [])
    earlier.append((old.metadata or {}).get("provenance") or {"session": old.source_ref})
    meta = {
        **(old.metadata or {}),
        "provenance": item.metadata.get("provenance"),
        "earlier": earlier,
    }
    memory.edit(fid, actor="session", content=item.content, metadata=meta)
    return 1


def _chunks(exchanges: list[Exchange], cfg) -> list[list[Exchange]]:
    n = max(1, int(cfg.turns_per_summary))
    return [exchanges[i : i + n] for i in range(0, len(exchanges), n)]


def _store_episodes(
    memory: MemoryHandle, t, exchanges, facts, asks, row, path, report, cfg
) -> None:
    if t.warmup or not real_asks(exchanges):
        return  # a /clear-only, warm-up or command-only session did nothing to remember
    chunks = _chunks(exchanges, cfg) or [[]]
    for i, chunk in enumerate(chunks):
        end = _chunk_end(chunk) or t.ended_at
        when = local_time(end) or datetime.now()
        in_chunk = _facts_in(facts, chunk, end)
        if i == 0 and asks:
            chunk_asks = [Exchange(a, "", None, None) for a in asks]
            summary, tags = summarize(chunk_asks + chunk, in_chunk, t, last=i == len(chunks) - 1)
        else:
            summary, tags = summarize(chunk, in_chunk, t, last=i == len(chunks) - 1)
        if t.project and t.project.lower() not in tags:
            tags = [t.project.lower()] + tags[:3]
        if not summary:
            continue
        eid, created = memory.add_episode(
            when.date(),
            summary,
            time=clock_label(when),
            tags=tags,
            session_id=row.id,
            source_file=str(path),
        )
        if eid is None:
            report.warnings.append(
                "an episode was not stored: it mentions something you asked Engram to forget"
            )
        report.episodes_added += int(created)


def _chunk_end(chunk: list[Exchange]):
    return next(
        (x.ended_at or x.started_at for x in reversed(chunk) if x.ended_at or x.started_at), None
    )


def _facts_in(facts, chunk, end):
    start = chunk[0].started_at if chunk else None
    return [f for f in facts if f.timestamp and start and end and start <= f.timestamp <= end]


def _early_exit(memory: MemoryHandle, path: Path, session_id: str | None) -> SessionReport | None:
    if not session_id and path.is_file():
        peeked = peek_session_id(path)
        if peeked and _processed(memory, peeked):
            return SessionReport(peeked, already_processed=True)
    if session_id and _processed(memory, session_id):
        return SessionReport(session_id, already_processed=True)
    return None


def ingest_session(
    memory: MemoryHandle,
    path,
    session_id: str | None = None,
    fmt: str | None = None,
    config: LifecycleConfig | None = None,
    secrets=None,
) -> SessionReport:
    cfg = config or config_for(memory)
    path = Path(path)
    if is_paused(memory.agent_id):  # incognito: this session is never read
        report = SessionReport(session_id or path.stem, already_processed=False)
        report.warnings.append(PAUSED_MESSAGE)
        return report
    early = _early_exit(memory, path, session_id)
    if early is not None:
        return early
    t = parse_transcript(path, fmt)
    sid = session_id or t.session_id or path.stem
    report = SessionReport(sid, already_processed=False, skipped_lines=t.skipped_lines)
    if t.skipped_lines:
        report.warnings.append(f"skipped {t.skipped_lines} unreadable line(s)")
    if _processed(memory, sid):
        report.already_processed = True
        return report
    exchanges = t.exchanges()
    report.turns = len(exchanges)
    if not exchanges and not t.compactions:
        report.warnings.append(
            "no conversation found (an empty, summary-only or sub-agent "
            "transcript); the session is marked processed"
        )
    facts, asks = gather_facts(t, cfg, secrets, report)
    with memory.db.atomic():  # BEGIN IMMEDIATE: the claim and everything it covers
        row = Session.get_or_none((Session.agent == memory.agent_id) & (Session.external_id == sid))
        if row is not None and row.processed_at is not None:
            report.already_processed = True
            report.turns = row.turn_count
            return report
        if row is None:
            row = Session.create(agent=memory.agent_id, external_id=sid)
        row.source_path = str(path)
        row.started_at, row.ended_at = t.started_at, t.ended_at
        row.turn_count = len(exchanges)
        row.log = condensed_log(t, policy_for(memory))
        _store_episodes(memory, t, exchanges, facts, asks, row, path, report, cfg)
        _store_facts(memory, facts, t, sid, path, cfg, report)
        row.processed_at = utcnow()
        row.save()
    return report


def _processed(memory: MemoryHandle, sid: str) -> bool:
    return (
        Session.select()
        .where(
            (Session.agent == memory.agent_id)
            & (Session.external_id == sid)
            & Session.processed_at.is_null(False)
        )
        .exists()
    )

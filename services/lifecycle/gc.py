"""Decay, TTL expiry, consolidation, overflow draining, caps and pruning (``engram gc``).

Nothing a person remembered is destroyed here: facts leave by becoming ``archived`` (the GUI
can restore them), and each such change is an ``AuditEvent`` (actor ``gc``) whose reason says
why. Pinned facts never decay, expire or get evicted. The clock is injectable (``now=``) so
days can be simulated, and a whole run is planned first and applied in one transaction: a
cancelled or dry run changes nothing.

Tiers: facts from sessions start short-term (``metadata.tier = "short"``, the "hot" memory);
consolidation promotes important or often-used ones to long-term. Facts without a tier
(imported, typed by the user) count as long-term. Short-term facts decay daily; long-term
ones are bounded by their category TTL (counted from the last time they were referenced) and
the long-term cap.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Literal, cast

import peewee as pw

from models import AuditEvent, CompiledLayer, Episode, Session
from services.lifecycle.config import NO_DECAY, LifecycleConfig, config_for
from services.store import fact_rows, fact_writes
from services.store.audit import AuditRow, record_audit, record_audit_batch
from services.store.chunks import chunks
from services.store.facts import snapshot
from services.store.review import in_review

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle

ACTOR = "gc"
# One run never archives most of a store (a first GC on a big import would have taken 95 %):
# at most this share of the agent's active facts, or RUN_CAP_MIN, whichever is larger. The
# rest stays active and the next runs take it, a run at a time.
RUN_CAP_SHARE = 0.25
RUN_CAP_MIN = 100
# what an archive, promotion, drain or undo sets on a fact, in the order of its update rows
_STATE = ("importance", "status", "metadata", "updated_at")
_COUNTERS = {"expire": "expired", "archive": "archived", "evict": "evicted"}


@dataclass
class GCAction:
    kind: str  # decay, expire, archive, promote, drain, evict, prune-episode, prune-session, prune-layers
    fact_id: int | None
    reason: str
    target: str = "fact"  # fact, episode, session, layer

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class GCReport:
    now: datetime
    dry_run: bool
    decayed: int = 0
    expired: int = 0
    archived: int = 0
    promoted: int = 0
    drained: int = 0
    evicted: int = 0
    episodes_pruned: int = 0
    sessions_pruned: int = 0
    layers_pruned: int = 0
    held_back: int = 0  # facts this run would have archived beyond its per-run cap
    cancelled: bool = False
    actions: list[GCAction] = field(default_factory=list)
    # fact id → ((importance, status, metadata JSON) before, the same after): what undo_gc
    # writes back and redo_gc writes again (filled by a real run, not a dry one)
    changes: dict[int, tuple[tuple, tuple]] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k not in ("actions", "changes")}
        d["now"] = self.now.isoformat()
        d["actions"] = [a.to_json() for a in self.actions if a.kind != "decay"]
        return d


@dataclass
class _F:
    id: int
    category: str
    importance: float
    pinned: bool
    status: str
    created_at: datetime
    last_accessed: datetime | None
    access_count: int
    expires_at: datetime | None
    metadata: dict
    learned: datetime | None = None  # when Engram stored it (ingest), not the event's date
    _now: datetime = datetime.max
    new_importance: float | None = None
    new_status: str | None = None
    new_tier: str | None = None
    archived_reason: str | None = None

    @property
    def since(self) -> datetime:
        """Where TTL and decay count from: when Engram learned the fact or it was last used,
        never the event's date alone (last month's transcript ingested today is new)."""
        learned = self.learned or self.created_at
        if learned.date() > self._now.date():
            # the clock is simulated to a day before the ingest (tests, --now). Not the same
            # day: `--now <today>` is noon, and what was learned this afternoon is new
            return self.created_at
        return max(self.created_at, learned)

    @property
    def tier(self) -> str:
        return self.new_tier or (self.metadata or {}).get("tier") or "long"

    @property
    def imp(self) -> float:
        return self.importance if self.new_importance is None else self.new_importance

    @property
    def state(self) -> str:
        return self.new_status or self.status


def _as_datetime(now) -> datetime:
    if now is None:
        from models.tables import utcnow

        return utcnow()
    if isinstance(now, datetime):
        if now.tzinfo is not None:  # the store keeps naive UTC
            now = now.astimezone(UTC)
        return now.replace(tzinfo=None)
    if isinstance(now, date):
        return datetime(now.year, now.month, now.day, 12, 0, 0)
    raise TypeError("now must be a date or datetime")


def hot_count(memory: MemoryHandle) -> int:
    """Active, unpinned short-term facts: what the pending threshold is measured against."""
    return fact_rows.short_term_count(memory.agent_id)


def score(f: _F, now: datetime) -> float:
    """What eviction keeps: importance, then use, then recency."""
    ref = max(f.since, f.last_accessed or f.since)
    age = max(0.0, (now - ref).total_seconds() / 86400)
    return f.imp + 0.02 * min(f.access_count, 10) + 0.1 * 0.5 ** (age / 30)


def _js(value) -> str:
    """JSON as ``JSONField`` stores it."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _meta(raw) -> dict:
    if isinstance(raw, dict):
        return dict(raw)
    if raw == "{}":  # most facts: no need for the decoder
        return {}
    try:
        v = json.loads(raw) if raw else {}
    except (TypeError, ValueError):
        return {}
    return v if isinstance(v, dict) else {}


def _raw(memory: MemoryHandle, query: pw.Query) -> list[tuple]:
    """A query's rows as the driver returns them: peewee's per-value conversion (date
    formats tried one by one, JSON decoded) was most of a 100k-fact plan."""
    sql, params = query.sql()
    return memory.db.execute_sql(sql, params).fetchall()


def _dt(value) -> datetime | None:
    """A stored time as a datetime (SQLite hands back text, PostgreSQL datetimes)."""
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return fact_rows.stored_time(value)


def _load(memory: MemoryHandle) -> list[_F]:
    rows = fact_rows.lifecycle_tuples(memory.agent_id)
    learned = _learned_times(memory)
    return [
        _F(
            fid,
            category or "fact",
            float(importance),
            bool(pinned),
            status,
            cast(datetime, _dt(created)),  # NOT NULL in the schema
            _dt(accessed),
            count or 0,
            _dt(expires),
            _meta(meta),
            learned.get(fid),
        )
        for fid, category, importance, pinned, status, created, accessed, count, expires, meta in (
            rows
        )
    ]


def _learned_times(memory: MemoryHandle) -> dict[int, datetime]:
    """fact id → when it was stored, from the audit trail: a ``create`` event per fact, or a
    ``bulk-import`` event naming the range of ids one batch inserted."""
    first: dict[int, tuple[int, datetime | None]] = {}  # fact id → (event id, time)
    mine = AuditEvent.agent == memory.agent_id
    # a create event's ``after`` is the whole fact: only the bulk ranges need theirs read
    creates = (
        AuditEvent.select(AuditEvent.id, AuditEvent.fact_id, AuditEvent.created_at)
        .where(mine & (AuditEvent.action == "create") & AuditEvent.fact_id.is_null(False))
        .order_by(AuditEvent.id)
    )
    for eid, fid, when in _raw(memory, creates):
        if fid not in first:
            first[fid] = (eid, _dt(when))
    bulk = (
        AuditEvent.select(AuditEvent.id, AuditEvent.after, AuditEvent.created_at)
        .where(mine & (AuditEvent.action == "bulk-import"))
        .order_by(AuditEvent.id)
    )
    for eid, after, when in _raw(memory, bulk):
        rng = _meta(after)
        lo, hi = rng.get("first_id"), rng.get("last_id")
        if not (isinstance(lo, int) and isinstance(hi, int)):
            continue
        at = _dt(when)
        for i in range(lo, hi + 1):
            prev = first.get(i)
            if prev is None or prev[0] > eid:  # the first event by id wins, as it always did
                first[i] = (eid, at)
    return {fid: when for fid, (_eid, when) in first.items() if when is not None}


def source_owned(f) -> bool:
    """Imported from a file that keeps it (an instruction file, Claude Code or Codex memory,
    Hermes, basic-memory, OpenMemory): the file decides when it goes, not Engram's TTLs/decay."""
    return (f.metadata or {}).get("lifecycle") == "source"


def _plan_decay(facts: list[_F], now: datetime, cfg: LifecycleConfig, report: GCReport):
    today = now.date()
    for f in facts:
        base = f.category.split(":")[0]
        if f.pinned or base in NO_DECAY or f.tier != "short" or source_owned(f):
            continue
        last = f.metadata.get("decayed_on")
        try:
            last = date.fromisoformat(last) if last else f.since.date()
        except ValueError:
            last = f.since.date()
        days = (today - last).days
        if days <= 0:
            continue
        hits = max(0, f.access_count - int(f.metadata.get("access_seen", 0)))
        new = f.importance * (1 - cfg.decay_relative) ** days - cfg.decay_absolute * days
        new += cfg.access_bonus * min(hits, 4)
        f.new_importance = round(min(1.0, max(0.0, new)), 6)
        f.metadata = {**f.metadata, "decayed_on": today.isoformat(), "access_seen": f.access_count}
        report.decayed += 1
    if report.decayed:
        report.actions.append(
            GCAction(
                "decay",
                None,
                f"daily importance decay applied to {report.decayed} short-term fact(s)",
            )
        )


def _archive(f: _F, kind: str, reason: str, report: GCReport) -> None:
    f.new_status, f.archived_reason = "archived", reason
    report.actions.append(GCAction(kind, f.id, reason))
    counter = _COUNTERS[kind]
    setattr(report, counter, getattr(report, counter) + 1)


def _plan_expiry(facts: list[_F], now: datetime, cfg: LifecycleConfig, report: GCReport):
    today = now.date()
    for f in facts:
        if f.pinned or f.state == "archived":
            continue
        if f.expires_at is not None and f.expires_at <= now:
            _archive(f, "expire", f"expiry date {f.expires_at.date()} passed", report)
            continue
        ttl = None if source_owned(f) else cfg.ttl_for(f.category)
        if ttl is None:
            continue
        ref = max(f.since, f.last_accessed or f.since)
        age = (today - ref.date()).days
        if age > ttl:
            what = "last used" if f.last_accessed and f.last_accessed > f.since else "learned"
            _archive(
                f,
                "expire",
                f"'{f.category}' facts live {ttl} days; this one was {what} "
                f"{ref.date()} ({age} days ago)",
                report,
            )


def _plan_minimum(facts: list[_F], cfg: LifecycleConfig, report: GCReport):
    for f in facts:
        if f.pinned or f.state == "archived":
            continue
        if f.imp < cfg.min_importance:
            _archive(
                f,
                "archive",
                f"importance {f.imp:.3f} fell below the minimum {cfg.min_importance:.3f}",
                report,
            )


def _plan_promotion(facts: list[_F], cfg: LifecycleConfig, report: GCReport):
    for f in facts:
        if f.pinned or f.state != "active" or f.tier != "short":
            continue
        why = None
        if f.imp >= cfg.promote_importance:
            why = f"importance {f.imp:.2f} ≥ {cfg.promote_importance:.2f}"
        elif f.access_count >= cfg.promote_access:
            why = f"used {f.access_count} times (≥ {cfg.promote_access})"
        if why:
            f.new_tier = "long"
            report.promoted += 1
            report.actions.append(GCAction("promote", f.id, f"promoted to long-term: {why}"))


def _short_active(facts):
    return [f for f in facts if f.state == "active" and not f.pinned and f.tier == "short"]


def _plan_drain(facts: list[_F], cfg: LifecycleConfig, report: GCReport):
    room = int(cfg.pending_threshold) - len(_short_active(facts))
    # facts waiting for the user's review are not the overflow queue: only the user moves them
    queue = sorted(
        (f for f in facts if f.state == "pending" and not in_review(f.metadata)),
        key=lambda f: (f.created_at, f.id),
    )
    for f in queue:
        if room <= 0:
            break
        f.new_status = "active"
        if not f.metadata.get("tier"):
            f.new_tier = "short"
        room -= 1
        report.drained += 1
        report.actions.append(GCAction("drain", f.id, "moved from the pending queue into memory"))


def _plan_caps(facts: list[_F], now: datetime, cfg: LifecycleConfig, report: GCReport):
    for tier, cap in (("short", cfg.short_term_cap), ("long", cfg.long_term_cap)):
        live = [f for f in facts if f.state == "active" and not f.pinned and f.tier == tier]
        over = len(live) - int(cap)
        if over <= 0:
            continue
        live.sort(key=lambda f: (score(f, now), f.created_at, f.id))
        for f in live[:over]:
            _archive(
                f,
                "evict",
                f"{tier}-term memory over its cap of {cap}; lowest score {score(f, now):.3f}",
                report,
            )


def run_cap(facts: list[_F]) -> int:
    active = sum(1 for f in facts if f.status == "active")
    return max(RUN_CAP_MIN, int(active * RUN_CAP_SHARE))


def _instant(d: datetime) -> int:
    """An int in the order of ``d``: the sort compares ints much faster than datetimes."""
    secs = d.toordinal() * 86400 + d.hour * 3600 + d.minute * 60 + d.second
    off = d.utcoffset()
    return (secs - (int(off.total_seconds()) if off else 0)) * 1_000_000 + d.microsecond


def _sort_by_keys(items: list, *keys: list) -> None:
    """Sort ``items`` by the tuple of ``keys`` (first most significant) as one stable sort per
    key, least significant first, which gives the same order. One sort of tuples held the GIL
    for its whole run (72 ms for the 100k store's plan at load 8, the window frozen
    meanwhile: issue 36); a sort of plain ints or floats is a few ms, and the GIL is free between them."""
    order = list(range(len(items)))
    for key in reversed(keys):
        order.sort(key=key.__getitem__)
    items[:] = [items[i] for i in order]


def _plan_run_cap(facts: list[_F], now: datetime, report: GCReport, cap: int | None) -> None:
    """Keep the weakest ``cap`` of the planned archivals; the others stay as they are."""
    leaving = [f for f in facts if f.new_status == "archived"]
    if cap is None or len(leaving) <= cap:
        return
    _sort_by_keys(
        leaving,
        [f.expires_at is None for f in leaving],
        [score(f, now) for f in leaving],
        [_instant(f.created_at) for f in leaving],
        [f.id for f in leaving],
    )
    back = {f.id for f in leaving[cap:]}
    for f in leaving[cap:]:
        f.new_status, f.archived_reason = None, None
    kept = []
    for a in report.actions:
        if a.target == "fact" and a.fact_id in back and a.kind in _COUNTERS:
            counter = _COUNTERS[a.kind]
            setattr(report, counter, getattr(report, counter) - 1)
        else:
            kept.append(a)
    report.actions = kept
    report.held_back = len(back)


def _next_day(now: datetime) -> datetime:
    """Learned on or after this is "after the simulated day" (see ``_F.since``)."""
    return datetime(now.year, now.month, now.day) + timedelta(days=1)


def _plan_pruning(memory: MemoryHandle, now: datetime, cfg: LifecycleConfig, report: GCReport):
    cutoff = now.date() - timedelta(days=int(cfg.episode_retention_days))
    eps = list(
        Episode.select(Episode.id, Episode.day)
        .where(
            (Episode.agent == memory.agent_id)
            & (Episode.day < cutoff)
            # an old session ingested today keeps its episodes for the full retention (a
            # clock simulated to before the ingest counts from the day instead)
            & (
                (Episode.created_at < now - timedelta(days=int(cfg.episode_retention_days)))
                | (Episode.created_at >= _next_day(now))
            )
        )
        .tuples()
    )
    for eid, day in eps:
        report.actions.append(
            GCAction(
                "prune-episode",
                eid,
                f"episode of {day} is older than {cfg.episode_retention_days} days",
                target="episode",
            )
        )
    report.episodes_pruned = len(eps)
    scut = now - timedelta(days=int(cfg.session_retention_days))
    when = pw.fn.COALESCE(Session.ended_at, Session.started_at, Session.processed_at)
    # counted from the ingest too: an old session taken in today keeps its log
    learned = Session.processed_at.is_null() | (Session.processed_at < scut)
    learned |= Session.processed_at >= _next_day(now)
    sess = list(
        Session.select(Session.id, Session.external_id)
        .where(
            (Session.agent == memory.agent_id)
            & Session.log.is_null(False)
            & (when < scut)
            & learned
        )
        .tuples()
    )
    for sid, ext in sess:
        report.actions.append(
            GCAction(
                "prune-session",
                sid,
                f"log of session {ext} is older than "
                f"{cfg.session_retention_days} days (the session stays marked as processed)",
                target="session",
            )
        )
    report.sessions_pruned = len(sess)
    keep = int(cfg.compiled_versions_kept)
    old_layers: list[int] = []
    for (name,) in (
        CompiledLayer.select(CompiledLayer.layer)
        .distinct()
        .where(CompiledLayer.agent == memory.agent_id)
        .tuples()
    ):
        ids = [
            r[0]
            for r in CompiledLayer.select(CompiledLayer.id)
            .where((CompiledLayer.agent == memory.agent_id) & (CompiledLayer.layer == name))
            .order_by(CompiledLayer.compiled_at.desc(), CompiledLayer.id.desc())
            .tuples()
        ]
        old_layers += ids[keep:]
    if old_layers:
        report.actions.append(
            GCAction(
                "prune-layers",
                None,
                f"{len(old_layers)} compiled version(s) beyond the newest {keep} per layer",
                target="layer",
            )
        )
    report.layers_pruned = len(old_layers)
    return [e[0] for e in eps], [s[0] for s in sess], old_layers


def _reasons(report: GCReport) -> dict[int, list[GCAction]]:
    reasons: dict[int, list[GCAction]] = {}
    for a in report.actions:
        if a.target == "fact" and a.kind != "decay" and a.fact_id is not None:
            reasons.setdefault(a.fact_id, []).append(a)
    return reasons


def _apply_decay(memory: MemoryHandle, decay_only: list[_F], report: GCReport) -> None:
    """Decay alone touches many rows: one executemany, no per-row snapshot."""
    if not decay_only:
        return
    old = {r[0]: (r[1], r[2], r[3]) for r in fact_rows.states([f.id for f in decay_only])}
    rows = [(f.new_importance, _js(f.metadata), f.id) for f in decay_only]
    fact_writes.set_states(memory.db, ("importance", "metadata"), rows)
    for imp, meta, fid in rows:
        if fid in old:
            o = old[fid]
            report.changes[fid] = ((o[0], o[1], _js(_meta(o[2]))), (imp, o[1], meta))


def _fact_update(row, f: _F, reasons, now: datetime, report: GCReport):
    """One archived/promoted/drained fact: its UPDATE row and its audit rows."""
    before = snapshot(row)
    meta = dict(f.metadata)
    if f.new_tier:
        meta["tier"] = f.new_tier
    status = f.new_status or row.status
    if f.new_status and f.archived_reason:
        meta["archived_reason"] = f.archived_reason
        meta["archived_at"] = now.isoformat()
    imp = row.importance if f.new_importance is None else f.new_importance
    after = {**before, "status": status, "importance": imp, "metadata": meta}
    report.changes[row.id] = (
        (row.importance, row.status, _js(_meta(row.metadata))),
        (imp, status, _js(meta)),
    )
    audits = [
        (row.agent_id, row.id, f"gc.{a.kind}", _js(before), _js(after), ACTOR, a.reason, str(now))
        for a in reasons.get(row.id, [])
    ]
    return (imp, status, _js(meta), str(now), row.id), audits


def _apply_acted(
    memory: MemoryHandle, acted: dict[int, _F], reasons, now: datetime, report: GCReport
) -> None:
    for part in chunks(list(acted)):
        updates: list[tuple] = []
        audits: list[AuditRow] = []
        for row in fact_rows.any_rows(part):
            upd, aud = _fact_update(row, acted[row.id], reasons, now, report)
            updates.append(upd)
            audits += aud
        fact_writes.set_states(memory.db, _STATE, updates)
        record_audit_batch(memory.db, audits)


def _apply_pruning(memory: MemoryHandle, report: GCReport, pruned, now: datetime) -> None:
    eps, sess, layers = pruned
    if report.decayed:
        record_audit(
            memory.agent_id,
            "gc.decay",
            None,
            after={"facts": report.decayed},
            actor=ACTOR,
            created_at=now,
            reason=f"daily importance decay applied to {report.decayed} short-term fact(s)",
        )
    for a in report.actions:
        if a.target in ("episode", "session", "layer"):
            record_audit(
                memory.agent_id,
                f"gc.{a.kind}",
                None,
                before={a.target: a.fact_id} if a.fact_id else None,
                actor=ACTOR,
                reason=a.reason,
                created_at=now,
            )
    if eps:
        Episode.delete().where(Episode.id.in_(eps)).execute()
    if sess:
        Session.update(log=None).where(Session.id.in_(sess)).execute()
    if layers:
        CompiledLayer.delete().where(CompiledLayer.id.in_(layers)).execute()


def _apply(memory: MemoryHandle, facts: list[_F], report: GCReport, pruned, now: datetime) -> None:
    changed = [f for f in facts if f.new_importance is not None or f.new_status or f.new_tier]
    reasons = _reasons(report)
    decay_only = [f for f in changed if f.id not in reasons and not f.new_status and not f.new_tier]
    acted = {f.id: f for f in changed if f.id in reasons or f.new_status or f.new_tier}
    with memory.db.atomic():
        _apply_decay(memory, decay_only, report)
        _apply_acted(memory, acted, reasons, now, report)
        _apply_pruning(memory, report, pruned, now)
    if changed:
        memory.engram.bus.emit(
            "fact.updated", agent_id=memory.agent_id, ids=[f.id for f in changed]
        )
    if pruned[0]:
        memory.engram.bus.emit("episode.deleted", agent_id=memory.agent_id, ids=pruned[0])


def _write_states(
    memory: MemoryHandle, states: dict[int, tuple], action: str, reason: str, notify: bool = True
) -> list[int]:
    """Put (importance, status, metadata JSON) back on facts, one audit event each."""
    from models.tables import utcnow

    now = str(utcnow())
    ids = list(states)
    with memory.db.atomic():
        present = {r[0] for r in fact_rows.states(ids, memory.agent_id)}
        rows = [(*states[i], now, i) for i in ids if i in present]
        fact_writes.set_states(memory.db, _STATE, rows)
        audits: list[AuditRow] = [
            (memory.agent_id, r[-1], action, None, _js({"status": r[1]}), "user", reason, now)
            for r in rows
        ]
        record_audit_batch(memory.db, audits)
    done = [r[-1] for r in rows]
    if done and notify:
        memory.engram.bus.emit("fact.updated", agent_id=memory.agent_id, ids=done)
    return done


def undo_gc(memory: MemoryHandle, report: GCReport) -> list[int]:
    """Undo a GC run's changes to facts (archived ones come back, decay is reverted).
    Pruned episodes, session logs and old compiled versions are gone (the preview says so)."""
    before = {fid: b for fid, (b, _a) in report.changes.items()}
    return _write_states(memory, before, "gc.undo", "undo of a GC run")


def redo_gc(memory: MemoryHandle, report: GCReport) -> list[int]:
    after = {fid: a for fid, (_b, a) in report.changes.items()}
    return _write_states(memory, after, "gc.redo", "redo of a GC run")


def archived_facts(memory: MemoryHandle, limit: int = 500) -> list:
    """Archived facts, newest first, with why (what the Archived view and ``engram restore``
    offer). Facts the user rejected in review are left out: they are never revived."""
    out = []
    for r in fact_rows.archived_rows(memory.agent_id, limit):
        meta = _meta(r.metadata)
        if (meta.get("review") or {}).get("rejected"):
            continue
        out.append((r.id, r.content, meta.get("archived_reason") or "archived", r.updated_at))
    return out


def restore_archived(memory: MemoryHandle, ids, notify: bool = True) -> list[int]:
    """Make archived facts active again (GC's "archived" is never a deletion). ``notify``:
    tell the store's listeners (recompile, workspace sync); a caller writing in batches tells
    them once at the end."""
    ids = [int(i) for i in ids]
    states = {}
    for fid, importance, status, metadata in fact_rows.states(ids, memory.agent_id):
        meta = _meta(metadata)
        if status != "archived" or (meta.get("review") or {}).get("rejected"):
            continue
        meta.pop("archived_reason", None)
        meta.pop("archived_at", None)
        states[fid] = (importance, "active", _js(meta))
    return _write_states(memory, states, "restore", "restored from the archive", notify)


def run_gc(
    memory: MemoryHandle,
    now=None,
    dry_run: bool = False,
    config: LifecycleConfig | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    max_archive: int | None | Literal["default"] = "default",
) -> GCReport:
    """``max_archive``: how many facts this run may archive ("default": ``run_cap``; None:
    no cap, as ``engram gc --all`` asks)."""
    cfg = config or config_for(memory)
    now = _as_datetime(now)
    report = GCReport(now=now, dry_run=dry_run)
    facts = _load(memory)
    for f in facts:
        f._now = now
    steps = [
        ("decay", lambda: _plan_decay(facts, now, cfg, report)),
        ("expiry", lambda: _plan_expiry(facts, now, cfg, report)),
        ("minimum importance", lambda: _plan_minimum(facts, cfg, report)),
        ("consolidation", lambda: _plan_promotion(facts, cfg, report)),
        ("pending queue", lambda: _plan_drain(facts, cfg, report)),
        ("caps", lambda: _plan_caps(facts, now, cfg, report)),
        (
            "per-run cap",
            lambda: _plan_run_cap(
                facts, now, report, run_cap(facts) if isinstance(max_archive, str) else max_archive
            ),
        ),
    ]
    total = len(steps) + 2
    for i, (name, fn) in enumerate(steps):
        if cancelled and cancelled():
            report.cancelled = True
            return report
        fn()
        if progress:
            progress(i + 1, total, name)
    pruned = _plan_pruning(memory, now, cfg, report)
    if progress:
        progress(total - 1, total, "pruning")
    if cancelled and cancelled():
        report.cancelled = True
        return report
    if not dry_run:
        _apply(memory, facts, report, pruned, now)
    if progress:
        progress(total, total, "done")
    return report


def _archived_meta(memory: MemoryHandle) -> Iterator[tuple[int, dict]]:
    """(id, metadata) of the agent's archived facts the user may restore (not rejected)."""
    for fid, raw in fact_rows.archived_metadata(memory.agent_id):
        meta = _meta(raw)
        if not (meta.get("review") or {}).get("rejected"):
            yield fid, meta


def archived_count(memory) -> int:
    """How many facts the Archived view holds (it shows a page of them)."""
    return sum(1 for _ in _archived_meta(memory))


def archived_ids(memory) -> list[int]:
    return [fid for fid, _m in _archived_meta(memory)]


def gc_runs(memory) -> list[tuple[str, int]]:
    """The GC runs whose archived facts are still archived: (run time ISO, count), newest
    first. A run stamps every fact it archives with the same ``archived_at``, so the archive
    itself is the undo of a run, across restarts."""
    runs: dict[str, int] = {}
    for _fid, meta in _archived_meta(memory):
        when = meta.get("archived_at")
        if when and meta.get("archived_reason"):
            runs[when] = runs.get(when, 0) + 1
    return sorted(runs.items(), reverse=True)


def restore_gc_run(memory, archived_at: str) -> list[int]:
    """Restore everything one GC run archived (and that is still archived)."""
    ids = [fid for fid, m in _archived_meta(memory) if m.get("archived_at") == archived_at]
    return restore_archived(memory, ids)

"""GC on a real store with an injected clock: decay over simulated days, TTL per category,
pinned immunity, cap eviction order, pending drain, pruning, dry runs and the audit trail."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from models import AuditEvent, Episode, Session
from services.capture.sessions import ingest_session
from services.ingest.pipeline import NewFact
from services.lifecycle.gc import run_gc
from services.store.facts import FactFilters

DAY0 = datetime(2026, 1, 1, 10, 0)


def add(
    agent,
    text,
    category="fact",
    importance=0.5,
    tier=None,
    pinned=False,
    created=DAY0,
    status="active",
):
    meta = {"tier": tier} if tier else {}
    (r,) = agent.remember_many(
        [
            NewFact(
                content=text,
                category=category,
                importance=importance,
                pinned=pinned,
                created_at=created,
                status=status,
                metadata=meta,
            )
        ],
        near_duplicate=None,
    )
    assert r.status == "added", r
    return r.fact_id


def gc_events(agent, fact_id):
    return [e for e in agent.facts.history(fact_id) if e["action"].startswith("gc.")]


def test_decay_over_simulated_days(agent, lc_config):
    fid = add(agent, "Prefers dark roast coffee", "pref", 0.6, tier="short")
    used = add(agent, "Uses the staging cluster for demos", "fact", 0.6, tier="short")
    run_gc(agent, now=DAY0 + timedelta(days=10), config=lc_config)
    assert agent.get(fid).importance == pytest.approx(0.5)  # 1 %/day absolute
    # the same day again: nothing more (decay is per elapsed day, not per run)
    run_gc(agent, now=DAY0 + timedelta(days=10, hours=5), config=lc_config)
    assert agent.get(fid).importance == pytest.approx(0.5)
    agent.facts.touch([used])  # a retrieval earns the access bonus
    run_gc(agent, now=DAY0 + timedelta(days=20), config=lc_config)
    assert agent.get(fid).importance == pytest.approx(0.4)
    assert agent.get(used).importance == pytest.approx(0.45)  # 0.5 - 0.1 + 0.05
    lc_config.decay_relative, lc_config.decay_absolute = 0.05, 0.0
    run_gc(agent, now=DAY0 + timedelta(days=30), config=lc_config)
    assert agent.get(fid).importance == pytest.approx(0.4 * 0.95**10, abs=1e-5)
    ev = (
        AuditEvent.select()
        .where((AuditEvent.agent == agent.agent_id) & (AuditEvent.action == "gc.decay"))
        .count()
    )
    assert ev == 3  # one summary event per run that decayed something


def test_low_importance_is_archived_not_destroyed(agent, lc_config):
    fid = add(agent, "Was looking at flight prices", "fact", 0.2, tier="short")
    report = run_gc(agent, now=DAY0 + timedelta(days=16), config=lc_config)
    assert report.archived == 1
    f = agent.get(fid)  # still there
    assert f.status == "archived" and "below the minimum" in f.metadata["archived_reason"]
    (ev,) = [e for e in gc_events(agent, fid) if e["action"] == "gc.archive"]
    assert ev["actor"] == "gc" and "fell below the minimum" in ev["reason"]
    assert ev["before"]["status"] == "active" and ev["after"]["status"] == "archived"


@pytest.mark.parametrize(
    "days,gone",
    [
        (7, set()),
        (8, {"tmp"}),
        (15, {"tmp", "task"}),
        (31, {"tmp", "task", "env", "proj:alpha"}),
        (61, {"tmp", "task", "env", "proj:alpha", "fact", "pref"}),
        (4000, {"tmp", "task", "env", "proj:alpha", "fact", "pref"}),
    ],
)
def test_ttl_per_category(agent, lc_config, days, gone):
    cats = ["tmp", "task", "env", "proj:alpha", "fact", "pref", "rule", "meta", "rel:sam"]
    ids = {
        c: add(agent, f"A {c.replace(':', ' ')} memory about subject {i}", c, 0.9)
        for i, c in enumerate(cats)
    }
    report = run_gc(agent, now=DAY0 + timedelta(days=days), config=lc_config)
    status = {c: agent.get(i).status for c, i in ids.items()}
    assert {c for c, s in status.items() if s == "archived"} == gone
    assert report.expired == len(gone)
    for c in gone:
        (ev,) = gc_events(agent, ids[c])
        assert ev["action"] == "gc.expire" and f"'{c}' facts live" in ev["reason"]


def test_ttl_counts_from_last_use(agent, lc_config):
    fid = add(agent, "Staging runs on the blue cluster", "env", 0.9)
    agent.facts.touch([fid])  # used "now" (the real clock: later than DAY0)
    run_gc(agent, now=DAY0 + timedelta(days=31), config=lc_config)
    assert agent.get(fid).status == "active"


def test_pinned_facts_are_immune(agent, lc_config):
    lc_config.short_term_cap = 1
    pinned = add(agent, "Keep this temporary note forever", "tmp", 0.06, tier="short", pinned=True)
    others = [add(agent, f"Throwaway note number {i}", "tmp", 0.5, tier="short") for i in range(3)]
    run_gc(agent, now=DAY0 + timedelta(days=900), config=lc_config)
    f = agent.get(pinned)
    assert (f.status, f.importance) == ("active", pytest.approx(0.06))
    assert gc_events(agent, pinned) == []
    assert all(agent.get(i).status == "archived" for i in others)


def test_cap_eviction_order(agent, lc_config):
    lc_config.short_term_cap = 3
    lc_config.promote_importance = 1.01  # keep them all short-term for this test
    lc_config.promote_access = 10**6
    imps = [0.45, 0.9, 0.3, 0.6, 0.35, 0.8]
    ids = [add(agent, f"Short-term memory with weight {w}", "fact", w, tier="short") for w in imps]
    popular = add(agent, "Short-term memory used a lot", "fact", 0.3, tier="short")
    for _ in range(10):
        agent.facts.touch([popular])  # access raises its score above 0.3 + 0.2
    report = run_gc(agent, now=DAY0, config=lc_config)
    evicted = [a.fact_id for a in report.actions if a.kind == "evict"]
    # lowest score first: 0.3, 0.35, 0.45, 0.5(popular=0.3+0.2) — four over the cap of 3
    assert evicted == [ids[2], ids[4], ids[0], popular]
    active = agent.facts.ids(FactFilters(status="active"))
    assert sorted(active) == sorted([ids[1], ids[3], ids[5]])
    (ev,) = gc_events(agent, ids[2])
    assert ev["action"] == "gc.evict" and "over its cap of 3" in ev["reason"]


def test_long_term_cap_and_consolidation(agent, lc_config):
    lc_config.long_term_cap = 2
    strong = add(agent, "Deploys happen on Tuesdays", "fact", 0.9, tier="short")
    weak = add(agent, "Mentioned a podcast once", "fact", 0.4, tier="short")
    old = [add(agent, f"Imported long-term memory {i}", "rule", 0.5 + i / 10) for i in range(2)]
    report = run_gc(agent, now=DAY0, config=lc_config)
    assert [a.fact_id for a in report.actions if a.kind == "promote"] == [strong]
    assert agent.get(strong).metadata["tier"] == "long"
    assert agent.get(weak).metadata["tier"] == "short"
    # three long-term facts, cap 2: the weakest imported one leaves
    assert agent.get(old[0]).status == "archived" and agent.get(old[1]).status == "active"


def test_pending_queue_drains(agent, transcript, lc_config):
    lc_config.pending_threshold = 2
    lc_config.promote_importance = 1.01  # a promotion would free a second slot
    ingest_session(agent, transcript(7), config=lc_config)
    assert agent.facts.count(FactFilters(status="pending")) == 2
    hot = agent.facts.ids(FactFilters(status="active"), order="id")
    agent.edit(hot[0], status="archived")  # room for one
    now = datetime(2026, 3, 2, 12, 0)
    report = run_gc(agent, now=now, config=lc_config)
    assert report.drained == 1
    assert agent.facts.count(FactFilters(status="pending")) == 1
    drained = [a.fact_id for a in report.actions if a.kind == "drain"]
    assert agent.get(drained[0]).category == "env"  # oldest pending first
    assert gc_events(agent, drained[0])[0]["action"] == "gc.drain"


def test_prunes_old_episodes_and_session_logs(agent, transcript, lc_config):
    ingest_session(agent, transcript(3, start=datetime(2026, 1, 1, 9)), config=lc_config)
    agent.add_episode(date(2026, 5, 1), "Recent episode kept", time="9:00 AM")
    now = datetime(2026, 7, 1)  # 181 days after the session, 91 after its episode
    report = run_gc(agent, now=now, config=lc_config)
    assert report.episodes_pruned == 1 and report.sessions_pruned == 1
    assert [e.summary for e in agent.episodes.list()] == ["Recent episode kept"]
    row = Session.get(Session.external_id == "gen-1")
    assert row.log is None and row.processed_at is not None
    # the session stays "processed": a late hook does not ingest it again
    again = ingest_session(agent, transcript(3, start=datetime(2026, 1, 1, 9)), config=lc_config)
    assert again.already_processed
    reasons = [
        e.reason
        for e in AuditEvent.select().where(
            (AuditEvent.agent == agent.agent_id) & AuditEvent.action.startswith("gc.prune")
        )
    ]
    assert any("older than 90 days" in r for r in reasons)
    assert any("older than 180 days" in r for r in reasons)


def test_dry_run_changes_nothing(agent, transcript, lc_config):
    ids = [add(agent, f"Temporary thing {i}", "tmp", 0.5, tier="short") for i in range(3)]
    ingest_session(agent, transcript(3, start=datetime(2025, 1, 1, 9)), config=lc_config)
    before = {i: agent.get(i) for i in ids}
    n_events = AuditEvent.select().count()
    n_eps = Episode.select().count()
    report = run_gc(agent, now=DAY0 + timedelta(days=30), dry_run=True, config=lc_config)
    # 3 tmp notes + the session's pref and decision (a year old, TTL 60 days)
    assert report.dry_run and report.expired == 5 and report.episodes_pruned == 1
    assert {i: agent.get(i) for i in ids} == before
    assert AuditEvent.select().count() == n_events and Episode.select().count() == n_eps


def test_cancel_and_progress(agent, lc_config):
    fid = add(agent, "Scratch note to expire", "tmp", 0.5)
    seen = []
    report = run_gc(
        agent,
        now=DAY0 + timedelta(days=30),
        config=lc_config,
        progress=lambda d, t, m: seen.append((d, t, m)),
        cancelled=lambda: len(seen) >= 2,
    )
    assert report.cancelled and agent.get(fid).status == "active"
    seen.clear()
    report = run_gc(
        agent,
        now=DAY0 + timedelta(days=30),
        config=lc_config,
        progress=lambda d, t, m: seen.append((d, t, m)),
    )
    assert not report.cancelled and agent.get(fid).status == "archived"
    assert seen[-1][0] == seen[-1][1] and [d for d, _, _ in seen] == sorted(d for d, _, _ in seen)

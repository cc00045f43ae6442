"""The bulk import path the scale benchmark uses (a product path: redaction, dedup, FTS and
audit must hold there too), and search's neighbouring-memory context. Keyword-only store (no
model) so these stay fast; the context signal works the same with vectors."""

from __future__ import annotations

from services.ingest.bulk import bulk_remember
from services.ingest.pipeline import NewFact


def test_bulk_redacts_dedups_indexes_and_audits(keyword_engram):
    mem = keyword_engram.agent("bulk", create=True)
    mem.remember("Staging runs on Hetzner")
    items = [
        NewFact("Staging runs on Hetzner!"),  # same as stored, up to punctuation
        NewFact("deploy key is sk-ant-abcdefghijklmnopqrstuvwxyz0123"),
        NewFact("Kafka has three brokers"),
        NewFact("kafka has THREE brokers"),
        NewFact("   "),
    ] + [NewFact(f"Note number {i} about zebras") for i in range(50)]
    counts = bulk_remember(mem, items, batch=20)
    assert counts == {"added": 52, "duplicate": 2, "blocked": 0, "empty": 1, "redactions": 1}
    assert mem.facts.count() == 53
    stored = [f.content for f in mem.list(limit=100)]
    assert not any("sk-ant-" in s for s in stored)
    assert any("[REDACTED:anthropic-key]" in s for s in stored)
    hits = mem.search("zebras", k=100, mode="keyword", touch=False)
    assert len(hits) == 50
    from models import AuditEvent

    events = AuditEvent.select().where(
        (AuditEvent.agent == mem.agent_id) & (AuditEvent.action == "bulk-import")
    )
    assert [e.after["count"] for e in events] == [19, 20, 13]  # one per transaction


def _conversation(mem, source, day="tomorrow"):
    turns = [
        f"Ann: did you ever finish the marathon training plan {day}?",
        f"Bo: yes, crossed the line in four hours twelve {day}",
        f"Ann: nice, want lunch {day}?",
        f"Bo: sure, the ramen place {day}",
    ]
    res = mem.remember_many(
        [NewFact(t, source_ref=source, subject=f"{source} turn {i}") for i, t in enumerate(turns)],
        near_duplicate=None,
    )
    return [r.fact_id for r in res]


def test_answer_turn_found_through_its_neighbour(keyword_engram):
    mem = keyword_engram.agent("talk", create=True)
    ids = _conversation(mem, "chat/session-1")
    mem.remember_many(
        [NewFact(f"Unrelated note {i} on gardening") for i in range(5)], near_duplicate=None
    )
    query = "marathon training"
    plain = [h.fact.id for h in mem.search(query, k=5, mode="keyword", touch=False)]
    assert ids[1] not in plain  # the answer shares no word with the question
    hits = mem.search(query, k=5, touch=False)
    got = [h.fact.id for h in hits]
    assert got[0] == ids[0] and got[1] == ids[1]
    answer = hits[1]
    assert answer.signals["keyword"] == 0 and answer.signals["context"] > 0
    assert answer.score == sum(answer.signals.values())


def test_context_stays_within_one_source_and_respects_filters(keyword_engram):
    mem = keyword_engram.agent("talk", create=True)
    a = _conversation(mem, "chat/session-1")
    mem.remember("Ann: the marathon training plan for next year starts in May")
    b = _conversation(mem, "chat/session-2", day="on Friday")
    mem.remember("lone note without a source about marathon shoes")
    mem.delete([b[1]])
    hits = {h.fact.id: h for h in mem.search("marathon training", k=20, touch=False)}
    assert a[1] in hits and b[1] not in hits  # deleted facts never come back via context
    # the last turn of session 1 is not a neighbour of session 2's first turn
    assert hits.get(a[3]) is None or hits[a[3]].signals["context"] == 0
    lone = [h for h in hits.values() if h.fact.source_ref is None]
    assert lone and all(h.signals["context"] == 0 for h in lone)

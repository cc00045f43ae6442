"""Finding 1: near-duplicate merging never swallows a correction (real embedding model)."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from services.ingest.contradiction import compare
from services.ingest.pipeline import NewFact
from tests.trust.dedup_pairs import PAIRS

OUTCOME = {
    "duplicate": "merged",
    "near-duplicate": "merged",
    "superseded": "superseded",
    "conflict": "conflict",
}


def _outcome(engram, n: int, old: str, new: str) -> tuple[str, object, object]:
    mem = engram.agent(f"pair-{n}", create=True)
    first = mem.remember(old)
    second = mem.remember(new)
    got = OUTCOME.get(second.status, "kept both")
    if got == "kept both" and first.fact_id in second.superseded:
        got = "superseded"  # the subject key already said it is newer news about the same thing
    return got, first, second


@pytest.mark.slow  # a large store: the full suite runs it
def test_pairs_table_confusion_matrix(engram, capsys):
    assert len(PAIRS) >= 40
    matrix: Counter = Counter()
    wrong = []
    for n, (old, new, expected) in enumerate(PAIRS):
        got, first, second = _outcome(engram, n, old, new)
        matrix[(expected, got)] += 1
        if expected == "supersede" and got == "superseded":
            mem = engram.agent(f"pair-{n}")
            assert mem.get(first.fact_id).status == "superseded"
            assert mem.get(second.fact_id).status == "active"
            assert second.superseded == [first.fact_id]
        if (expected, got) in {("supersede", "merged"), ("merge", "superseded")}:
            wrong.append((old, new, got))
    cols = ["merged", "superseded", "conflict", "kept both"]
    with capsys.disabled():
        print("\ndedup confusion matrix (rows: expected, cols: outcome)")
        print("expected    " + " ".join(f"{c:>11}" for c in cols))
        for row in ("merge", "supersede"):
            print(f"{row:11} " + " ".join(f"{matrix[(row, c)]:>11}" for c in cols))
    # a correction is never merged away, a restatement never supersedes its twin
    assert not wrong, wrong
    assert matrix[("supersede", "merged")] == 0
    assert matrix[("supersede", "superseded")] >= 20
    assert matrix[("merge", "merged")] >= 16


def test_the_reported_corrections_supersede_and_keep_history(engram):
    mem = engram.agent("claude", create=True)
    old = mem.remember("User is allergic to peanuts")
    new = mem.remember("User is not allergic to peanuts")
    assert new.status == "superseded" and new.fact_id != old.fact_id
    assert mem.get(old.fact_id).status == "superseded"
    assert mem.get(old.fact_id).superseded_by == new.fact_id
    ip_old = mem.remember("Server IP is 10.0.0.5")
    ip_new = mem.remember("Server IP is 10.0.0.6")
    assert ip_new.status == "superseded" and ip_new.superseded == [ip_old.fact_id]
    assert mem.remember("Server IP is 10.0.0.6").status in ("duplicate", "near-duplicate")


def test_an_unclear_contradiction_goes_to_review_as_a_conflict(engram):
    mem = engram.agent("claude", create=True)
    old = mem.remember("Redis runs at 192.168.1.20:6379 on Debian 11")
    # negated and moved at once (cosine 0.96): no rule can say which one is true now
    new = mem.remember("Redis no longer runs at 192.168.1.21:6379 on Debian 12")
    assert compare(mem.get(old.fact_id).content, mem.get(new.fact_id).content) == "conflict"
    assert new.status == "conflict", new
    assert new.conflicts_with == old.fact_id
    assert mem.get(old.fact_id).status == "active"
    items = mem.review.items()
    assert [i.fact.id for i in items] == [new.fact_id]
    assert items[0].reason == "conflict" and items[0].detail.get("with_fact") == old.fact_id


@pytest.mark.slow  # writers in threads with the real model: make test runs it
def test_concurrent_distinct_writes_are_never_merged_away(engram):
    mem = engram.agent("load", create=True)
    texts = [
        f"Worker {w} recorded note {k}: build {k} of service {w} passed in {k + 3} minutes"
        for w in range(4)
        for k in range(12)
    ]
    results: dict[str, object] = {}
    lock = threading.Lock()

    def write(part):
        for t in part:
            r = mem.remember_many([NewFact(t)])[0]
            with lock:
                results[t] = r

    threads = [threading.Thread(target=write, args=(texts[w::4],)) for w in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    merged = [t for t, r in results.items() if r.status in ("near-duplicate", "duplicate")]
    assert merged == []
    assert len({r.fact_id for r in results.values()}) == len(texts)


def test_an_older_statement_never_supersedes_a_newer_one(engram):
    from datetime import datetime

    mem = engram.agent("claude", create=True)
    new = mem.remember("Server IP is 10.0.0.6")
    [old] = mem.remember_many(
        [NewFact("Server IP is 10.0.0.5", created_at=datetime(2020, 1, 1))], bump=False
    )
    assert old.status == "conflict" and old.conflicts_with == new.fact_id
    assert mem.get(new.fact_id).status == "active"

"""Keyword search on a large store ranks by exact BM25 (services/search/keyword_sqlite.py).

``FTS_FIRST_FROM`` is lowered so a few thousand facts take the path a store of 30k+ takes (the
table's top window ranked inside FTS5, then checked against the agent). What a user notices:
the fast path's top 10 is the exhaustive BM25 top 10, in the same order, and `engram recall
--mode keyword` shows real BM25 scores, not the same 1.000 for every match."""

from __future__ import annotations

import json
import random

import pytest

from services.config import StoreConfig
from services.engram import Engram
from services.ingest.bulk import bulk_remember
from services.ingest.pipeline import NewFact
from services.search import keyword_sqlite
from services.search.hybrid import keyword_candidates
from services.store.facts import FactFilters

COMMON = "deploy release project test build review database".split()
TOOLS = "pytest mypy ruff docker helm kafka postgres redis nginx vite".split()


def _facts(seed: int, n: int) -> list[NewFact]:
    """Short memories over a skewed vocabulary: a few words in most facts, many rare ones,
    lengths from 3 to 20 words (BM25's length normalisation matters)."""
    r = random.Random(seed)
    rare = [f"w{i}x" for i in range(400)]
    out = []
    for _ in range(n):
        words = r.sample(COMMON, r.randint(1, 3)) + r.sample(TOOLS, r.randint(0, 2))
        words += [r.choice(rare) for _ in range(r.randint(0, 3))]
        words += ["the", "note"] * r.randint(0, 8)
        r.shuffle(words)
        out.append(NewFact(content=" ".join(words), category="fact"))
    return out


def _exhaustive(db, agent_id: int, match: str, n: int) -> list[tuple[int, float]]:
    """The reference, written out here: every active match of the agent, BM25, newer first
    on ties."""
    return [
        (int(i), float(s))
        for i, s in db.execute_sql(
            "SELECT f.id, -bm25(fact_fts, 1.0, 0.4, 0.4) AS s FROM fact_fts CROSS JOIN fact f "
            "ON f.id = fact_fts.rowid WHERE fact_fts MATCH ? AND f.agent_id = ? "
            "AND f.status = 'active' ORDER BY s DESC, f.id DESC LIMIT ?",
            (match, agent_id, n),
        ).fetchall()
    ]


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(keyword_sqlite, "FTS_FIRST_FROM", 100)  # as in a store of 30k+ facts
    data = tmp_path / "cli-store"
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        bulk_remember(e.agent("other", create=True), _facts(3, 1500))  # fills the top window too
        bulk_remember(e.agent("a", create=True), _facts(7, 3000))
    return data


def _queries() -> list[str]:
    r = random.Random(11)
    qs = [" ".join(r.sample(COMMON, k)) for k in (1, 2, 3) for _ in range(5)]
    qs += [f"{r.choice(COMMON)} {r.choice(TOOLS)} w{r.randrange(400)}x" for _ in range(15)]
    return qs + ["deploy", "release deploy", "mypy"]


def test_the_fast_top_ten_is_exhaustive_bm25s_top_ten(store):
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        m = e.agent("a")
        for q in _queries():
            match = keyword_sqlite.keyword_query(q)
            ref = _exhaustive(e.db, m.agent_id, match, 10)
            got = keyword_candidates(e.db, m.agent_id, q, FactFilters(status=["active"]), 200)
            assert [i for i, _ in got[:10]] == [i for i, _ in ref], q
            assert [s for _, s in got[:10]] == pytest.approx([s for _, s in ref]), q
            assert len({round(s, 9) for _, s in got[:10]}) > 1, q  # real scores, not one tie


def test_recall_keyword_shows_real_bm25_scores(store, cli):
    rc, out, err = cli("recall", "--agent", "a", "--mode", "keyword", "-k", "5", "--json", "deploy")
    assert rc == 0, err
    hits = json.loads(out)
    assert len(hits) == 5
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        m = e.agent("a")
        every = dict(_exhaustive(e.db, m.agent_id, '"deploy"', 10_000))
    assert len(every) > 100  # a common word: a tie of all matches is what users saw before
    for h in hits:
        assert h["raw"]["bm25"] == pytest.approx(every[h["id"]], abs=1e-6)
    keyword = [h["signals"]["keyword"] for h in hits]
    assert max(keyword) == pytest.approx(1.0)
    assert min(keyword) < 0.999  # normalised BM25, not 1.000 for every match
    best = max(every.values())
    assert any(h["raw"]["bm25"] == pytest.approx(best) for h in hits)

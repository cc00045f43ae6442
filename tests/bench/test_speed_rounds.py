"""`python -m bench speed` runs old and new in alternating rounds and checks each answer:
its keyword rows compare the top 10 with exhaustive BM25, so a ranking that changes what the
user gets shows in the report instead of passing as a speed-up."""

from __future__ import annotations

from bench import speed, speed_child
from services.search import keyword_sqlite


def test_rounds_alternate_which_side_goes_first():
    order: list[str] = []
    o, n, load = speed.rounds_of(
        4, lambda: order.append("old") or {"x": 1}, lambda: order.append("new") or {"x": 2}
    )
    assert order == ["old", "new", "new", "old", "old", "new", "new", "old"]
    assert len(o) == len(n) == 4 and all(isinstance(v, float) for v in load)


def test_a_row_shows_both_loads_the_ratio_and_its_check():
    row = speed.Row("keyword p95 @1,000,000", "ms", 120.0, 40.0, (3.5, 3.1), "new 100/100")
    assert row.line() == (
        "| keyword p95 @1,000,000 | 120 ms (load 3.5) | 40 ms (load 3.1) | 3.00x | new 100/100 |"
    )


def test_the_search_check_catches_a_ranking_that_is_not_bm25s(tmp_path, monkeypatch):
    data = tmp_path / "s"
    speed_child.build(data, 1500, False)
    exact = speed_child.search(data, 20, False)
    assert exact["top10_identical"] == exact["queries"] == 20
    assert exact["top10_mass"] == 1.0

    real = keyword_sqlite.keyword_candidates

    def newest_first(db, agent_id, query, filters, n, mode, stopwords):  # a "fast" ranking
        hits = real(db, agent_id, query, filters, 10_000, mode, stopwords)
        return sorted(hits, key=lambda h: -h[0])[:n]

    monkeypatch.setattr(keyword_sqlite, "keyword_candidates", newest_first)
    pruned = speed_child.search(data, 20, False)
    assert pruned["top10_identical"] < 20
    assert pruned["top10_mass"] < 1.0

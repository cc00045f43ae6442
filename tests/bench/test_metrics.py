"""The benchmark's metric functions and LoCoMo evidence handling, on hand-computed cases: a
wrong metric would mislead anyone reading the benchmark table."""

from __future__ import annotations

import json
import math

import pytest

from bench.locomo import load, parse_session_date, rrf
from bench.metrics import (
    average,
    ndcg_at,
    normalize_dia_id,
    recall_at,
    reciprocal_rank,
    score_query,
)


def test_recall_counts_the_fraction_of_gold_found():
    ranked = [7, 3, 9, 1, 4, 8]
    assert recall_at(ranked, {3}, 5) == 1.0
    assert recall_at(ranked, {3, 8}, 5) == 0.5  # 8 is sixth
    assert recall_at(ranked, {3, 8}, 10) == 1.0
    assert recall_at(ranked, {42}, 10) == 0.0
    with pytest.raises(ValueError):
        recall_at(ranked, set(), 5)


def test_reciprocal_rank_of_first_gold():
    assert reciprocal_rank([5, 6, 7], {7, 6}) == pytest.approx(1 / 2)
    assert reciprocal_rank([5, 6, 7], {5}) == 1.0
    assert reciprocal_rank([5, 6, 7], {8}) == 0.0


def test_ndcg_hand_computed():
    # gold at ranks 2 and 4 of two gold items: DCG = 1/log2(3) + 1/log2(5),
    # IDCG = 1/log2(2) + 1/log2(3)
    want = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg_at(["a", "g1", "b", "g2"], {"g1", "g2"}, 10) == pytest.approx(want)
    assert ndcg_at(["g1", "g2"], {"g1", "g2"}, 10) == pytest.approx(1.0)
    # more gold than k: the ideal ranking fills all k places
    assert ndcg_at(["g1"], {f"g{i}" for i in range(12)}, 1) == pytest.approx(1.0)
    assert ndcg_at(["x", "y"], {"g"}, 10) == 0.0


def test_score_query_ignores_repeats_of_one_item():
    # two turns stored as one fact appear once: the repeat must not push gold down
    s = score_query([1, 1, 1, 1, 1, 2], {2})
    assert s["R@5"] == 1.0 and s["MRR"] == pytest.approx(1 / 2)


def test_average_per_metric():
    rows = [score_query([1, 2], {1}), score_query([1, 2], {3})]
    avg = average(rows)
    assert avg["n"] == 2 and avg["R@5"] == 0.5 and avg["MRR"] == 0.5


@pytest.mark.parametrize(
    "raw,want",
    [
        ("D30:05", "D30:5"),
        ("D1:3", "D1:3"),
        (" D2:10 ", "D2:10"),
        ("D", None),
        ("D:11:26", None),
        ("", None),
        ("d3:4", None),
    ],
)
def test_evidence_id_normalisation(raw, want):
    assert normalize_dia_id(raw) == want


def test_session_date_parsing():
    d = parse_session_date("1:56 pm on 8 May, 2023")
    assert (d.year, d.month, d.day, d.hour, d.minute) == (2023, 5, 8, 13, 56)
    assert parse_session_date("12:09 am on 13 September, 2023").hour == 0
    assert parse_session_date("sometime") is None


def test_rrf_prefers_items_ranked_well_by_both():
    # 1/61 + 1/63 > 2/62: an item first in one list beats one second in both; ties by id
    assert rrf([1, 2, 3], [3, 2, 1]) == [1, 3, 2]
    assert rrf([1, 2], [2, 9])[0] == 2


def test_load_drops_unresolvable_evidence_and_counts_it(tmp_path):
    conv = {
        "sample_id": "c1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat."},
                {
                    "speaker": "Bo",
                    "dia_id": "D1:2",
                    "text": "Look!",
                    "img_url": ["x"],
                    "blip_caption": "a photo of a cat",
                },
            ],
        },
        "qa": [
            {"question": "Pet?", "answer": "cat", "evidence": ["D1:01"], "category": 4},
            {
                "question": "Bad ids",
                "answer": "x",
                "evidence": ["D", "D:11:26", "D1:9"],
                "category": 1,
            },
            {"question": "None", "answer": "x", "evidence": [], "category": 3},
            {"question": "Mixed", "answer": "x", "evidence": ["D1:2", "D7:1"], "category": 2},
            {
                "question": "Adversarial",
                "adversarial_answer": "x",
                "evidence": ["D1:1"],
                "category": 5,
            },
        ],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([conv]))
    (c,) = load(path)
    assert [t.content(cap) for t, cap in c.turns] == [
        "Ann: I adopted a cat.",
        "Bo: Look! [image: a photo of a cat]",
    ]
    assert [(q.text, q.evidence) for q in c.questions] == [("Pet?", ["D1:1"]), ("Mixed", ["D1:2"])]
    assert c.dropped == {"questions": 2, "evidence_ids": 4}

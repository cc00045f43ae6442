"""Retrieval metrics and LoCoMo evidence-id handling, kept free of any store so they can be
checked on hand-computed cases (tests/bench/test_metrics.py).

Relevance is binary: a retrieved item is relevant when it is one of the question's gold
evidence turns. Recall@k is the fraction of the gold items found in the top k (so a two-turn
question with one turn found scores 0.5), MRR the reciprocal rank of the first gold item,
nDCG@k the usual log2-discounted gain over the ideal ranking of min(|gold|, k) items.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

_DIA = re.compile(r"^D(\d+):(\d+)$")


def normalize_dia_id(raw: str) -> str | None:
    """``'D30:05'`` → ``'D30:5'``; malformed ids (``'D'``, ``'D:11:26'``) → None."""
    m = _DIA.match((raw or "").strip())
    if not m:
        return None
    return f"D{int(m.group(1))}:{int(m.group(2))}"


def recall_at(ranked: Sequence, gold: Iterable, k: int) -> float:
    gold = set(gold)
    if not gold:
        raise ValueError("a query needs at least one gold item")
    return len(gold & set(ranked[:k])) / len(gold)


def reciprocal_rank(ranked: Sequence, gold: Iterable) -> float:
    gold = set(gold)
    for i, item in enumerate(ranked):
        if item in gold:
            return 1.0 / (i + 1)
    return 0.0


def ndcg_at(ranked: Sequence, gold: Iterable, k: int) -> float:
    gold = set(gold)
    if not gold:
        raise ValueError("a query needs at least one gold item")
    dcg = sum(1.0 / math.log2(i + 2) for i, item in enumerate(ranked[:k]) if item in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal


def dedupe(ranked: Iterable) -> list:
    """Keep the first occurrence of each item (two turns can map to one stored fact)."""
    seen: set = set()
    out = []
    for item in ranked:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


METRICS = ("R@5", "R@10", "MRR", "nDCG@10")


def score_query(ranked: Sequence, gold: Iterable) -> dict[str, float]:
    ranked = dedupe(ranked)
    gold = set(gold)
    return {
        "R@5": recall_at(ranked, gold, 5),
        "R@10": recall_at(ranked, gold, 10),
        "MRR": reciprocal_rank(ranked, gold),
        "nDCG@10": ndcg_at(ranked, gold, 10),
    }


def average(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {m: float("nan") for m in METRICS} | {"n": 0}
    out = {m: sum(r[m] for r in rows) / len(rows) for m in METRICS}
    out["n"] = len(rows)
    return out

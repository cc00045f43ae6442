"""The supersession confusion matrix: each labelled pair of ``supersession_pairs`` through the
real write pipeline (SQLite, Chroma, the embedding model), one fresh agent per pair.

A *distinct-subject loss* is a ``keep`` pair whose first fact was merged away or superseded;
a *silent supersession* is a superseded fact whose result carries no note. Both must be 0.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench.supersession_pairs import PAIRS

COLUMNS = ["merged", "superseded", "conflict", "kept both"]
ROWS = ["merge", "supersede", "conflict", "keep"]
EXPECTED_COLUMN = {
    "merge": "merged",
    "supersede": "superseded",
    "conflict": "conflict",
    "keep": "kept both",
}


def outcome(memory, old: str, new: str) -> tuple[str, bool]:
    """(what happened to the pair, whether a supersession said so)."""
    first = memory.remember(old)
    second = memory.remember(new)
    if second.status in ("duplicate", "near-duplicate"):
        return "merged", True
    if first.fact_id in second.superseded or memory.get(first.fact_id).status == "superseded":
        return "superseded", first.fact_id in second.superseded and (
            second.status == "superseded" or bool(second.reason)
        )
    if second.status == "conflict":
        return "conflict", True
    return "kept both", True


def run(engram, pairs=PAIRS) -> dict:
    matrix: Counter = Counter()
    wrong: list[dict] = []
    silent = 0
    for n, (old, new, expected) in enumerate(pairs):
        mem = engram.agent(f"pair-{n}", create=True)
        got, noted = outcome(mem, old, new)
        silent += not noted
        matrix[(expected, got)] += 1
        if got != EXPECTED_COLUMN[expected]:
            wrong.append({"old": old, "new": new, "expected": expected, "got": got})
    losses = matrix[("keep", "merged")] + matrix[("keep", "superseded")]
    correct = sum(matrix[(r, EXPECTED_COLUMN[r])] for r in ROWS)
    return {
        "pairs": len(pairs),
        "matrix": {r: {c: matrix[(r, c)] for c in COLUMNS} for r in ROWS},
        "distinct_subject_losses": losses,
        "silent_supersessions": silent,
        "accuracy": round(correct / len(pairs), 4) if pairs else 0.0,
        "wrong": wrong,
    }


def table(r: dict) -> str:
    lines = [
        f"supersession confusion matrix, {r['pairs']} pairs (rows: expected, cols: outcome)",
        "expected   " + " ".join(f"{c:>11}" for c in COLUMNS),
    ]
    for row in ROWS:
        lines.append(f"{row:10} " + " ".join(f"{r['matrix'][row][c]:>11}" for c in COLUMNS))
    lines.append(
        f"distinct-subject losses {r['distinct_subject_losses']}, silent supersessions "
        f"{r['silent_supersessions']}, accuracy {r['accuracy']:.3f}"
    )
    for w in r["wrong"]:
        lines.append(f"  {w['expected']:>9} -> {w['got']:<10} {w['old']!r} / {w['new']!r}")
    return "\n".join(lines)


def run_in(work: Path) -> dict:
    from services.config import StoreConfig
    from services.engram import Engram

    engram = Engram.open(StoreConfig(data_dir=work))
    try:
        return run(engram)
    finally:
        engram.close()

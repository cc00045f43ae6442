"""Extraction precision/recall on the hand-labelled set (``python -m tests.entities.measure``)."""

from __future__ import annotations

import json
from pathlib import Path

from services.entities.extract import entity_key, extract

DATA = Path(__file__).parent / "data" / "labelled.json"


def score(typed: bool = True, data: Path = DATA) -> dict:
    facts = json.loads(data.read_text(encoding="utf-8"))["facts"]
    tp = fp = fn = 0
    misses, extras = [], []
    for f in facts:

        def k(name, typ):
            return (entity_key(name), typ if typed else "")

        gold = {k(e["name"], e["type"]) for e in f["entities"]}
        got = {k(m.name, m.type) for m in extract(f["text"])}
        tp += len(gold & got)
        fp += len(got - gold)
        fn += len(gold - got)
        extras += [(f["text"], g) for g in got - gold]
        misses += [(f["text"], g) for g in gold - got]
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return {
        "facts": len(facts),
        "precision": round(p, 3),
        "recall": round(r, 3),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "misses": misses,
        "extras": extras,
    }


HELDOUT = Path(__file__).parent / "data" / "heldout.json"

if __name__ == "__main__":
    for data in (DATA, HELDOUT):
        for typed in (True, False):
            s = score(typed, data)
            summary = {k: v for k, v in s.items() if k not in ("misses", "extras")}
            print(data.name, ("typed" if typed else "names"), summary)
    s = score(True)
    print("MISSES", *s["misses"], sep="\n  ")
    print("EXTRAS", *s["extras"], sep="\n  ")

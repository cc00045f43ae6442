"""Scoring what Engram stored from a real transcript against the hand-written gold list
(tests/lifecycle/data/real_transcripts_gold.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

GOLD = Path(__file__).parent / "data" / "real_transcripts_gold.json"


def load_gold() -> dict:
    data = json.loads(GOLD.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def _hits(item: dict, text: str) -> bool:
    return all(re.search(p, text, re.I) for p in item["match"])


def score(gold: dict, stored: list[str]) -> dict:
    """Precision: stored facts that match a required or acceptable item. Recall: required
    items matched by some stored fact. An empty side counts as perfect."""
    every = gold["required"] + gold["acceptable"]
    good = [s for s in stored if any(_hits(g, s) for g in every)]
    found = [g for g in gold["required"] if any(_hits(g, s) for s in stored)]
    return {
        "stored": len(stored),
        "precision": len(good) / len(stored) if stored else 1.0,
        "recall": len(found) / len(gold["required"]) if gold["required"] else 1.0,
        "noise": [s for s in stored if s not in good],
        "missed": [g["text"] for g in gold["required"] if g not in found],
    }

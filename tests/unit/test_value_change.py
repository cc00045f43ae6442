"""The value-change and opposite rules on the hand-labelled pairs (bench/capture_gold/pairs),
written before the rules: every change finds its old value, none finds another pair's fact,
and the opposites are told apart (the store-level path is tests/trust/test_value_changes.py)."""

from __future__ import annotations

from bench.capture_pairs import load
from services.ingest.contradiction import compare
from services.ingest.value_change import changes, opposite, parse_change

CHANGES = load("value_changes.txt")
OPPOSITES = load("opposites.txt")


def test_each_change_finds_the_value_it_replaces_and_nothing_else():
    olds = [o for o, _ in CHANGES + OPPOSITES]
    found = wrong = 0
    for old, new in CHANGES:
        c = parse_change(new)
        found += bool(c and changes(c, old))
        wrong += sum(1 for x in olds if x != old and c and changes(c, x))
    # "The user moved to Porto" is the location subject key's, not these rules'
    assert found >= len(CHANGES) - 1 and wrong == 0


def test_opposites_are_flagged_and_changes_are_not_opposites():
    # on/off, up/down: the near-duplicate pass's own comparison flags them
    flagged = sum(opposite(a, b) or compare(a, b) == "conflict" for a, b in OPPOSITES)
    assert flagged >= 0.9 * len(OPPOSITES)
    assert not [p for p in CHANGES if opposite(*p)]
    assert not [b for _, b in OPPOSITES if parse_change(b)]

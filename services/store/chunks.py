"""Long id lists cut into pieces a single SQL statement can take.

SQLite before 3.32 allows 999 bound variables per statement and PostgreSQL 65535; every
``IN (...)`` over ids a caller does not bound goes through ``chunks`` so that one size, well
under both limits, is used everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
SQL_IDS = 500  # ids per IN (...) list


def chunks(items: Sequence[T], n: int = SQL_IDS) -> Iterator[Sequence[T]]:
    """Consecutive slices of at most ``n`` items (none for an empty sequence)."""
    if n < 1:
        raise ValueError("chunk size must be at least 1")
    for start in range(0, len(items), n):
        yield items[start : start + n]

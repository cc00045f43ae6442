"""Id lists cut for ``IN (...)``: every id exactly once, in order, no piece over the limit."""

from __future__ import annotations

import pytest

from services.store.chunks import SQL_IDS, chunks


@pytest.mark.parametrize("n_items", [0, 1, SQL_IDS - 1, SQL_IDS, SQL_IDS + 1, 3 * SQL_IDS + 7])
def test_chunks_cover_every_id_once_within_the_limit(n_items):
    ids = list(range(n_items))
    parts = list(chunks(ids))
    assert [i for p in parts for i in p] == ids
    assert all(0 < len(p) <= SQL_IDS for p in parts)
    assert len(parts) == -(-n_items // SQL_IDS)


def test_chunk_size_is_honoured_and_must_be_positive():
    assert [list(p) for p in chunks([1, 2, 3, 4, 5], 2)] == [[1, 2], [3, 4], [5]]
    with pytest.raises(ValueError):
        list(chunks([1], 0))

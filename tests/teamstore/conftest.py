from __future__ import annotations

import pytest


@pytest.fixture
def keyword_engram_pg(team_store, tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(
        StoreConfig(
            data_dir=tmp_path / "team",
            db_url=team_store.db_url,
            vector_url=team_store.chroma_url,
            semantic=False,
        )
    )
    yield e
    e.close()


@pytest.fixture
def engram_pg(team_store, tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(
        StoreConfig(
            data_dir=tmp_path / "team", db_url=team_store.db_url, vector_url=team_store.chroma_url
        )
    )
    assert e.semantic_enabled, e.semantic_error
    yield e
    e.close()

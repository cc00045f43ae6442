"""An agent's first `recall` over MCP is hybrid (issue 33: 10 of 10 first recalls answered
keyword-only because the model was still loading behind `initialize`). The server is the real
`engram mcp` subprocess with the model on (no `--keyword`), driven by the official SDK client;
the store, Chroma and the model are real."""

from __future__ import annotations

import anyio
import pytest

from services.config import StoreConfig
from services.engram import Engram
from tests.integration.mcp_client import call, stdio_session

FACT = "Deploys happen on Tuesdays after the standup"


@pytest.fixture
def store(tmp_path):
    data = tmp_path / "store"
    with Engram.open(StoreConfig(data_dir=data)) as e:
        assert e.semantic_enabled, e.semantic_error
        m = e.agent("bot", create=True)
        m.remember(FACT, category="rule")
        m.remember("The user keeps bees on the roof", category="fact")
    return data


def _first_recall(store, query: str, keyword: bool) -> dict:
    """The first `recall` of a fresh `engram mcp` (with the model, or --keyword), over stdio."""

    async def go():
        async with stdio_session(store, "bot", keyword=keyword) as s:
            return await call(s, "recall", query=query, k=3)

    err, out = anyio.run(go)
    assert not err, out
    return out


def test_the_first_recall_waits_for_the_model_and_finds_a_paraphrase(store):
    # no word in common with the fact: only the vectors can find it
    out = _first_recall(store, "which weekday do we ship releases", keyword=False)
    assert out["keyword_only"] is False
    assert out["pipeline"] in ("hybrid", "hybrid+rerank")
    assert "note" not in out
    assert out["hits"] and out["hits"][0]["content"] == FACT


def test_a_keyword_server_still_answers_at_once_and_says_so(store):
    out = _first_recall(store, "deploys tuesdays", keyword=True)
    assert out["pipeline"] == "keyword-only" and out["hits"][0]["content"] == FACT

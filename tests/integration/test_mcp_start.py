"""`engram mcp` answers the handshake before the MCP SDK loads (services/integrations/
mcp/fast_start.py): the SDK's own answer is recorded on the first start and replayed from the
second on. Driven by the official SDK client over stdio, as an agent starts the server."""

from __future__ import annotations

import json

import anyio
import pytest

from services.config import StoreConfig
from services.engram import Engram
from tests.integration.mcp_client import call, stdio_session


@pytest.fixture
def store(tmp_path):
    data = tmp_path / "store"
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        e.agent("bot", create=True).remember("Deploys happen on Tuesdays", category="rule")
    return data


def _session_works(store) -> dict:
    async def go():
        async with stdio_session(store, "bot") as s:
            tools = {t.name for t in (await s.list_tools()).tools}
            err, hits = await call(s, "recall", query="when do deploys happen", mode="keyword")
            return {
                "tools": tools,
                "err": err,
                "hits": hits,
                "server": s.server_info if hasattr(s, "server_info") else None,
            }

    return anyio.run(go)


def test_second_start_replays_the_recorded_handshake_and_the_session_works(store):
    first = _session_works(store)
    record = store / "mcp-initialize.json"
    assert record.exists()
    results = json.loads(record.read_text("utf-8"))["results"]
    assert results and all("capabilities" in r for r in results.values())
    assert oct(record.stat().st_mode & 0o777) == "0o600"

    second = _session_works(store)  # answered from the record, then handed to the SDK
    for got in (first, second):
        assert {"recall", "remember", "get_context"} <= got["tools"]
        assert got["err"] is False
        assert "Deploys happen on Tuesdays" in json.dumps(got["hits"])


def test_a_stale_record_is_not_replayed(store):
    _session_works(store)
    record = store / "mcp-initialize.json"
    data = json.loads(record.read_text("utf-8"))
    for r in data["results"].values():
        r["instructions"] = "stale text from an older server"
    data["key"] = "an older SDK"
    record.write_text(json.dumps(data), "utf-8")
    got = _session_works(store)
    assert got["err"] is False
    fresh = json.loads(record.read_text("utf-8"))
    assert "stale text" not in json.dumps(fresh)


def test_the_tool_list_is_answered_from_the_record_after_a_replayed_handshake(store):
    """An agent lists the tools right after the handshake: from the second start on, that
    answer too comes from the record (the SDK's own is dropped), so the tools are there
    before the SDK has loaded; a marker put in the record shows which answer the client got."""
    first = _session_works(store)  # records the handshake
    record = store / "mcp-initialize.json"
    _session_works(store)  # handshake replayed: the SDK's tool list is recorded
    data = json.loads(record.read_text("utf-8"))
    assert data["tools"], "the tool list was not recorded"
    (version, listed), *_ = data["tools"].items()
    assert {t["name"] for t in listed["tools"]} == first["tools"]
    listed["tools"] = [t for t in listed["tools"] if t["name"] != "recall"] + [
        {**t, "name": "recall_from_record"} for t in listed["tools"] if t["name"] == "recall"
    ]
    record.write_text(json.dumps(data), "utf-8")

    third = _session_works(store)
    assert "recall_from_record" in third["tools"] and "recall" not in third["tools"]
    # the SDK still serves the calls: the recorded list only spared the wait
    assert third["err"] is False
    assert "Deploys happen on Tuesdays" in json.dumps(third["hits"])

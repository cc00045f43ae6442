"""The MCP surface an agent sees, over stdio with the official SDK client: a version in
serverInfo, prompts that exist and carry what is remembered, strict arguments with plain
messages, and the tools other memory servers offer (batch remember with a project scope, one
memory with its history, entities and relations, the episode timeline), plus a `recent`
resource whose change is announced to the client."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from tests.integration.mcp_client import call, stdio_session


@pytest.fixture
def store(tmp_path) -> Path:
    from services.config import StoreConfig
    from services.engram import Engram

    data = tmp_path / "data"
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        bot = e.agent("bot", create=True)
        bot.remember("Ada Lovelace maintains the billing service", category="fact")
        bot.add_episode(
            __import__("datetime").date(2026, 11, 30), "Moved billing to Stripe", tags=["billing"]
        )
    return data


@asynccontextmanager
async def session(data: Path, notes: list):
    async def on_message(msg):
        notes.append(msg)

    async with stdio_session(data, "bot", version="2.1", message_handler=on_message) as s:
        yield s, s.engram_init


def test_the_surface_an_agent_sees(store):
    notes: list = []

    async def go():
        async with session(store, notes) as (s, init):
            out = {"version": init.server_info.version}
            out["prompts"] = {p.name for p in (await s.list_prompts()).prompts}
            pr = await s.get_prompt("what_do_you_remember", {"topic": "billing"})
            out["prompt_text"] = pr.messages[0].content.text
            tools = {t.name: t for t in (await s.list_tools()).tools}
            out["strict"] = all(
                t.input_schema.get("additionalProperties") is False for t in tools.values()
            )
            out["extra"] = await call(s, "recall", query="billing", verbose=True)
            out["bad"] = await call(s, "recall", query="billing", k=500)
            out["missing"] = await call(s, "remember_in_project", text="x")
            out["batch"] = await call(
                s, "remember_batch",
                items=[{"text": "The billing service bills in EUR", "project": "billing"},
                       {"text": "Grace Hopper reviews the billing pull requests", "category": "fact"}],
            )  # fmt: skip
            fid = out["batch"][1]["results"][0]["id"]
            await call(s, "update_memory", id=fid, text="The billing service bills in EUR and USD")
            out["one"] = await call(s, "get_memory", id=fid)
            out["scoped"] = await call(s, "recall_in_project", query="billing", project="billing")
            out["timeline"] = await call(s, "recent_episodes", project="billing")
            out["recent"] = (await s.read_resource("engram://bot/recent.md")).contents[0].text
            return out

    out = anyio.run(go)
    assert out["version"] and out["version"] != ""
    assert {"what_do_you_remember", "before_task", "review_memory"} <= out["prompts"]
    assert "Ada Lovelace maintains the billing service" in out["prompt_text"]
    assert out["strict"]
    err, text = out["extra"]
    assert err and "no argument 'verbose'" in text and "query" in text
    for err, text in (out["bad"], out["missing"]):
        assert err and "http" not in text and "pydantic" not in text.lower() and "\n" not in text
    assert "k: input should be less than or equal to 50" in out["bad"][1]
    assert "project: is required" in out["missing"][1]
    err, batch = out["batch"]
    assert not err and batch["added"] == 2
    err, one = out["one"]
    assert not err and one["content"] == "The billing service bills in EUR and USD"
    assert one["category"] == "proj:billing"
    assert [h["action"] for h in one["history"]][:1] == ["create"] and len(one["history"]) >= 2
    err, scoped = out["scoped"]
    assert not err and [h["content"] for h in scoped["hits"]] == [
        "The billing service bills in EUR and USD"
    ], "only the project's memories, not Ada's fact about billing"
    err, tl = out["timeline"]
    assert not err and [e["summary"] for e in tl["episodes"]] == ["Moved billing to Stripe"]
    assert "bills in EUR and USD" in out["recent"]
    updated = [n for n in notes if "resources/updated" in repr(n) or "ResourceUpdated" in repr(n)]
    assert updated, "the client hears that the recent resource changed"


def test_entities_and_relations(store):
    from services.config import StoreConfig
    from services.engram import Engram

    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        bot = e.agent("bot")
        bot.remember("Grace Hopper works at Acme Corp", category="rel:works_at")
        names = [x.name for x in bot.entities.list()]
    notes: list = []

    async def go():
        async with session(store, notes) as (s, _):
            found = await call(s, "search_entities", query=names[0][:4])
            shown = await call(s, "show_entity", name=names[0])
            linked = await call(s, "link_entities", source="Grace Hopper", relation="mentors",
                                target="Ada Lovelace")  # fmt: skip
            grace = await call(s, "show_entity", name="Grace Hopper")
            return found, shown, linked, grace

    (ferr, found), (serr, shown), (lerr, linked), (gerr, grace) = anyio.run(go)
    assert not lerr and linked["id"], linked
    assert (
        not gerr
        and {"from": "Grace Hopper", "type": "mentors", "to": "Ada Lovelace"} in grace["relations"]
    ), grace["relations"]
    assert names, "the store links entities"
    assert not ferr and found["entities"] and found["entities"][0]["name"] == names[0]
    assert not serr and shown["name"] == names[0] and shown["facts"]

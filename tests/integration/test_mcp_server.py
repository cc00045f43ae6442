"""`engram mcp` driven by the official MCP SDK's client, as an agent would: the server is a
real subprocess (`python -m app.cli mcp --agent X --data-dir D`) over stdio, or Streamable
HTTP on 127.0.0.1 behind a bearer token. The store is real; the server runs keyword-only
(`--keyword`) so each test does not load the embedding model in a second process."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest

from models import AuditEvent
from services.config import StoreConfig
from services.engram import Engram
from services.forget import isolated
from services.integrations.mcp.review import set_review_required
from services.search.context import build_context
from services.store.facts import FactFilters
from tests.integration.mcp_client import (
    ROOT,
    call,
    free_port,
    http_session,
    initialize,
    server_args,
    server_env,
    start_http,
    stdio_session,
)

SECRET = "sk-proj-Q7wXv2Lm9Rt4Yp8Zk3Nb6Hc1Jd5Fg0Aa"
TOOLS = {
    "remember",
    "recall",
    "list_memories",
    "update_memory",
    "delete_memory",
    "forget",
    "get_context",
    # issue 22: what other memory servers offer
    "remember_batch",
    "remember_in_project",
    "recall_in_project",
    "get_memory",
    "search_entities",
    "show_entity",
    "link_entities",
    "recent_episodes",
}


@pytest.fixture
def store(tmp_path):
    data = tmp_path / "store"
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        e.agent("bot", create=True).remember("Deploys happen on Tuesdays", category="rule")
        e.agent("other", create=True).remember("The other agent's user keeps bees", category="fact")
    return data


def run(fn):
    return anyio.run(fn)


def test_tools_have_schemas_descriptions_and_annotations(store):
    async def go():
        async with stdio_session(store, "bot") as s:
            return (await s.list_tools()).tools, (await s.list_resources()).resources

    tools, resources = run(go)
    by_name = {t.name: t for t in tools}
    assert set(by_name) == TOOLS
    for t in tools:
        assert len(t.description) > 60, t.name  # written for a model, not a stub
        assert t.input_schema["type"] == "object"
        assert t.annotations is not None
    for name in ("recall", "list_memories", "get_context"):
        assert by_name[name].annotations.read_only_hint is True
    for name in ("delete_memory", "forget"):
        assert by_name[name].annotations.destructive_hint is True
        assert by_name[name].annotations.read_only_hint is False
    assert by_name["delete_memory"].annotations.idempotent_hint is True
    assert by_name["forget"].annotations.idempotent_hint is False
    assert by_name["remember"].input_schema["required"] == ["text"]
    props = by_name["remember"].input_schema["properties"]
    assert set(props) == {"text", "category", "importance", "pin"}
    assert props["importance"]["maximum"] == 1.0
    assert by_name["recall"].input_schema["required"] == ["query"]
    uris = {str(r.uri) for r in resources}
    assert "engram://bot/memory.md" in uris and "engram://bot/layers/week.md" in uris
    assert not any("other" in u for u in uris)


def test_remember_recall_list_update_delete_audited_with_the_client_name(store):
    async def go():
        async with stdio_session(store, "bot", client="claude-code") as s:
            out = {}
            out["added"] = await call(s, "remember", text="Prefers oolong tea", category="pref")
            out["again"] = await call(s, "remember", text="Prefers oolong tea", category="pref")
            out["recall"] = await call(s, "recall", query="oolong tea", k=3)
            fid = out["added"][1]["id"]
            out["update"] = await call(s, "update_memory", id=fid, text="Prefers sencha tea")
            out["list"] = await call(s, "list_memories", category="pref")
            out["delete"] = await call(s, "delete_memory", id=fid)
            out["delete_again"] = await call(s, "delete_memory", id=fid)
            out["empty"] = await call(s, "remember", text="   ")
            return out

    out = run(go)
    err, added = out["added"]
    assert not err and added["status"] == "added" and isinstance(added["id"], int)
    assert out["again"][1] == {**added, "status": "duplicate"}
    [hit] = out["recall"][1]["hits"]
    assert hit["content"] == "Prefers oolong tea" and hit["category"] == "pref"
    # a server without the model says so: the agent knows a paraphrase may have been missed
    assert out["recall"][1]["keyword_only"] is True
    assert out["recall"][1]["pipeline"] == "keyword-only"
    assert "keyword-only" in out["recall"][1]["note"]
    assert hit["id"] == added["id"] and hit["score"] > 0 and len(hit["date"]) == 10
    assert out["update"][1]["content"] == "Prefers sencha tea"
    assert [i["content"] for i in out["list"][1]["items"]] == ["Prefers sencha tea"]
    # a delete only asks the user (tests/trust/test_mcp_forget_needs_the_user.py)
    assert out["delete"][1]["queued"] is True
    assert out["delete_again"][1]["request_id"] == out["delete"][1]["request_id"]
    err, text = out["empty"]
    assert err and "empty" in text

    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        actors = {
            (a.action, a.actor)
            for a in AuditEvent.select().where(AuditEvent.fact_id == added["id"])
        }
        assert ("create", "mcp:claude-code") in actors, actors
        assert ("edit", "mcp:claude-code") in actors
        assert ("delete", "mcp:claude-code") not in actors
        assert [f.content for f in e.agent("bot").list(FactFilters(status="active"))] == [
            "Prefers sencha tea",
            "Deploys happen on Tuesdays",
        ]


def test_one_agent_cannot_reach_another_agents_memory(store):
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        foreign = e.agent("other").list()[0].id

    async def go():
        async with stdio_session(store, "bot") as s:
            return [
                await call(s, "update_memory", id=foreign, text="hijacked"),
                await call(s, "delete_memory", id=foreign),
                await call(s, "recall", query="bees"),
                await call(s, "list_memories", status="all"),
                await call(s, "forget", matching="bees"),
            ]

    upd, dele, rec, lst, fgt = run(go)
    assert upd[0] and f"no fact {foreign}" in upd[1]
    assert dele[0] and f"no fact {foreign}" in dele[1]
    assert rec[1]["hits"] == []
    assert [i["content"] for i in lst[1]["items"]] == ["Deploys happen on Tuesdays"]
    assert fgt[1]["would_forget"] == []
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        assert [f.content for f in e.agent("other").list()] == ["The other agent's user keeps bees"]


def test_a_secret_sent_to_remember_never_reaches_the_store(store):
    async def go():
        async with stdio_session(store, "bot") as s:
            return await call(s, "remember", text=f"The staging deploy key is {SECRET} ok")

    err, res = run(go)
    assert not err and res["status"] == "added" and res["redacted_secrets"] == 1
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        assert SECRET not in e.agent("bot").get(res["id"]).content
        e.db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    assert isolated.raw_hits([store], [SECRET]) == []


def test_forget_previews_then_waits_for_the_user(store):
    async def go():
        async with stdio_session(store, "bot") as s:
            await call(s, "remember", text="Sister is called Wexleythorpe Frobnitz")
            pv = await call(s, "forget", matching="Wexleythorpe Frobnitz")
            asked = await call(s, "forget", matching="Wexleythorpe Frobnitz", preview=False)
            still = await call(s, "recall", query="Wexleythorpe")
            return pv, asked, still

    async def later():
        async with stdio_session(store, "bot") as s:
            after = await call(s, "recall", query="Wexleythorpe")
            again = await call(s, "remember", text="Sister is called Wexleythorpe Frobnitz")
            return after, again

    pv, asked, still = run(go)
    assert [f["content"] for f in pv[1]["would_forget"]] == [
        "Sister is called Wexleythorpe Frobnitz"
    ]
    assert asked[1]["queued"] is True
    assert len(still[1]["hits"]) == 1, "nothing goes before the user says so"
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        e.agent("bot").review.accept([asked[1]["request_id"]])  # the user approves
    after, again = run(later)
    assert after[1]["hits"] == []
    assert again[1] == {"id": None, "redacted_secrets": 0, "status": "blocked by a forget rule"}
    assert isolated.raw_hits([store], ["Wexleythorpe Frobnitz"]) == []


def test_review_setting_holds_mcp_writes_in_the_inbox(store):
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        set_review_required(e, "bot", True)

    async def go():
        async with stdio_session(store, "bot", client="gemini-cli") as s:
            r = await call(s, "remember", text="Works from Lisbon in winter")
            active = await call(s, "recall", query="Lisbon")
            pending = await call(s, "list_memories", status="pending")
            return r, active, pending

    r, active, pending = run(go)
    assert r[1]["status"] == "pending review"
    assert active[1]["hits"] == [], "waiting for review: not used yet"
    assert [i["content"] for i in pending[1]["items"]] == ["Works from Lisbon in winter"]
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        mem = e.agent("bot")
        [item] = mem.review.items()
        assert item.fact.id == r[1]["id"] and item.reason == "mcp"
        assert item.fact.metadata["review"]["client"] == "gemini-cli"
        mem.review.accept([item.fact.id])
        assert mem.get(item.fact.id).status == "active"


def test_context_and_compiled_memory_match_the_cli(store):
    from app.cli import main

    assert main(["--data-dir", str(store), "compile", "--agent", "bot"]) == 0

    async def go():
        async with stdio_session(store, "bot") as s:
            ctx = await call(s, "get_context", query="when do deploys happen", budget=800)
            res = await s.read_resource("engram://bot/memory.md")
            return ctx, res.contents[0].text

    (err, block), memory_md = run(go)
    with Engram.open(StoreConfig(data_dir=store, semantic=False)) as e:
        mem = e.agent("bot")
        assert block == build_context(mem, "when do deploys happen", budget=800)
        from services.lifecycle.compile import latest_layers

        assert memory_md == latest_layers(mem)["memory"].markdown
    assert "Deploys happen on Tuesdays" in block and "Deploys happen on Tuesdays" in memory_md


def test_a_write_over_mcp_is_seen_by_an_open_app(store):
    """The desktop app polls PRAGMA data_version (ui/store_watcher.py): an MCP server's commit
    from another process must change it and the new fact must be readable at once."""
    app = Engram.open(StoreConfig(data_dir=store, semantic=False))
    try:
        mem = app.agent("bot")
        before = app.data_version()

        async def go():
            async with stdio_session(store, "bot") as s:
                return await call(s, "remember", text="Keeps standups under ten minutes")

        _, res = run(go)
        assert app.data_version() != before
        assert mem.get(res["id"]).content == "Keeps standups under ten minutes"
    finally:
        app.close()


def test_http_needs_the_bearer_token_and_a_local_origin(store):
    port = free_port()
    proc = start_http(store, "bot", port)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        token_file = store / "mcp-token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = subprocess.run(
            [sys.executable, "-m", "app.cli", "--data-dir", str(store), "mcp", "token"],
            capture_output=True,
            text=True,
            env=server_env(),
            cwd=str(ROOT),
            check=True,
        ).stdout.strip()
        assert token == token_file.read_text().strip() and len(token) >= 32
        hello = initialize("curl")
        accept = {"Accept": "application/json, text/event-stream"}
        assert httpx.post(url, json=hello, headers=accept).status_code == 401
        bad = {**accept, "Authorization": "Bearer wrong"}
        assert httpx.post(url, json=hello, headers=bad).status_code == 401
        evil = {**accept, "Authorization": f"Bearer {token}", "Origin": "http://evil.example"}
        assert httpx.post(url, json=hello, headers=evil).status_code == 403

        async def go():
            async with http_session(url, token, client="cursor") as s:
                names = {t.name for t in (await s.list_tools()).tools}
                r = await call(s, "remember", text="Uses pnpm workspaces")
                hits = await call(s, "recall", query="pnpm")
                return names, r, hits

        names, r, hits = run(go)
        assert names == TOOLS
        assert r[1]["status"] == "added"
        assert [h["content"] for h in hits[1]["hits"]] == ["Uses pnpm workspaces"]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    with Engram.open(StoreConfig(data_dir=store, semantic=False)):
        actors = {a.actor for a in AuditEvent.select().where(AuditEvent.fact_id == r[1]["id"])}
    assert "mcp:cursor" in actors


def test_http_refuses_an_address_that_is_not_loopback(store):
    res = subprocess.run(
        [sys.executable, *server_args(store, "bot", "--http", "0.0.0.0:8765")],
        capture_output=True,
        text=True,
        env=server_env(),
        cwd=str(ROOT),
        timeout=60,
    )
    assert res.returncode == 1 and "loopback" in res.stderr
    assert Path(store, "mcp-token").exists() is False

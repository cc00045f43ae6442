"""Issue 31, finding 12: the MCP server syncs when it runs long, as `engram serve` does (the
same rounds, app/serve_sync.py), its first round one period after it starts. Two machines
(two data dirs) and one real PostgreSQL; the desktop's agent talks to `engram mcp` over
stdio through the official SDK client, the laptop uses the CLI."""

from __future__ import annotations

import sys
import time

import anyio

from tests.integration.mcp_client import ROOT, call, server_args, server_env
from tests.teamstore.test_sync_fields import _fact, _ok, _two_machines

STANDUP = "The weekly standup is on Tuesdays at half past nine"
DESK = "The desk booking opens on Fridays at noon"
COFFEE = "The coffee machine on floor three is fixed"


def test_a_long_running_mcp_server_pushes_its_agents_writes_and_pulls_the_others(
    own_server, tmp_path, monkeypatch, capsys
):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.types import Implementation

    a, b = _two_machines(own_server, tmp_path, monkeypatch, capsys, STANDUP)
    env = {k: v for k, v in server_env().items() if k not in ("ENGRAM_SYNC_URL",)}
    # a round every 3 s so the test need not wait minutes
    params = StdioServerParameters(
        command=sys.executable,
        args=server_args(b, "notes", "--sync-every", "0.05"),
        env=env,
        cwd=str(ROOT),
    )
    errpath = tmp_path / "mcp.err"

    def laptop_sees(text: str) -> bool:
        deadline = time.monotonic() + 90  # rounds run in a child process on a busy machine
        while time.monotonic() < deadline:
            _ok(capsys, a, "sync")
            if _fact(capsys, a, text) is not None:
                return True
            time.sleep(1)
        return False

    async def go():
        with open(errpath, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (r, w):
                info = Implementation(name="claude-code", version="1.0")
                async with ClientSession(r, w, client_info=info) as s:
                    await s.initialize()
                    err, got = await call(s, "remember", text=DESK)
                    assert not err, got
                    # the agent's write reaches the other machine without anyone syncing here
                    pushed = await anyio.to_thread.run_sync(laptop_sees, DESK)
                    # and the other machine's write reaches the agent
                    _ok(capsys, a, "remember", "--agent", "notes", COFFEE)
                    _ok(capsys, a, "sync")
                    deadline = time.monotonic() + 90
                    seen: list[str] = []
                    while COFFEE not in seen and time.monotonic() < deadline:
                        await anyio.sleep(1)
                        err, got = await call(s, "list_memories")
                        assert not err, got
                        seen = [m["content"] for m in got["items"]]
                    return pushed, seen

    pushed, seen = anyio.run(go)
    assert pushed, "the laptop never saw the desktop agent's write"
    assert COFFEE in seen and DESK in seen and STANDUP in seen, seen
    err = errpath.read_text("utf-8")
    assert "engram: syncing with" in err and "engram: sync: pushed" in err, err

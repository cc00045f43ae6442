"""Driving `engram mcp` the way an agent does: the official SDK's client, over stdio (the server
spawned as `python -m app.cli mcp ...`) or Streamable HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).strip(
        os.pathsep
    )
    env["ANONYMIZED_TELEMETRY"] = "False"
    return env


def server_args(data: Path, agent: str, *extra: str, keyword: bool = True) -> list[str]:
    args = ["-m", "app.cli", "--data-dir", str(data), "mcp", "--agent", agent, *extra]
    return args + (["--keyword"] if keyword else [])


@asynccontextmanager
async def stdio_session(
    data: Path, agent: str, client: str = "claude-code", keyword=True, version="1.0", **session
):
    """A client session with ``engram mcp`` over stdio, initialized (the server's answer is
    ``session.engram_init``); ``session`` goes to the SDK's ClientSession (an elicitation
    callback, a message handler)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.types import Implementation

    params = StdioServerParameters(
        command=sys.executable,
        args=server_args(data, agent, keyword=keyword),
        env=server_env(),
        cwd=str(ROOT),
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w):
            info = Implementation(name=client, version=version)
            async with ClientSession(r, w, client_info=info, **session) as s:
                s.engram_init = await s.initialize()  # type: ignore[attr-defined]
                yield s


async def call(session, tool: str, **arguments):
    """(is_error, payload): the tool's JSON result, or its error text."""
    res = await session.call_tool(tool, arguments)
    text = res.content[0].text if res.content else ""
    if res.is_error:
        return True, text
    try:
        return False, json.loads(text)
    except json.JSONDecodeError:
        return False, text


def initialize(client: str, version: str = "1") -> dict:
    """The JSON-RPC ``initialize`` a client sends first, as raw bytes would carry it."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": client, "version": version},
        },
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http(data: Path, agent: str, port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, *server_args(data, agent, "--http", f"127.0.0.1:{port}")],
        env=server_env(),
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "server exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the HTTP server did not start")


@asynccontextmanager
async def http_session(url: str, token: str, client: str = "cursor"):
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.types import Implementation

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url, http_client=http) as (r, w):
            info = Implementation(name=client, version="1.0")
            async with ClientSession(r, w, client_info=info) as s:
                await s.initialize()
                yield s

"""Issue #30: what the person is asked over MCP, and which server a client may reach.

- The forget question (MCP elicitation) lists what would go, not only a count.
- ``delete_memory`` asks the person like ``forget`` does; a "no" deletes nothing.
- A server configured for an agent that was removed fails before the handshake, with a
  clear error and a non-zero exit, so the client shows it failed instead of Connected.

The real `engram mcp` over stdio, driven by the official SDK client; the client's user is
the elicitation callback (the only fake: it stands for a person clicking in the client)."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import asynccontextmanager

import anyio
import pytest

from services.config import StoreConfig
from services.engram import Engram
from tests.integration.mcp_client import (
    ROOT,
    call,
    initialize,
    server_args,
    server_env,
    stdio_session,
)

SUBJECT = "Wexleythorpe Frobnitz"
ABOUT = [f"{SUBJECT} note {i}: the rent for month {i} was paid late" for i in range(1, 13)]
OTHER = [f"Unrelated fact number {i} about the garden" for i in range(1, 41)]


@pytest.fixture
def store(tmp_path):
    data = tmp_path / "store"
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        m = e.agent("bot", create=True)
        for text in [*ABOUT, *OTHER]:
            m.remember(text)
    return data


def _contents(data) -> list[str]:
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        return [f.content for f in e.agent("bot").list(limit=1000)]


@asynccontextmanager
async def session(data, elicitation):
    async with stdio_session(data, "bot", elicitation_callback=elicitation) as s:
        yield s


def person(asked: list[str], action: str, content: dict | None = None):
    """The client's user: reads the question, answers ``action``."""
    from mcp.types import ElicitResult

    async def elicit(context, params):
        asked.append(params.message)
        return ElicitResult(action=action, content=content)

    return elicit


def test_the_forget_question_lists_each_memory_that_would_go(store):
    asked: list[str] = []

    async def go():
        async with session(store, person(asked, "decline")) as s:
            return await call(s, "forget", matching=SUBJECT, preview=False)

    err, out = anyio.run(go)
    assert not err and out["forgotten"] is False
    [question] = asked
    assert "12 memories" in question
    shown = [t for t in ABOUT if t in question]
    assert shown == ABOUT[:10]  # capped, in the order they were stored
    assert "+2 more" in question
    assert not any(t in question for t in OTHER)
    assert sorted(_contents(store)) == sorted([*ABOUT, *OTHER])  # "no" erased nothing


def _fact_id(data, text: str) -> int:
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        return next(f.id for f in e.agent("bot").list(limit=1000) if f.content == text)


def _waiting(data) -> list:
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        return [f for f in e.agent("bot").list(limit=1000) if f.status == "pending"]


def test_delete_memory_asks_the_person_and_no_deletes_nothing(store):
    target = OTHER[3]
    fid = _fact_id(store, target)
    asked: list[str] = []

    async def go(action, content=None):
        async with session(store, person(asked, action, content)) as s:
            return await call(s, "delete_memory", id=fid)

    err, no = anyio.run(go, "decline")
    assert not err and no["deleted"] is False and "declined" in no["status"]
    assert target in _contents(store) and _waiting(store) == []
    assert len(asked) == 1 and target in asked[0] and f"#{fid}" in asked[0]

    err, no = anyio.run(go, "accept", {"delete": False})
    assert not err and no["deleted"] is False
    assert target in _contents(store)

    err, yes = anyio.run(go, "accept", {"delete": True})
    assert not err and yes["deleted"] is True, yes
    assert target not in _contents(store)
    assert sorted(_contents(store)) == sorted([*ABOUT, *(t for t in OTHER if t != target)])
    assert len(asked) == 3


INIT = initialize("claude-code", "1.0")


def _start(data) -> subprocess.CompletedProcess:
    """What `claude mcp list` does: start the server, send initialize, read the answer."""
    return subprocess.run(
        [sys.executable, *server_args(data, "bot")],
        input=(json.dumps(INIT) + "\n").encode(),
        capture_output=True,
        env=server_env(),
        cwd=str(ROOT),
        timeout=50,
    )


def _cli(data, *args) -> None:
    subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(data), *args],
        check=True,
        capture_output=True,
        env=server_env(),
        cwd=str(ROOT),
        timeout=50,
    )


@pytest.mark.parametrize("how", ["trash", "emptied"])
def test_a_server_for_a_removed_agent_fails_before_the_handshake(store, how):
    first = _start(store)  # a working start: the handshake is recorded for fast starts
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "engram"
    _cli(store, "agent", "remove", "bot")
    if how == "emptied":
        _cli(store, "agent", "trash", "--empty", "--yes")

    got = _start(store)
    assert got.returncode != 0
    assert b'"result"' not in got.stdout  # no answer to initialize: the client sees a failure
    err = got.stderr.decode()
    assert "bot" in err and ("trash" in err if how == "trash" else "no agent" in err), err

"""Issue 36: *Pause capture* (an incognito session) and the read log, through the paths the
agents take: the real `engram mcp` over stdio driven by the official SDK client, the CLI's
`engram agent pause|resume`, and `engram hook-run` fed a real Claude Code hook JSON. Nothing
is faked."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio

from services.config import StoreConfig
from services.engram import Engram
from services.store.read_log import reads
from tests.integration.mcp_client import call, stdio_session
from tests.processes import run_engram

SECRET_ISH = "Incognito plan: surprise party for Dana at Quillfeather Hall"


def _engram(*args: str, data: Path, stdin: str = "") -> subprocess.CompletedProcess:
    return run_engram("app.cli", "--data-dir", str(data), *args, stdin=stdin)


def _store_bytes(data: Path) -> bytes:
    """Every byte of the store's database files (the WAL too)."""
    return b"".join(p.read_bytes() for p in sorted(data.glob("engram.db*")) if p.is_file())


def _setup(tmp_path: Path) -> Path:
    data = tmp_path / "store"
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        m = e.agent("bot", create=True, kind="claude-code")
        m.remember("Prefers pnpm over npm for JavaScript projects")
        m.remember("The garden hose is in the shed")
    return data


def test_pause_stops_mcp_remember_and_resume_lets_it_write(tmp_path):
    data = _setup(tmp_path)
    res = _engram("agent", "pause", "bot", data=data)
    assert res.returncode == 0, res.stderr
    assert "Capture paused for bot" in res.stdout

    async def remember() -> dict:
        async with stdio_session(data, "bot") as s:
            err, out = await call(s, "remember", text=SECRET_ISH)
            assert not err, out
            return out

    out = anyio.run(remember)
    assert out["id"] is None and "paused" in out["status"]
    assert SECRET_ISH.encode() not in _store_bytes(data)
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        assert [f.content for f in e.agent("bot").list()] == [
            "The garden hose is in the shed",
            "Prefers pnpm over npm for JavaScript projects",
        ]

    res = _engram("agent", "resume", "bot", "--json", data=data)
    assert json.loads(res.stdout) == {"slug": "bot", "capture_paused": False}
    out = anyio.run(remember)
    assert out["status"] == "added" and out["id"]
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        assert e.agent("bot").get(out["id"]).content == SECRET_ISH


def test_a_paused_agents_session_end_hook_writes_nothing(tmp_path):
    data = _setup(tmp_path)
    assert _engram("agent", "pause", "bot", data=data).returncode == 0
    tr = tmp_path / "s1.jsonl"
    turn = {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "parentUuid": None,
        "timestamp": "2026-11-20T10:00:00.000Z",
        "cwd": "/home/u/proj",
        "message": {"role": "user", "content": f"Remember this: {SECRET_ISH}. I prefer tea."},
    }
    tr.write_text(json.dumps(turn) + "\n")
    hook = {"session_id": "s1", "transcript_path": str(tr), "hook_event_name": "SessionEnd"}
    res = _engram(
        "hook-run", "claude-code", "--agent", "bot", "--json", data=data, stdin=json.dumps(hook)
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["facts_added"] == 0
    assert b"Quillfeather" not in _store_bytes(data)


def test_reads_through_mcp_and_the_prompt_hook_are_logged_per_channel(tmp_path):
    data = _setup(tmp_path)

    async def read() -> None:
        async with stdio_session(data, "bot") as s:
            err, out = await call(s, "recall", query="garden hose")
            assert not err and out["hits"], out
            err, out = await call(s, "get_context", query="pnpm for JavaScript")
            assert not err and "pnpm" in str(out), out

    anyio.run(read)
    prompt = {"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "npm or pnpm?"}
    res = _engram(
        "hook-run", "claude-code-context", "--agent", "bot", data=data, stdin=json.dumps(prompt)
    )
    assert res.returncode == 0 and "pnpm" in res.stdout, res.stderr
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        m = e.agent("bot")
        log = [(r.channel, r.content) for r in reversed(reads(m.agent_id))]
    assert ("mcp recall", "The garden hose is in the shed") in log
    assert ("mcp get_context", "Prefers pnpm over npm for JavaScript projects") in log
    assert log[-1] == ("hook context", "Prefers pnpm over npm for JavaScript projects")

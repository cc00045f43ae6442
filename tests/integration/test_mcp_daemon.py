"""An MCP server asks the store's resident daemon for `recall` and `get_context` (its model is
loaded already), and an agent gets the same answers as from a server that works alone.

The real `engram mcp` subprocess with the model on, driven by the official SDK client over
stdio; a real `engram serve` process; the real store, Chroma and model on twin temp stores
(a recall counts as a use of its hits, a write: each side answers from the same state).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from services.config import StoreConfig
from services.engram import Engram
from tests.integration.mcp_client import call, server_env, stdio_session

ROOT = Path(__file__).resolve().parents[2]
FACT = "Deploys happen on Tuesdays after the standup"


@pytest.fixture
def stores(tmp_path_factory) -> tuple[Path, Path]:
    data = Path(tmp_path_factory.mktemp("m")) / "s"  # short: a Unix socket's path limit
    with Engram.open(StoreConfig(data_dir=data)) as e:
        assert e.semantic_enabled, e.semantic_error
        m = e.agent("bot", create=True)
        m.remember(FACT, category="rule")
        m.remember("The user keeps bees on the roof", category="fact")
        m.remember("Sam reviews the billing code", category="fact")
    twin = Path(tmp_path_factory.mktemp("t")) / "s"
    shutil.copytree(data, twin)
    return data, twin


@pytest.fixture
def daemon(stores):
    from services.integrations.daemon import request

    data = stores[0]
    env = {k: v for k, v in server_env().items() if k != "ENGRAM_NO_DAEMON"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "--data-dir", str(data), "serve"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 180
    while not (request(data, {"op": "ping"}, timeout=5) or {}).get("semantic"):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("engram serve did not come up")
        time.sleep(0.3)
    yield proc
    proc.terminate()
    proc.wait(timeout=60)


async def _session(data: Path):
    async with stdio_session(data, "bot", keyword=False) as s:
        # no word in common with the fact: only the vectors find it
        first = await call(s, "recall", query="which weekday do we ship releases", k=3)
        block = await call(s, "get_context", query="when do deploys happen", budget=300)
        project = await call(s, "recall_in_project", query="billing", project="nope")
        bad = await call(s, "recall", query="bees", mode="fuzzy")  # the daemon's error
        return first, block, project, bad


def test_recall_and_context_come_from_the_daemon_and_equal_a_server_alone(stores, daemon):
    data, twin = stores
    with_daemon = anyio.run(_session, data)
    daemon.terminate()
    daemon.wait(timeout=60)
    alone = anyio.run(_session, twin)

    assert with_daemon == alone
    err, first = with_daemon[0]
    assert not err and first["hits"][0]["content"] == FACT
    assert first["keyword_only"] is False and first["pipeline"] in ("hybrid", "hybrid+rerank")
    err, block = with_daemon[1]
    assert not err and FACT in block
    err, bad = with_daemon[3]
    assert err and "mode must be auto, hybrid, keyword or semantic" in bad

    # who answered: the daemon's own log lines (its serving thread), on its store only
    served = (data / "logs" / "engram.log").read_text()
    assert served.count("engram-daemon services.integrations.mcp.resident: answered MCP") == 3
    assert "answered MCP" not in (twin / "logs" / "engram.log").read_text()
    assert not os.path.exists(data / "engram.sock")

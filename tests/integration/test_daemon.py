"""`engram serve`: the real CLI, run as an agent's hook runs it, against a real daemon process.

While the daemon runs, the CLI hands it hooks and recall/remember (it answers with the model
loaded, so a near-duplicate is merged); when it is gone, the CLI does the work itself, and
facts stored without the model get their vectors before any semantic search or verify.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from tests.processes import engram_in as engram
from tests.processes import start_engram


def _ping(data: Path) -> dict | None:
    from services.integrations.daemon import request

    return request(data, {"op": "ping"}, timeout=5)


@pytest.fixture
def store(tmp_path_factory) -> Path:
    # a short path: Unix socket paths are limited to ~104 bytes
    data = Path(tmp_path_factory.mktemp("d")) / "s"
    assert engram(data, "agent", "add", "claude").returncode == 0
    r = engram(data, "remember", "--agent", "claude", "I prefer dark mode in every editor")
    assert r.returncode == 0, r.stderr
    return data


@pytest.fixture
def daemon(store):
    proc = start_engram(store, "serve")
    deadline = time.monotonic() + 120
    while True:  # listening at once; the model loads behind it
        st = _ping(store)
        if st and st.get("semantic"):
            break
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"engram serve did not come up: {proc.stderr.read()}")
        time.sleep(0.2)
    yield proc
    proc.terminate()
    proc.wait(timeout=30)


def test_socket_is_owner_only_and_a_second_daemon_refuses(store, daemon):
    sock = store / "engram.sock"
    mode = sock.stat().st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    assert sock.stat().st_uid == os.getuid()
    r = engram(store, "serve")
    assert r.returncode == 1 and "already serves" in r.stderr


def test_prompt_hook_is_answered_by_the_daemon(store, daemon):
    hook = json.dumps({"prompt": "which theme do I like in my editor, dark mode?"})
    r = engram(store, "hook-run", "claude-code-context", "--agent", "claude", stdin=hook)
    assert r.returncode == 0, r.stderr
    assert "I prefer dark mode in every editor" in r.stdout
    assert r.stdout.startswith('<engram-memory agent="claude">')
    # the daemon holds the model: a remembered near-twin is merged, which a one-shot process
    # without the model cannot do
    r = engram(store, "remember", "--agent", "claude", "I prefer dark mode in all editors")
    assert r.returncode == 0, r.stderr
    assert "near-duplicate" in r.stderr or "superseded" in r.stderr or "supersedes" in r.stderr
    listed = json.loads(engram(store, "list", "--agent", "claude", "--json").stdout)
    assert len(listed) == 1
    # bad input through the daemon: the same one-line error and exit status as in-process
    r = engram(store, "recall", "--agent", "ghost", "x", "--mode", "keyword")
    assert (
        r.returncode == 1 and r.stderr.strip() == "engram: no agent 'ghost' (see `engram agents`)"
    )


def test_without_a_daemon_the_cli_runs_in_process_even_over_a_stale_socket(store, daemon):
    daemon.kill()  # no clean-up: the socket file stays behind
    daemon.wait()
    assert (store / "engram.sock").exists() and _ping(store) is None
    hook = json.dumps({"prompt": "dark mode editor"})
    r = engram(store, "hook-run", "claude-code-context", "--agent", "claude", stdin=hook)
    assert r.returncode == 0 and "I prefer dark mode in every editor" in r.stdout
    # and a new daemon takes the stale socket over
    proc = start_engram(store, "serve", "--keyword", stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while _ping(store) is None:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert not (store / "engram.sock").exists()  # a clean stop removes it


def test_facts_stored_without_the_model_get_vectors_before_semantic_search(tmp_path_factory):
    """A process without the model (here its files are missing) still stores the fact and
    owes its vector; the next process with the model fills the backlog, so hybrid search and
    verify stay right."""
    store = Path(tmp_path_factory.mktemp("b")) / "s"
    assert engram(store, "agent", "add", "claude").returncode == 0
    r = engram(
        store,
        "remember",
        "--agent",
        "claude",
        "I prefer dark mode in every editor",
        ENGRAM_MODEL_DIR=str(tmp_path_factory.mktemp("no-model")),
    )
    assert r.returncode == 0, r.stderr
    assert (store / "vector-backlog").exists()
    r = engram(store, "recall", "--agent", "claude", "night theme for coding tools", "--json")
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)
    assert hits and hits[0]["content"] == "I prefer dark mode in every editor"
    # found by meaning (no word in common), so it has its vector now
    assert hits[0]["raw"]["semantic_rank"] == 1 and hits[0]["raw"]["cosine"] > 0.3
    assert not (store / "vector-backlog").exists()
    r = engram(store, "remember", "--agent", "claude", "Deploys happen on Tuesdays")
    assert r.returncode == 0
    v = engram(store, "verify")
    assert v.returncode == 0, v.stdout + v.stderr


def test_the_running_app_serves_the_prompt_hook(store):
    """While the desktop app runs it answers hooks too (app/main.py starts the same server)."""
    proc = start_engram(
        store,
        "--no-tray",
        module="app.main",
        stderr=subprocess.DEVNULL,
        QT_QPA_PLATFORM="offscreen",
    )
    try:
        deadline = time.monotonic() + 120
        while (st := _ping(store)) is None or st.get("pid") != proc.pid:
            assert proc.poll() is None and time.monotonic() < deadline, "the app did not serve"
            time.sleep(0.3)
        hook = json.dumps({"prompt": "which editor theme, dark mode?"})
        r = engram(store, "hook-run", "claude-code-context", "--agent", "claude", stdin=hook)
        assert r.returncode == 0, r.stderr
        assert "I prefer dark mode in every editor" in r.stdout
        r = engram(store, "remember", "--agent", "claude", "The app was open when this was said")
        assert r.returncode == 0 and r.stdout.strip().isdigit()
    finally:
        proc.kill()
        proc.wait(timeout=30)
    listed = json.loads(engram(store, "list", "--agent", "claude", "--json").stdout)
    assert "The app was open when this was said" in [f["content"] for f in listed]


def test_restore_refuses_while_the_store_is_served(store, daemon):
    """Replacing the database under a running Engram would lose what it writes next."""
    r = engram(store, "backup", "--json")
    assert r.returncode == 0, r.stderr
    name = json.loads(r.stdout)["name"]
    r = engram(store, "restore", name, "--yes")
    assert r.returncode == 1
    assert "Engram is running on this store" in r.stderr
    assert not any(p.name.startswith(".engram.db") for p in store.iterdir())  # nothing staged
    listed = json.loads(engram(store, "backup", "--list", "--json").stdout)
    assert [b["reason"] for b in listed] == ["manual"]  # no before-restore copy either

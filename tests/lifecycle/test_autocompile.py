"""Compiled layers follow every change (issue 20 item 3): memory.md, which the agent loads at
the start of each session, and the Cursor rule made from it reflect a write, an edit, a
delete and a forget without anyone running `engram compile`: at the end of a CLI command, and
within seconds in a long-running process (the MCP server, the app)."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from models import CompiledLayer
from services.config import StoreConfig
from services.engram import Engram
from tests.integration.mcp_client import call, stdio_session


def _memory_md(store: Path, agent: str) -> str:
    p = store / "agents" / agent / "memory.md"
    return p.read_text(encoding="utf-8") if p.exists() else ""


def test_cli_write_edit_delete_and_forget_reach_memory_md_without_compile(cli, tmp_path):
    store = tmp_path / "cli-store"
    rc, out, err = cli(
        "remember", "--agent", "me", "--create-agent", "Prefers Fira Code in the editor"
    )
    assert rc == 0, err
    fid = out.strip().split()[0]
    assert "Prefers Fira Code in the editor" in _memory_md(store, "me")

    rc, _, err = cli("edit", fid, "--content", "Prefers JetBrains Mono in the editor")
    assert rc == 0, err
    md = _memory_md(store, "me")
    assert "JetBrains Mono" in md and "Fira Code" not in md

    rc, out, err = cli("remember", "--agent", "me", "Keeps a sourdough starter named Clint")
    assert rc == 0, err
    assert "sourdough starter named Clint" in _memory_md(store, "me")
    rc, _, err = cli(
        "forget", "--agent", "me", "--matching", "sourdough starter", "--keyword-only", "--yes"
    )
    assert rc == 0, err
    md = _memory_md(store, "me")
    assert "sourdough" not in md and "JetBrains Mono" in md

    rc, _, err = cli("delete", fid, "--yes")
    assert rc == 0, err
    assert "JetBrains Mono" not in _memory_md(store, "me")


def test_a_command_that_changes_nothing_compiles_nothing(cli, tmp_path):
    rc, _, err = cli("remember", "--agent", "me", "--create-agent", "Uses fish as the shell")
    assert rc == 0, err
    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store", semantic=False)):
        before = CompiledLayer.select().count()
    assert before > 0
    for args in (
        ("list", "--agent", "me"),
        ("remember", "--agent", "me", "Uses fish as the shell"),
    ):
        rc, _, err = cli(*args)  # a read; a restatement that only bumps the same fact
        assert rc == 0, err
    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store", semantic=False)):
        assert CompiledLayer.select().count() == before


def test_the_installed_cursor_rule_follows_a_write(cli, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    rc, _, err = cli("remember", "--agent", "cursor", "--create-agent", "Prefers Vitest over Jest")
    assert rc == 0, err
    rc, _, err = cli(
        "hooks",
        "install",
        "cursor",
        "--agent",
        "cursor",
        "--project",
        str(project),
        "--home",
        str(tmp_path / "home"),
        "--yes",
    )
    assert rc == 0, err
    rule = project / ".cursor" / "rules" / "engram-memory.mdc"
    assert "Prefers Vitest over Jest" in rule.read_text()
    rc, _, err = cli("remember", "--agent", "cursor", "Runs the dev server on port 5173")
    assert rc == 0, err
    assert "port 5173" in rule.read_text()
    # a rule the user edited is theirs: it is not overwritten
    rule.write_text(rule.read_text() + "\nMy own note.\n")
    rc, _, err = cli("remember", "--agent", "cursor", "Deploys previews to Netlify")
    assert rc == 0, err
    text = rule.read_text()
    assert "My own note." in text and "Netlify" not in text


def test_a_long_running_process_recompiles_a_moment_after_a_write(tmp_path):
    with Engram.open(StoreConfig(data_dir=tmp_path / "s", semantic=False)) as e:
        e.follow_changes("debounce", delay=0.2)
        mem = e.agent("app", create=True)
        mem.remember("Writes commit messages in the imperative mood")
        deadline = time.monotonic() + 10
        while "imperative mood" not in _memory_md(tmp_path / "s", "app"):
            assert time.monotonic() < deadline, "memory.md did not follow the write"
            time.sleep(0.1)


def test_a_recompile_a_quitting_window_left_is_done_by_the_next_command(cli, tmp_path, monkeypatch):
    """The app quits without waiting for a long recompile (issue 36): it is written down in
    the data dir and the next process that follows changes, here a CLI command, does it."""
    from services.lifecycle import autocompile

    store = tmp_path / "cli-store"
    rc, _, err = cli("remember", "--agent", "me", "--create-agent", "Uses fish as the shell")
    assert rc == 0, err
    # no grace: the recompile is never done before the quit, whatever this machine's speed
    monkeypatch.setattr(autocompile, "QUIT_GRACE_S", 0.0)
    e = Engram.open(StoreConfig(data_dir=store, semantic=False))
    e.follow_changes("debounce", delay=30)  # the app's window, its last write just made
    e.agent("me").remember("Prefers tabs over spaces in Go files")
    e.close(quick=True)
    assert (store / "compile-owed.json").exists()
    assert "tabs over spaces" not in _memory_md(store, "me")

    rc, out, err = cli("recall", "--agent", "me", "--mode", "keyword", "fish")
    assert rc == 0, err
    md = _memory_md(store, "me")
    assert "Prefers tabs over spaces in Go files" in md and "Uses fish as the shell" in md
    assert not (store / "compile-owed.json").exists()


@pytest.mark.slow  # an MCP server in-process and a debounce wait
def test_an_mcp_write_reaches_memory_md_within_seconds(tmp_path):
    data = tmp_path / "store"
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        e.agent("bot", create=True)

    async def go():
        async with stdio_session(data, "bot") as s:
            err, res = await call(s, "remember", text="The staging cluster runs in Frankfurt")
            assert not err, res
            # while the server is still running: the debounced recompile, not the one at exit
            await _until(lambda md: "staging cluster runs in Frankfurt" in md)
            err, res = await call(
                s, "update_memory", id=res["id"], text="The staging cluster runs in Dublin"
            )
            assert not err, res
            await _until(lambda md: "runs in Dublin" in md and "Frankfurt" not in md)

    async def _until(ok):
        deadline = time.monotonic() + 15
        while not ok(_memory_md(data, "bot")):
            assert time.monotonic() < deadline, "memory.md did not follow the MCP call"
            await anyio.sleep(0.2)

    anyio.run(go)


def test_recompiling_after_every_write_keeps_a_bounded_history(tmp_path):
    from services.lifecycle.autocompile import KEEP_HISTORY

    with Engram.open(StoreConfig(data_dir=tmp_path / "s", semantic=False)) as e:
        e.follow_changes("sync")
        mem = e.agent("app", create=True)
        for i in range(KEEP_HISTORY + 5):
            mem.remember(f"Release {i} shipped with changelog entry {i}")
            assert e.recompile_now() == ["app"]
        assert f"changelog entry {KEEP_HISTORY + 4}" in _memory_md(tmp_path / "s", "app")
        for layer in ("today", "week", "longterm", "memory"):
            n = CompiledLayer.select().where(CompiledLayer.layer == layer).count()
            assert n == KEEP_HISTORY, layer

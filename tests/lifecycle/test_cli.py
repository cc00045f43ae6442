"""The lifecycle CLI commands on a real store in a temp dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from tests.cli_runs import engram_cli


def test_ingest_compile_gc(tmp_path, capsys, transcript):
    d = str(tmp_path / "store")
    path = str(transcript(7))
    rc, out, _ = engram_cli(capsys, d, "ingest-session", "--agent", "claude", path)
    assert rc == 0 and "7 turns, 2 episodes added, 4 facts added" in out
    rc, out, _ = engram_cli(
        capsys,
        d,
        "ingest-session",
        "--agent",
        "claude",
        path,
        "--session-id",
        "gen-1",
        "--json",
    )
    data = json.loads(out)
    assert rc == 0 and data["already_processed"] and data["facts_added"] == 0

    rc, out, _ = engram_cli(capsys, d, "compile", "--agent", "claude")
    assert rc == 0 and out.strip().endswith("agents/claude/memory.md")
    assert "I prefer pnpm over npm" in open(out.strip(), encoding="utf-8").read()
    rc, out, _ = engram_cli(
        capsys,
        d,
        "remember",
        "--agent",
        "claude",
        "Deploys happen on Tuesdays",
        "--category",
        "fact",
    )
    # the write recompiled memory.md on its own (compiled layers follow every change), so an
    # explicit compile right after it has nothing left to change
    md = Path(d) / "agents" / "claude" / "memory.md"
    assert "- Deploys happen on Tuesdays\n" in md.read_text(encoding="utf-8")
    rc, out, _ = engram_cli(capsys, d, "compile", "--agent", "claude", "--diff")
    assert rc == 0 and "(no change)" in out
    rc, out, _ = engram_cli(capsys, d, "compile", "--agent", "claude", "--json")
    layers = json.loads(out)["layers"]
    assert {k: v["budget"] for k, v in layers.items()} == {
        "today": 2000,
        "week": 1500,
        "longterm": 1000,
        "memory": 2500,
    }
    assert all(0 < v["tokens"] <= v["budget"] for v in layers.values())

    rc, out, _ = engram_cli(
        capsys,
        d,
        "gc",
        "--agent",
        "claude",
        "--now",
        "2026-06-01",
        "--dry-run",
        "--json",
    )
    rep = json.loads(out)
    assert rc == 0 and rep["dry_run"] and rep["expired"] == 4
    rc, out, _ = engram_cli(capsys, d, "gc", "--agent", "claude", "--now", "2026-06-01", "--yes")
    assert rc == 0 and "4 expired" in out and "'task' facts live 14 days" in out
    rc, out, _ = engram_cli(capsys, d, "list", "--agent", "claude", "--status", "active")
    assert "pnpm" not in out


def test_cli_errors_are_one_line(tmp_path, capsys):
    d = str(tmp_path / "store")
    rc, _, err = engram_cli(
        capsys, d, "ingest-session", "--agent", "a", str(tmp_path / "missing.jsonl")
    )
    assert rc == 1 and "no such transcript" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as exc:
        main(["--data-dir", d, "gc", "--agent", "a", "--now", "tomorrow"])
    assert exc.value.code == 2 and "not a date like 2026-05-01" in capsys.readouterr().err
    rc, _, err = engram_cli(capsys, d, "compile", "--agent", "nobody")
    assert rc == 1 and "no agent 'nobody'" in err


def test_two_hook_processes_ingest_a_session_once(tmp_path, transcript):
    """Hooks fire twice, as separate processes: exactly one of them ingests."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    d = str(tmp_path / "store")
    path = str(transcript(8))
    cmd = [
        sys.executable,
        "-m",
        "app.cli",
        "--data-dir",
        d,
        "ingest-session",
        "--agent",
        "claude",
        path,
        "--json",
    ]
    procs = [
        subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    reports = [json.loads(o) for o, _ in outs]
    assert sorted(r["already_processed"] for r in reports) == [False, True]
    assert sum(r["episodes_added"] for r in reports) == 2
    from services.config import StoreConfig
    from services.engram import Engram

    with Engram.open(StoreConfig(data_dir=tmp_path / "store", semantic=False)) as e:
        assert len(e.agent("claude").episodes.list()) == 2

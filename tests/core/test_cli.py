"""The `engram` CLI as agents' hooks use it: ids on stdout, JSON, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_remember_list_show_recall_roundtrip(cli):
    assert cli("agent", "add", "claude", "--kind", "claude-code")[0] == 0
    rc, out, _ = cli(
        "remember",
        "--agent",
        "claude",
        "Prefers pnpm over npm",
        "--category",
        "pref",
        "--importance",
        "0.8",
        "--pin",
    )
    assert rc == 0
    fid = int(out.strip())
    rc, out, err = cli("remember", "--agent", "claude", "prefers pnpm over NPM.")
    assert rc == 0 and int(out.strip()) == fid and "duplicate" in err

    rc, out, _ = cli("list", "--agent", "claude", "--json")
    facts = json.loads(out)
    assert [(f["id"], f["category"], f["pinned"], f["importance"]) for f in facts] == [
        (fid, "pref", True, pytest.approx(0.82))
    ]

    rc, out, _ = cli("recall", "--agent", "claude", "which package manager", "--json")
    hits = json.loads(out)
    assert hits[0]["id"] == fid
    assert set(hits[0]["signals"]) >= {"keyword", "semantic", "recency", "importance"}

    rc, out, _ = cli("show", str(fid), "--json")
    shown = json.loads(out)
    assert shown["agent"] == "claude" and shown["history"][0]["action"] == "create"


def test_edit_pin_unpin_delete(cli):
    cli("agent", "add", "a")
    fid = cli("remember", "--agent", "a", "Uses Emacs")[1].strip()
    assert cli("edit", fid, "--content", "Uses Helix")[0] == 0
    assert cli("unpin", fid)[0] == 0
    assert json.loads(cli("show", fid, "--json")[1])["content"] == "Uses Helix"
    assert cli("delete", fid, "--yes")[0] == 0
    rc, out, err = cli("show", fid)
    assert rc == 1 and err.startswith("engram: no fact") and "Traceback" not in err


@pytest.mark.parametrize(
    "args,needle",
    [
        (["list", "--agent", "ghost"], "no agent 'ghost'"),
        (["remember", "--agent", "ghost", "x"], "no agent 'ghost'"),
        (["import", "--agent", "a", "/nonexistent/path"], "no such file"),
        (["edit", "999", "--content", "x"], "no fact 999"),
        (["list", "--agent", "a", "--sort", "bogus"], "cannot sort"),
    ],
)
def test_errors_are_one_line_without_traceback(cli, args, needle):
    cli("agent", "add", "a")
    rc, out, err = cli(*args)
    assert rc != 0
    assert needle in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_export_json_and_markdown(cli, tmp_path):
    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "Never deploy on Fridays", "--category", "rule")
    out_json, out_md = tmp_path / "a.json", tmp_path / "MEMORY.md"
    assert cli("export", "--agent", "a", "--format", "json", str(out_json))[0] == 0
    assert json.loads(out_json.read_text())["facts"][0]["content"] == "Never deploy on Fridays"
    assert cli("export", "--agent", "a", "--format", "markdown", str(out_md))[0] == 0
    text = out_md.read_text()
    assert "\n§\n" in text and "][rule] Never deploy on Fridays" in text


def test_verify_detects_vector_deleted_behind_the_stores_back_and_repairs(cli, tmp_path):
    cli("agent", "add", "a")
    ids = [
        int(cli("remember", "--agent", "a", t)[1])
        for t in ("Likes hiking in the Alps", "Drinks green tea", "Builds keyboards")
    ]
    assert cli("verify")[0] == 0

    from app.settings import store_config
    from services.engram import Engram

    eng = Engram.open(store_config(tmp_path / "cli-store"))
    agent_id = eng.agent("a").agent_id
    eng.index.delete(agent_id, [ids[1]])  # behind the store's back
    eng.index.upsert(agent_id, [99999], ["an orphan"])
    eng.close()

    rc, out, _ = cli("verify", "--json")
    rep = json.loads(out)
    assert rc == 1
    assert rep["agents"][0]["missing_vectors"] == [ids[1]]
    assert rep["agents"][0]["orphan_vectors"] == [99999]
    assert cli("verify", "--repair")[0] == 0
    rc, out, _ = cli("verify", "--json")
    assert rc == 0 and json.loads(out)["ok"] is True


def test_installed_entry_point_runs_as_a_process(tmp_path):
    """What a hook runs: the console script in the venv, a separate process."""
    exe = Path(sys.executable).with_name("engram")
    if not exe.exists():
        pytest.skip("entry point not installed (pip install -e .)")
    env = {"ENGRAM_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run(
        [str(exe), "remember", "--agent", "hooky", "--create-agent", "Hook wrote this"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [str(exe), "list", "--agent", "hooky", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert json.loads(r.stdout)[0]["content"] == "Hook wrote this"

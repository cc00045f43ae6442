"""Issue #27 item 8 (my part): `engram mcp --agent typo` does not create `typo`; `engram list
--status all` lists every status and a bogus status is an error."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.integration.mcp_client import ROOT, server_env


def test_mcp_with_an_unknown_agent_names_the_agents_and_creates_nothing(cli, tmp_path):
    data = tmp_path / "cli-store"
    cli("agent", "add", "claude")
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(data), "mcp", "--agent", "cluade"],
        env=server_env(),
        cwd=str(ROOT),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "no agent 'cluade'" in err[0] and "claude" in err[0], err
    assert "--create" in err[0]
    rc, out, _ = cli("agents", "--json")
    assert [a["slug"] for a in json.loads(out)] == ["claude"]


def test_list_status_all_and_a_bogus_status(cli):
    cli("agent", "add", "claude")
    cli("remember", "--agent", "claude", "Alice works at Google")
    cli("remember", "--agent", "claude", "Alice works at Meta")  # supersedes the first
    rc, out, _ = cli("list", "--agent", "claude", "--status", "all", "--json")
    assert sorted(f["status"] for f in json.loads(out)) == ["active", "superseded"]
    rc, out, _ = cli("list", "--agent", "claude", "--status", "superseded")
    assert "Alice works at Google" in out and "Meta" not in out
    rc, out, err = cli("list", "--agent", "claude", "--status", "bogus")
    assert rc not in (0, None) and out == ""
    assert "unknown status 'bogus'" in err and "superseded" in err

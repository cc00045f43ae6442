"""Who wrote a memory and from where, on both backends; shown by `engram show`."""

from __future__ import annotations

import json

import pytest

from models.identity import set_origin

pytestmark = pytest.mark.backends("sqlite", "postgres")


def test_each_write_records_its_user_and_origin_and_get_shows_them(keyword_engram, monkeypatch):
    mem = keyword_engram.agent("team", create=True)
    monkeypatch.setenv("ENGRAM_USER", "ada@lab")
    set_origin("mcp:claude-desktop")
    try:
        fid = mem.remember("The nightly build runs at 02:00 UTC").fact_id
        monkeypatch.setenv("ENGRAM_USER", "grace@lab")
        set_origin("app")
        mem.edit(fid, content="The nightly build runs at 03:00 UTC")
    finally:
        set_origin(None)
    f = mem.get(fid)
    assert f.provenance == {
        "created_by": "ada@lab",
        "created_from": "mcp:claude-desktop",
        "changed_by": "grace@lab",
        "changed_from": "app",
    }
    hist = mem.facts.history(fid)
    assert [(h["action"], h["by_user"], h["origin"]) for h in hist][:2] == [
        ("create", "ada@lab", "mcp:claude-desktop"),
        ("edit", "grace@lab", "app"),
    ]


def test_the_default_user_is_the_os_user_at_host(keyword_engram, monkeypatch):
    import getpass
    import socket

    monkeypatch.delenv("ENGRAM_USER", raising=False)
    mem = keyword_engram.agent("team", create=True)
    fid = mem.remember("Deploys need two approvals").fact_id
    assert mem.get(fid).provenance["created_by"] == f"{getpass.getuser()}@{socket.gethostname()}"


def test_engram_show_prints_who_and_from_where(cli, monkeypatch):
    monkeypatch.setenv("ENGRAM_USER", "linus@desk")
    assert cli("agent", "add", "team")[0] == 0
    rc, out, err = cli("remember", "--agent", "team", "Use ruff for linting")
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "team", "--json")
    fid = json.loads(out)[0]["id"]
    rc, out, _ = cli("show", str(fid))
    assert "written by linus@desk from cli" in out
    rc, out, _ = cli("show", str(fid), "--json")
    assert json.loads(out)["provenance"]["created_from"] == "cli"


def test_a_write_over_mcp_records_the_client_as_its_origin(keyword_engram, monkeypatch):
    from services.integrations.mcp import memory as mcp_tools

    monkeypatch.setenv("ENGRAM_USER", "ada@lab")
    mem = keyword_engram.agent("team", create=True)
    out = mcp_tools.remember(mem, "The VPN config lives in ops/vpn", client="claude-desktop")
    prov = mem.get(out["id"]).provenance
    assert (prov["created_by"], prov["created_from"]) == ("ada@lab", "mcp:claude-desktop")

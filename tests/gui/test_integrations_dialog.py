"""The integrations dialog over a real store and a fake home: it shows which agents have the
MCP server registered in which app, and ticking/unticking edits that app's real config file."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QDialog

from services.integrations.mcp.review import review_required
from ui.integrations_dialog import REVIEW, IntegrationsDialog


def test_dialog_shows_and_switches_mcp_registration_per_agent(qtbot, keyword_engram, tmp_path):
    e = keyword_engram
    e.agent("work", create=True)
    e.agent("home", create=True)
    home = tmp_path / "home"
    cursor_cfg = home / ".cursor" / "mcp.json"
    cursor_cfg.parent.mkdir(parents=True)
    original = b'{"mcpServers": {"linear": {"url": "https://mcp.linear.app/sse"}}}\n'
    cursor_cfg.write_bytes(original)

    dlg = IntegrationsDialog(e, home=home)
    qtbot.addWidget(dlg)
    assert dlg.slugs == ["home", "work"]
    assert not dlg.is_checked("work", "cursor") and not dlg.is_checked("work", "gemini")

    dlg.set_checked("work", "cursor", True)
    servers = json.loads(cursor_cfg.read_bytes())["mcpServers"]
    assert set(servers) == {"linear", "engram-work"}
    assert servers["engram-work"]["args"][-3:] == ["mcp", "--agent", "work"]
    assert dlg.is_checked("work", "cursor") and not dlg.is_checked("home", "cursor")
    assert "Cursor now starts" in dlg.status.text()

    # a second dialog (the app reopened) reads the same state back from the manifest
    again = IntegrationsDialog(e, home=home)
    qtbot.addWidget(again)
    assert again.is_checked("work", "cursor")

    dlg.set_checked("work", REVIEW, True)
    assert review_required(e.agent("work")) and not review_required(e.agent("home"))

    dlg.set_checked("work", "cursor", False)
    assert cursor_cfg.read_bytes() == original
    assert not dlg.is_checked("work", "cursor")
    dlg.reject()
    assert dlg.result() == QDialog.DialogCode.Rejected


def test_a_broken_config_is_reported_not_rewritten(qtbot, keyword_engram, tmp_path):
    e = keyword_engram
    e.agent("work", create=True)
    home = tmp_path / "home"
    cfg = home / ".gemini" / "settings.json"
    cfg.parent.mkdir(parents=True)
    cfg.write_bytes(b'{"theme": "x" "y"}')
    dlg = IntegrationsDialog(e, home=home)
    qtbot.addWidget(dlg)
    dlg.set_checked("work", "gemini", True)
    assert "Not changed" in dlg.status.text() and "not valid JSON" in dlg.status.text()
    assert not dlg.is_checked("work", "gemini")
    assert cfg.read_bytes() == b'{"theme": "x" "y"}'

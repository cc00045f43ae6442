"""The window's status bar says when this computer's memory waits to sync, and its menu
opens the dialog that syncs it. The store tried a round while the server was unreachable
(the CLI a user or a cron job runs), so it has a queue and a problem to show."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_status_bar_shows_what_waits_and_opens_the_sync_dialog(engram, qtbot):
    from ui.main_window import MainWindow

    data = str(engram.config.data_dir)
    m = engram.agent("notes", create=True)
    m.remember("The spare bike key hangs behind the kitchen door")
    url = f"postgresql://nobody@127.0.0.1:{_free_port()}/engram"
    cli = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", data, "sync", "--server", url],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 3 and "offline: refused" in cli.stdout, cli  # the change queued

    w = MainWindow(engram, use_tray=False)
    qtbot.addWidget(w)
    w.show()
    try:
        ind = w.sync_indicator
        qtbot.waitUntil(lambda: ind.isVisible(), timeout=10_000)
        assert ind.text() == "⇅ 1 to sync (offline)"
        assert "refused" in ind.toolTip()

        seen = {}

        def look_and_close():
            d = QApplication.activeModalWidget()
            seen["title"] = d.windowTitle()
            seen["status"] = d.sync_box.status.text()
            seen["server"] = d.sync_box.server.text()
            d.reject()

        QTimer.singleShot(300, look_and_close)
        ind.click()
        assert seen["title"] == "Team store"
        assert "1 change waiting to be pushed" in seen["status"]
        assert seen["server"] == url  # the last round's server, ready for Sync now
        # a new memory while the app is open: the indicator follows the store
        m.remember("Recycling goes out on Thursday evenings")
        w.agents_ctl.on_store_changed()
        qtbot.waitUntil(lambda: ind.text() == "⇅ 2 to sync (offline)", timeout=10_000)
    finally:
        w.shutdown()

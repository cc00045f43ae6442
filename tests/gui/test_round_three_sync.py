"""Issue 36, finding 5: Cancel on a first "Sync now" does not leave the store syncing with
that server (no automatic rounds try it afterwards), and "Stop syncing" is the visible way
to stop syncing with a server. No PostgreSQL needed: one server is a port that accepts the
connection and never answers (the round waits, as with a server behind a dead proxy), the
other refuses it."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from services import store_syncs, sync_server

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]


def _drive_dialog(qtbot, window, steps, timeout_s=60):
    """Open the Team store dialog from the status bar/menu path and run ``steps`` (a
    generator given the dialog, yielding a condition to wait for) while it is modal."""
    state: dict = {}

    def tick():
        d = QApplication.activeModalWidget()
        if d is None or not hasattr(d, "sync_box"):
            QTimer.singleShot(20, tick)
            return
        if "gen" not in state:
            state["gen"] = steps(d)
            state["wait"] = lambda: True
            state["left"] = timeout_s * 50
        try:
            if state["wait"]():
                state["wait"] = next(state["gen"])
            state["left"] -= 1
            if state["left"] <= 0:
                state["error"] = AssertionError("the dialog step did not happen in time")
                d.reject()
                return
        except StopIteration:
            d.accept()
            return
        except Exception as exc:  # a failed check or a missing control: fail, not hang
            state["error"] = exc
            d.reject()
            return
        QTimer.singleShot(20, tick)

    QTimer.singleShot(0, tick)
    window.act_team_store.trigger()
    if "error" in state:
        raise state["error"]
    assert "gen" in state, "the Team store dialog did not open"


def test_cancel_on_a_first_sync_now_does_not_keep_the_server(window, engram, qtbot):
    engram.agent("notes", create=True).remember("The spare bike key hangs behind the door")
    silent = socket.socket()  # accepts (the kernel does), never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    url = f"postgresql://nobody@127.0.0.1:{silent.getsockname()[1]}/engram"
    seen: dict = {}
    try:

        def steps(d):
            box = d.sync_box
            box.server.setText(url)
            box.sync_button.click()
            yield lambda: box.cancel_button.isEnabled() and box.round.running()
            yield lambda: sync_server(engram.db) == url  # the round named the server
            box.cancel_button.click()
            yield lambda: box.sync_button.isEnabled()
            seen["result"] = box.result.text()
            seen["status"] = box.status.text()

        _drive_dialog(qtbot, window, steps)
    finally:
        silent.close()
    assert sync_server(engram.db) is None and not store_syncs(engram.db)
    assert not window.autosync.active, "no automatic round tries the cancelled server"
    assert "Cancelled: this computer's memory does not sync" in seen["result"]
    assert "Not syncing" in seen["status"]
    assert not window.sync_indicator.isVisible()


def test_stop_syncing_is_a_button_and_ends_the_automatic_rounds(engram, qtbot):
    from ui.main_window import MainWindow

    engram.agent("notes", create=True).remember("Recycling goes out on Thursday evenings")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://nobody@127.0.0.1:{port}/engram"
    data = str(engram.config.data_dir)
    cli = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", data, "sync", "--server", url],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 3, cli  # offline: the store now syncs with that server
    w = MainWindow(engram, use_tray=False)
    qtbot.addWidget(w, before_close_func=lambda w: w.shutdown())
    w.show()
    assert w.autosync.active
    qtbot.waitUntil(w.sync_indicator.isVisible, timeout=10_000)
    seen: dict = {}

    def steps(d):
        box = d.sync_box
        assert box.forget_button.isVisible() and box.forget_button.isEnabled()
        assert box.forget_button.accessibleName()
        box.forget_button.click()
        yield lambda: True
        seen["result"] = box.result.text()
        seen["enabled"] = box.forget_button.isEnabled()

    _drive_dialog(qtbot, w, steps)
    assert f"Stopped syncing with {url}" in seen["result"] and not seen["enabled"]
    assert sync_server(engram.db) is None
    assert not w.autosync.active
    qtbot.waitUntil(lambda: not w.sync_indicator.isVisible(), timeout=10_000)

"""The app shows what waits to sync and runs a round: the Team store dialog's Sync section and
the status bar's indicator, on a real PostgreSQL that goes offline and comes back. The round
is the child `engram sync` process the button starts; what it pulled is checked in the app's
own store, and what it pushed on the server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from tests.teamstore.servers import run_cli as _cli

pytestmark = [pytest.mark.gui, pytest.mark.postgres]
ROOT = Path(__file__).resolve().parents[2]


class _Window(QWidget):
    """What the dialog reads from its parent: the app's open store."""

    def __init__(self, engram):
        super().__init__()
        self.engram = engram


def _sync(qtbot, box):
    with qtbot.waitSignal(box.synced, timeout=180_000):
        qtbot.mouseClick(box.sync_button, _left())
    return box.result.text()


def _left():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def test_the_dialog_syncs_shows_what_waits_and_says_offline(
    qtbot, tmp_path, own_server, monkeypatch
):
    from services.config import StoreConfig
    from services.engram import Engram
    from ui.team_store_dialog import TeamStoreDialog

    monkeypatch.delenv("ENGRAM_SYNC_URL", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    here, other = tmp_path / "laptop", tmp_path / "desktop"
    url = own_server.url("mine")
    _cli(other, "agent", "add", "notes")
    _cli(other, "remember", "--agent", "notes", "The desktop's backup disk is the blue one")
    _cli(other, "sync", "--server", url)
    e = Engram.open(StoreConfig(data_dir=here, semantic=False))
    e.agent("notes", create=True).remember("The laptop charger lives in the red bag")
    parent = _Window(e)
    qtbot.addWidget(parent)
    try:
        d = TeamStoreDialog(here, parent)
        box = d.sync_box
        assert box is not None and d.sharing is None  # a local store: sync, not sharing
        assert box.status.text().startswith("Never synced")
        box.server.setText(url)

        assert _sync(qtbot, box).startswith("✔ pushed 1, pulled 1")
        assert "Nothing waiting to be pushed" in box.status.text()
        assert "Last sync: never" not in box.status.text()
        mine = {f.content for f in e.agent("notes").list()}
        assert "The desktop's backup disk is the blue one" in mine  # pulled into this store
        assert "pulled 1" in _cli(other, "sync", "--server", url)  # and ours reached the other

        # a hook writes while the app is open: the dialog and the status bar say it waits
        _cli(here, "remember", "--agent", "notes", "The spare house key is with Ines")
        box.refresh()
        assert "1 change waiting to be pushed" in box.status.text()

        own_server.pause()
        text = _sync(qtbot, box)
        assert text.startswith("✖ offline: refused"), text
        assert "1 change waiting" in box.status.text() and "Last problem:" in box.status.text()

        own_server.resume()
        assert _sync(qtbot, box).startswith("✔ pushed 1, pulled 0")
        st = json.loads(_cli(here, "sync", "--status", "--json"))
        assert st["pending"] == {} and st["last_problem"] in ("", None)
        d.reject()
    finally:
        e.close()


def test_the_status_bar_indicator_counts_pending_and_stop_leaves_the_queue(
    qtbot, tmp_path, own_server, monkeypatch
):
    from services.config import StoreConfig
    from services.engram import Engram
    from ui.sync_box import SyncBox, SyncIndicator
    from ui.workers import JobRunner

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    here = tmp_path / "laptop"
    e = Engram.open(StoreConfig(data_dir=here, semantic=False))
    runner = JobRunner(db=e.db)
    try:
        m = e.agent("notes", create=True)
        ind = SyncIndicator(e, runner)
        qtbot.addWidget(ind)
        ind.refresh()
        qtbot.waitUntil(lambda: not ind._busy, timeout=10_000)
        assert ind.isHidden()  # a store that never synced shows nothing

        _cli(here, "sync", "--server", own_server.url("mine"))
        m.remember("Ines feeds the cat on Tuesdays")
        m.remember("The boiler service is due in March")
        ind.refresh()
        qtbot.waitUntil(lambda: not ind._busy, timeout=10_000)
        assert not ind.isHidden() and ind.text() == "⇅ 2 to sync"
        assert "2 changes waiting to be pushed" in ind.toolTip()

        box = SyncBox(e)
        qtbot.addWidget(box)
        box.server.setText(own_server.url("mine"))
        with qtbot.waitSignal(box.synced, timeout=60_000):
            box.start()
            box.cancel()  # Stop sync at once: the child dies before it pushes anything
        assert box.result.text().startswith("Sync stopped")
        assert box.sync_button.isEnabled() and not box.cancel_button.isEnabled()
        assert "2 changes waiting to be pushed" in box.status.text()  # nothing lost
    finally:
        runner.cancel_all()
        e.close()

"""The app keeps a synced store in step by itself: another machine's push reaches it through
the server's NOTIFY, its own writes are pushed a moment after the status bar counts them,
and a server that goes away and comes back is found again. A real PostgreSQL (stopped and
started mid-test) and the real child `engram sync`; the other machine is the CLI on a second
data dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.teamstore.servers import run_cli as _cli

pytestmark = [pytest.mark.gui, pytest.mark.postgres]
ROOT = Path(__file__).resolve().parents[2]


def test_pushes_pulls_on_notify_and_finds_the_server_again(
    qtbot, tmp_path, own_server, monkeypatch
):
    from PySide6.QtCore import QSettings

    from services.config import StoreConfig
    from services.engram import Engram
    from ui.sync_auto import AutoSync, set_automatic

    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    set_automatic(True)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    url = own_server.url("mine")
    laptop, desktop = tmp_path / "laptop", tmp_path / "desktop"
    _cli(laptop, "agent", "add", "notes")
    _cli(laptop, "remember", "--agent", "notes", "Recycling goes out on Thursday evenings")
    _cli(laptop, "sync", "--server", url)
    assert "pulled 1" in _cli(desktop, "sync", "--server", url)
    e = Engram.open(StoreConfig(data_dir=laptop, semantic=False))
    # an hour between periodic rounds: within the test, only NOTIFY or the count starts one
    auto = AutoSync(e, interval_ms=3_600_000, push_delay_ms=100, pull_delay_ms=100)
    ended: list[dict | None] = []
    auto.round_ended.connect(lambda report, text: ended.append(report))

    def a_round(since: int, pred) -> dict:
        """The first round ended after ``since`` that ``pred`` accepts (a trailing NOTIFY may
        add a round that has nothing to do: the test does not depend on their order)."""
        found: list[dict] = []

        def seen() -> bool:
            found[:] = [r for r in ended[since:] if r is not None and pred(r)]
            return bool(found)

        qtbot.waitUntil(seen, timeout=120_000)
        return found[0]

    try:
        # started: a first round (nothing to pull yet), then it listens on the server
        assert auto.start()
        a_round(0, lambda r: r["online"])
        qtbot.waitUntil(lambda: auto.listener is not None, timeout=10_000)

        # another machine pushes: the server's NOTIFY starts a round here, nobody presses
        mark = len(ended)
        _cli(desktop, "remember", "--agent", "notes", "The desktop's backup disk is the blue one")
        _cli(desktop, "sync")
        a_round(mark, lambda r: r["pulled"] == 1)
        assert "The desktop's backup disk is the blue one" in {
            f.content for f in e.agent("notes").list()
        }

        # a write here: the status bar's count (what the indicator emits) pushes it
        mark = len(ended)
        e.agent("notes").remember("The laptop charger lives in the red bag")
        auto.pending(1)
        a_round(mark, lambda r: r["pushed"] == 1)
        assert "pulled 1" in _cli(desktop, "sync")

        # offline: the round says so and the notifications stop; back online, both come back
        own_server.pause()
        mark = len(ended)
        auto.sync_now()
        a_round(mark, lambda r: not r["online"])
        qtbot.waitUntil(lambda: auto.listener is None, timeout=30_000)
        own_server.resume()
        mark = len(ended)
        auto.sync_now()  # what the periodic timer does
        a_round(mark, lambda r: r["online"])
        qtbot.waitUntil(lambda: auto.listener is not None, timeout=10_000)  # listening again
        mark = len(ended)
        _cli(desktop, "remember", "--agent", "notes", "Ines feeds the cat on Tuesdays")
        _cli(desktop, "sync")
        a_round(mark, lambda r: r["pulled"] == 1)
        assert "Ines feeds the cat on Tuesdays" in {f.content for f in e.agent("notes").list()}
    finally:
        auto.stop()
        e.close()


def test_off_in_the_settings_means_no_rounds(qtbot, tmp_path, own_server):
    from PySide6.QtCore import QSettings

    from services.config import StoreConfig
    from services.engram import Engram
    from ui.sync_auto import AutoSync, set_automatic

    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    laptop = tmp_path / "laptop"
    _cli(laptop, "agent", "add", "notes")
    _cli(laptop, "sync", "--server", own_server.url("mine"))
    e = Engram.open(StoreConfig(data_dir=laptop, semantic=False))
    auto = AutoSync(e, push_delay_ms=10)
    try:
        set_automatic(False)
        assert not auto.start() and not auto.active
        auto.pending(3)
        qtbot.wait(300)
        assert not auto.round.running() and auto.listener is None
    finally:
        set_automatic(True)
        auto.stop()
        e.close()

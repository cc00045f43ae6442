"""GUI fixtures: a real MainWindow over the real store, and napari's habit of failing a test
that leaves a worker thread running or a QTimer active."""

from __future__ import annotations

import sys
import weakref
from pathlib import Path

import pytest

# --import-mode=importlib does not put test dirs on sys.path; the helpers module is ours
sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_collection_modifyitems(config, items):
    # the offscreen platform warns that it cannot do window-manager things (size hints,
    # raise, keyboard grabs); those are not the app's warnings, every other one still fails
    here = Path(__file__).resolve().parent
    for item in items:
        if Path(str(item.fspath)).resolve().parent == here:
            item.add_marker(pytest.mark.qt_log_ignore(r"This plugin does not support"))


@pytest.fixture(autouse=True)
def no_leaked_threads_or_timers(monkeypatch):
    from PySide6.QtCore import QThreadPool, QTimer
    from shiboken6 import isValid

    from ui import workers

    timers: list[weakref.ref] = []
    original = QTimer.start

    def tracking_start(self, *args):
        timers.append(weakref.ref(self))
        return original(self, *args)

    monkeypatch.setattr(QTimer, "start", tracking_start)
    yield
    # runs after pytest-qt closed the test's widgets
    running = [w for w in list(workers.LIVE) if isValid(w) and w.isRunning()]
    active = [t for t in (r() for r in timers) if t is not None and isValid(t) and t.isActive()]
    for t in active:
        t.stop()
    for w in running:
        w.cancel()
        w.wait(10000)
    assert not running, f"test left {len(running)} worker thread(s) running"
    assert not active, f"test left {len(active)} QTimer(s) active"
    assert QThreadPool.globalInstance().waitForDone(5000)


@pytest.fixture(autouse=True)
def temp_qsettings(tmp_path_factory):
    """The window remembers its geometry and layout in QSettings: never the user's file."""
    from PySide6.QtCore import QSettings

    QSettings.setPath(
        QSettings.IniFormat, QSettings.UserScope, str(tmp_path_factory.mktemp("qsettings"))
    )
    yield


@pytest.fixture(autouse=True)
def no_held_modifier_keys(qapp):
    """QTest leaves QGuiApplication.keyboardModifiers() at the last key event's modifiers:
    after an earlier test's Ctrl+Z, a later setCurrentCell() in an ExtendedSelection view
    toggles instead of selecting (a merge once asked about an extra entity in CI). Each test
    starts, as a user's hand does, with no key held."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QWidget

    if QGuiApplication.keyboardModifiers() != Qt.NoModifier:
        w = QWidget()
        QTest.keyRelease(w, Qt.Key_Control, Qt.NoModifier)
        w.deleteLater()
    assert QGuiApplication.keyboardModifiers() == Qt.NoModifier
    yield


@pytest.fixture
def window(engram, qtbot):
    from ui.main_window import MainWindow

    w = MainWindow(engram, use_tray=False)
    # pytest-qt closes the window before fixtures end: shut down first, so a close does
    # not ask about typing a test left unsaved (quitting asks, see test_round_three)
    qtbot.addWidget(w, before_close_func=lambda w: w.shutdown())
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.shutdown()


@pytest.fixture
def seeded(agent):
    """Forty varied facts for the browser tests (the real ingest pipeline, real vectors)."""
    from datetime import datetime, timedelta

    from services.ingest.pipeline import NewFact

    base = datetime(2026, 10, 1, 12, 0)
    cats = ["fact", "pref", "env", "proj:web", "task", "rule", "tmp", "rel:maria"]
    items = [
        NewFact(
            f"Memory number {i}: the {w} setting is {i * 7 % 13}",
            category=cats[i % len(cats)],
            importance=round((i % 10) / 10 + 0.05, 2),
            pinned=(i % 9 == 0),
            created_at=base + timedelta(days=i),
        )
        for i, w in enumerate(["alpha", "bravo", "charlie", "delta", "echo"] * 8)
    ]
    items += [
        NewFact(
            "Prefers PostgreSQL over MySQL for new services",
            category="pref",
            importance=0.8,
            created_at=base + timedelta(days=50),
        ),
        NewFact(
            "The deploy pipeline runs on GitHub Actions",
            category="env",
            importance=0.6,
            created_at=base + timedelta(days=51),
        ),
    ]
    res = agent.remember_many(items, near_duplicate=None)
    assert all(r.status == "added" for r in res), [r.status for r in res]
    from tests_gui_helpers import learned_at

    learned_at(agent, [r.fact_id for r in res])
    return agent

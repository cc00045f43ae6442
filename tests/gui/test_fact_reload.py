"""Reloading the fact list while the store keeps changing: the list must keep up, never
starve, never lose the user's filter, and say so when the store cannot be read.

The store, the runner and its worker threads are real; a gate (an Event) only holds the
first query in its worker so the test can ask again while it is running."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from PySide6.QtTest import QSignalSpy

from services.store.facts import FactFilters
from ui.fact_model import FactTableModel
from ui.workers import JobRunner


@pytest.fixture
def runner(seeded, qtbot):
    r = JobRunner(db=seeded.engram.db)
    yield r
    r.cancel_all()


@pytest.fixture
def held(monkeypatch, seeded):
    """Make the store's id query wait on a gate in a worker; count the worker queries."""
    gate, calls = threading.Event(), []
    original = seeded.facts.ids

    def ids(*a, **kw):
        if threading.current_thread() is not threading.main_thread():
            calls.append(kw.get("order"))
            assert gate.wait(20), "the test never opened the gate"
        return original(*a, **kw)

    monkeypatch.setattr(seeded.facts, "ids", ids)
    yield gate, calls
    gate.set()  # a failed test must not leave a worker waiting


def test_refreshes_faster_than_the_query_still_show_fresh_facts(seeded, runner, held, qtbot):
    """A hook writing every second on a store whose sort takes longer than a second: each
    change asks for a refresh while one is running. The list must still update (it used to
    restart the query each time and never show anything) and not run a query per request."""
    model = FactTableModel(seeded, runner=runner)
    gate, calls = held
    spy = QSignalSpy(model.reloaded)
    model.refresh()
    for _ in range(5):
        model.refresh()
    seeded.remember("Switched the team chat to Matrix", category="env")
    gate.set()
    qtbot.waitUntil(lambda: spy.count() >= 1 and not model.is_loading(), timeout=15000)
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=15000)
    assert model.total_count() == 43
    assert model.fact_at(0).content == "Switched the team chat to Matrix"
    assert len(calls) == 2, "six refresh requests ran as one query plus one coalesced"


def test_a_refresh_during_a_filter_change_keeps_the_filter(seeded, runner, held, qtbot):
    model = FactTableModel(seeded, runner=runner)
    gate, _ = held
    model.set_filters(FactFilters(pinned=True))
    model.refresh()  # the store changed while the filtered query was running
    gate.set()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=15000)
    pinned = seeded.facts.count(FactFilters(pinned=True))
    assert 0 < pinned < 42
    assert model.rowCount() == pinned
    assert all(model.fact_at(r).pinned for r in range(model.rowCount()))


def test_a_sort_asked_twice_while_loading_runs_once(seeded, runner, held, qtbot):
    from PySide6.QtCore import Qt

    model = FactTableModel(seeded, runner=runner)
    gate, calls = held
    model.sort(3, Qt.DescendingOrder)  # importance
    model.sort(3, Qt.DescendingOrder)
    gate.set()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=15000)
    assert calls == ["-importance"]
    imps = [model.fact_at(r).importance for r in range(model.rowCount())]
    assert imps == sorted(imps, reverse=True)


def test_a_failed_reload_says_so_and_keeps_the_list(seeded, runner, qtbot, monkeypatch):
    model = FactTableModel(seeded, runner=runner)
    before = [model.id_at(r) for r in range(model.rowCount())]

    def locked(*a, **kw):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(seeded.facts, "ids", locked)
    with qtbot.waitSignal(model.load_failed, timeout=15000) as sig:
        model.refresh()
    assert sig.args == ["Could not load the facts: database is locked"]
    assert [model.id_at(r) for r in range(model.rowCount())] == before
    assert not model.is_loading()
    monkeypatch.undo()
    with qtbot.waitSignal(model.reloaded, timeout=15000):
        model.refresh()  # the next attempt works again
    assert [model.id_at(r) for r in range(model.rowCount())] == before

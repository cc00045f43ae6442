"""Helpers shared by the GUI tests (imported as a sibling module under importlib mode)."""
from __future__ import annotations

from PySide6.QtTest import QSignalSpy


def open_tab(window, slug):
    """Show an agent's tab with its facts freshly loaded (the reload runs in a worker)."""
    window.sync_agents()
    tab = window.agent_tabs[slug]
    window.tabs.setCurrentWidget(tab)
    spy = QSignalSpy(tab.model.reloaded)
    tab.refresh()
    assert spy.wait(15000), "the fact list did not reload"
    return tab


def wait_write(qtbot, tab, timeout=15000):
    return qtbot.waitSignal(tab.write_done, timeout=timeout)


def reloaded(qtbot, tab, timeout=15000):
    """``with reloaded(qtbot, tab): <change a filter or sort>``"""
    return qtbot.waitSignal(tab.model.reloaded, timeout=timeout)

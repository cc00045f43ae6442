"""Helpers shared by the GUI tests (imported as a sibling module under importlib mode)."""
from __future__ import annotations


def open_tab(window, slug):
    window.sync_agents()
    tab = window.agent_tabs[slug]
    window.tabs.setCurrentWidget(tab)
    tab.refresh()
    return tab


def wait_write(qtbot, tab, timeout=15000):
    return qtbot.waitSignal(tab.write_done, timeout=timeout)

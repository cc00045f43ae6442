"""Helpers shared by the GUI tests (imported as a sibling module under importlib mode)."""

from __future__ import annotations

from PySide6.QtTest import QSignalSpy


def open_tab(window, slug):
    """Show an agent's tab with its facts freshly loaded (the reload runs in a worker)."""
    window.sync_agents()
    tab = window.agent_tabs[slug]
    window.tabs.setCurrentWidget(tab)
    spy, failed = QSignalSpy(tab.model.reloaded), QSignalSpy(tab.model.load_failed)
    tab.refresh()
    if not spy.wait(30000):
        jobs = [(j.title, j.worker is not None) for j in window.runner._jobs.values()]
        messages = [failed.at(i) for i in range(failed.count())]
        raise AssertionError(
            f"the fact list did not reload; jobs (title, started): {jobs}; "
            f"load failures: {messages}"
        )
    return tab


def wait_write(qtbot, tab, timeout=15000):
    return qtbot.waitSignal(tab.write_done, timeout=timeout)


def reloaded(qtbot, tab, timeout=15000):
    """``with reloaded(qtbot, tab): <change a filter or sort>``"""
    return qtbot.waitSignal(tab.model.reloaded, timeout=timeout)


def learned_at(agent, ids, when=None) -> None:
    """Make facts look learned when they were created (or at ``when``): GC counts a fact's
    lifetime from when Engram stored it (its ``create`` audit event), so a test that needs old
    memories moves that event back, as a store kept for weeks would have it."""
    from models import AuditEvent, Fact

    for fid in ids:
        at = when or Fact.get_by_id(fid).created_at
        AuditEvent.update(created_at=at).where(
            (AuditEvent.fact_id == fid) & (AuditEvent.action == "create")
        ).execute()

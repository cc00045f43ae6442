"""Live two-way sync with agents' Memory Setup workspaces while the app is open.

An agent rewrites ``memories/MEMORY.md`` by rename (atomic writers do), which
QFileSystemWatcher loses track of; a stat-only signature polled every two seconds does not.
Edits made in Engram mark the agent dirty through the service bus, so they are written back
to the files on the next tick. The sync itself runs as a serial job (``services.interop.sync``).
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, QTimer, Signal, Slot

log = logging.getLogger(__name__)
WRITE_EVENTS = {"fact.added", "fact.updated", "fact.deleted"}


class WorkspaceWatcher(QObject):
    synced = Signal(str, object)  # slug, SyncReport
    failed = Signal(str, str)

    def __init__(self, engram, runner, interval_ms: int = 2000, parent=None):
        super().__init__(parent)
        self.engram = engram
        self.runner = runner
        self._signatures: dict[str, tuple] = {}
        self._dirty: set[int] = set()  # agent ids written in this process
        self._lock = threading.Lock()  # the bus calls back from worker threads
        self._running: set[str] = set()
        self._unsubscribe = engram.bus.subscribe(self._on_event)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)

    def start(self) -> None:
        self.timer.start()

    _held = 0

    def hold(self) -> None:
        """The app itself is rewriting workspace files (a forget): do not read that as the
        agent editing them."""
        self._held += 1

    def release(self) -> None:
        """Take the files as they are now as the known state; our own writes are not news."""
        self._held = max(0, self._held - 1)
        if self._held:
            return
        from services import workspace_signature

        try:
            agents = self._workspace_agents()
        except Exception as exc:
            log.warning("workspace watcher: %s", exc)
            return
        with self._lock:
            self._dirty -= {a.id for a in agents}
        for a in agents:
            self._signatures[a.slug] = workspace_signature(self.engram.agent(a.slug))

    def stop(self) -> None:
        self.timer.stop()
        self._unsubscribe()

    def _on_event(self, kind: str, data: dict) -> None:
        if kind in WRITE_EVENTS and "agent_id" in data:
            with self._lock:
                self._dirty.add(data["agent_id"])

    def _workspace_agents(self):
        return [a for a in self.engram.agents(with_counts=False) if a.workspace]

    @Slot()
    def poll(self) -> list[str]:
        """Start a sync for every agent whose files changed or whose facts we edited."""
        from services import workspace_signature

        if self._held:
            return []

        started = []
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        try:
            agents = self._workspace_agents()
        except Exception as exc:  # a locked store: try again next tick
            log.warning("workspace watcher: %s", exc)
            return []
        for a in agents:
            if a.slug in self._running:
                with self._lock:
                    self._dirty |= {a.id} & dirty
                continue
            mem = self.engram.agent(a.slug)
            sig = workspace_signature(mem)
            first = a.slug not in self._signatures
            changed = not first and sig != self._signatures[a.slug]
            self._signatures[a.slug] = sig
            if changed or a.id in dirty:
                self._sync(a.slug)
                started.append(a.slug)
        return started

    def _sync(self, slug: str) -> None:
        from services import sync_workspace, workspace_signature

        mem = self.engram.agent(slug)
        self._running.add(slug)

        def op(progress, cancelled):
            report = sync_workspace(mem)
            return report, workspace_signature(mem)

        def done(result):
            report, sig = result
            self._running.discard(slug)
            self._signatures[slug] = sig  # our own write-back is not a change to pull
            self.synced.emit(slug, report)

        def fail(message):
            self._running.discard(slug)
            self.failed.emit(slug, message)

        self.runner.start(
            f"Syncing {slug}'s workspace",
            op,
            success=done,
            failure=fail,
            visible=False,
            serial=True,
        )

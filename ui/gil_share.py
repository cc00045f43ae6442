"""The GUI thread's share of the GIL while workers run (issue 36, the 100k stalls).

Measured with the bench's heartbeat and a sampling thread (docs/speed.md, gui_scale): the
window's long stalls at 100k facts were not its own work (≤ 35 ms) but Python's cyclic
garbage collector. A worker reading or writing tens of thousands of rows keeps them alive
long enough to reach the oldest generation, so every few seconds a full collection scanned
every live object, 100-350 ms with the GIL held, in whichever thread happened to allocate;
none of them found anything to free. The GUI thread cannot paint or answer a key without
the GIL, so each one was a frozen window.

While a window is open: the young generations are still collected as usual (they are
small), the full collection is never started by an allocation, only when no job has run
for a moment (``IDLE_MS``) or, during a long job, once every ``FULL_EVERY_MS``, so cyclic
garbage is still freed. What survives it is frozen (``gc.freeze``), so the next quiet
moment's collection scans only what came since; every ``RESCAN_EVERY``-th scans all again,
so a cycle among old objects that became garbage is freed too.

A worker running Python is asked for the GIL after ``SWITCH_S`` instead of Python's 5 ms:
the GUI thread takes the GIL for each Python call Qt makes (a slot, a model's ``data`` per
cell), and each could otherwise wait that long behind a worker.
"""

from __future__ import annotations

import gc
import sys

from PySide6.QtCore import QObject, QTimer

SWITCH_S = 0.001
IDLE_MS = 1500  # jobs quiet this long: the user is reading, a full collection is not seen
FULL_EVERY_MS = 120_000  # a job that runs for minutes still gets a full collection
RESCAN_EVERY = 8
_NEVER = 1 << 30  # gen-2 threshold: no full collection from an allocation

_holders = 0
_saved: tuple = ()


def take() -> None:
    """Switch the process to the window's GC and GIL settings (counted: two windows in one
    process, as tests make, restore the settings after the last)."""
    global _holders, _saved
    if _holders == 0:
        _saved = (gc.get_threshold(), sys.getswitchinterval())
        t0, t1, _t2 = gc.get_threshold()
        gc.set_threshold(t0, t1, _NEVER)
        sys.setswitchinterval(SWITCH_S)
    _holders += 1


def give_back() -> None:
    global _holders
    if _holders == 0:
        return
    _holders -= 1
    if _holders == 0 and _saved:
        gc.unfreeze()
        threshold, switch = _saved
        gc.set_threshold(*threshold)
        sys.setswitchinterval(switch)


class IdleCollector(QObject):
    """Runs the full collection when the window's jobs are quiet; see the module's text."""

    def __init__(self, runner, parent: QObject | None = None):
        super().__init__(parent)
        self.runner = runner
        self.collections = 0  # full collections this collector ran (for tests and the log)
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(IDLE_MS)
        self._idle.timeout.connect(self._when_idle)
        self._guard = QTimer(self)
        self._guard.setInterval(FULL_EVERY_MS)
        self._guard.timeout.connect(self.collect)
        runner.busy_changed.connect(self._busy_changed)
        self._held = False
        take()
        self._held = True

    def _busy_changed(self, busy: bool) -> None:
        if busy:
            self._idle.stop()
            if not self._guard.isActive():
                self._guard.start()
        else:
            self._guard.stop()
            self._idle.start()

    def _when_idle(self) -> None:
        if not self.runner.is_busy():
            self.collect()

    def collect(self) -> None:
        if self.collections % RESCAN_EVERY == 0:
            gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.collections += 1

    def stop(self) -> None:
        """The window is shutting down: the process's own settings again."""
        self._idle.stop()
        self._guard.stop()
        if self._held:
            self._held = False
            give_back()

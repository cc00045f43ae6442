"""Compiled layers follow every change: an agent's ``memory.md`` (and the files Engram writes
from it for agents, such as the Cursor rule) is recompiled after any write, edit, delete,
forget, import, review decision or MCP write, without anyone running ``compile``.

The store's event bus says which agent changed. A one-shot process (the CLI, an agent's hook)
uses ``sync``: the changed agents are recompiled once, when the command ends. A long-lived one
(the app, the MCP server) uses ``debounce``: one worker thread recompiles an agent once its
changes have been quiet for ``delay`` seconds, so a burst of writes costs one compile. A
compile that would write what is already there writes nothing (no new layer rows). The
workspace's two-way sync is not part of it: it can meet conflicts, which ``engram sync`` (or an
explicit ``compile``) reports.

A window quitting does not wait for a long recompile (``close(grace=…)``: at 100k facts,
after Restore all, 10-20 s on a loaded machine, the process holding the store's lock all
that time): what is pending gets ``grace`` seconds, a compile still running then is stopped
(between layers, or its SQL interrupted: its transaction rolls back, and memory.md is only
ever replaced whole), and the agents left are written to ``compile-owed.json`` in the data
dir. The next process that follows changes (the app, the MCP server, any CLI command that
writes) recompiles them first (issue 36).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from services.events import EventKind

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.engram import Engram
    from services.store.handle import MemoryHandle

log = logging.getLogger(__name__)

CHANGES = frozenset(
    {
        EventKind.FACT_ADDED,
        EventKind.FACT_UPDATED,
        EventKind.FACT_DELETED,
        EventKind.EPISODE_ADDED,
        EventKind.EPISODE_UPDATED,
        EventKind.EPISODE_DELETED,
    }
)
MODES = ("sync", "debounce")
KEEP_HISTORY = 20  # compilations kept per layer (for `compile --diff` and the history view)
AfterCompile = Callable[["MemoryHandle"], object]  # what it returns is not used
OWED = "compile-owed.json"  # agents a quick quit left uncompiled, for the next start
QUIT_GRACE_S = 1.0  # what a quitting window gives the pending recompiles


class Recompiler:
    def __init__(
        self,
        engram: Engram,
        mode: str = "sync",
        delay: float = 1.5,
        after_compile: AfterCompile | None = None,
    ):
        if mode not in MODES:
            raise ValueError(f"recompile mode is one of {', '.join(MODES)}")
        self.engram, self.mode, self.delay = engram, mode, delay
        self.after_compile = after_compile
        self._dirty: dict[int, float] = {}  # agent id -> time of its last change
        self._cond = threading.Condition()
        self._busy = threading.local()  # our own compile's events are not a change
        self._stopped = False
        self._closing = False  # compile what is pending now, then end
        self._halt = False  # a quick close's deadline passed: stop the compile under way
        self._unfinished: set[int] = set()  # stopped mid-compile by a quick close
        self._conn = None  # the thread's SQLite connection, interrupted by a quick close
        self._thread: threading.Thread | None = None
        self._owed_path = _owed_path(engram)
        self._owed = _read_owed(self._owed_path)
        for agent_id in self._owed:  # due at once
            self._dirty[agent_id] = 0.0
        self._unsubscribe = engram.bus.subscribe(self._on_event)
        if mode == "debounce":
            self._thread = threading.Thread(target=self._run, name="engram-recompile", daemon=True)
            self._thread.start()

    def _on_event(self, kind: str, data: dict) -> None:
        agent_id = data.get("agent_id")
        if kind not in CHANGES or agent_id is None or getattr(self._busy, "on", False):
            return
        with self._cond:
            self._dirty[int(agent_id)] = time.monotonic()
            self._cond.notify()

    def pending(self) -> set[int]:
        with self._cond:
            return set(self._dirty)

    def flush(self) -> list[str]:
        """Recompile every agent with changes now; the slugs recompiled."""
        with self._cond:
            ids, self._dirty = list(self._dirty), {}
        return [slug for slug in (self._compile(i) for i in ids) if slug]

    def _compile(self, agent_id: int) -> str | None:
        from models import Agent
        from services.lifecycle.compile import CompileService

        row = Agent.get_or_none(Agent.id == agent_id)
        if row is None:  # the agent was removed since
            return None
        from services.errors import NotFound

        try:
            memory = self.engram.agent(row.slug)
        except NotFound:  # in the trash (a forget reached it): it compiles nothing
            return None
        self._busy.on = True
        try:
            after = self.after_compile
            done = CompileService(memory).compile(
                rewrite=False,
                skip_unchanged=True,
                export=False,
                keep_history=KEEP_HISTORY,
                after_write=None if after is None else (lambda: after(memory)),
                cancelled=lambda: self._halt,
            )
        except Exception:  # a failed recompile must not fail the write that caused it
            if self._halt:  # a quick close interrupted its SQL: owed to the next start
                self._unfinished.add(agent_id)
                log.info("recompiling %s left for the next start", row.slug)
                return None
            log.exception("recompiling %s after a change failed", row.slug)
            return None
        finally:
            self._busy.on = False
        if done.cancelled:
            self._unfinished.add(agent_id)
            return None
        if agent_id in self._owed:
            self._owed.discard(agent_id)
            _write_owed(self._owed_path, self._owed)
        return row.slug

    def _due(self) -> list[int]:
        if self._closing:
            return list(self._dirty)
        now = time.monotonic()
        return [a for a, t in self._dirty.items() if now - t >= self.delay]

    def _run(self) -> None:
        self._conn = self.engram.db.connection()  # this thread's own
        try:
            while True:
                with self._cond:
                    while not self._stopped and not self._due():
                        if self._closing:
                            return  # nothing left to compile
                        wait = None
                        if self._dirty:
                            wait = max(
                                0.05, self.delay - (time.monotonic() - min(self._dirty.values()))
                            )
                        self._cond.wait(wait)
                    if self._stopped:
                        return
                    due = self._due()
                    for a in due:
                        del self._dirty[a]
                for agent_id in due:
                    if self._halt:
                        self._unfinished.add(agent_id)
                    else:
                        self._compile(agent_id)
        finally:
            self._conn = None
            self.engram.db.close()  # this thread's own connection

    def close(self, grace: float | None = None) -> None:
        """Stop listening; changes not compiled yet are compiled now (on this thread).
        ``grace`` (a quitting window, debounce mode): they get that many seconds in the
        worker instead; what is not done by then is stopped and owed to the next start."""
        self._unsubscribe()
        if grace is not None and self._thread is not None:
            self._close_quickly(grace)
            return
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.flush()

    def _close_quickly(self, grace: float) -> None:
        assert self._thread is not None
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout=grace)
        with self._cond:
            self._stopped = self._halt = True
            self._cond.notify_all()
        if self._thread.is_alive():
            interrupt = getattr(self._conn, "interrupt", None)  # sqlite3 only; thread-safe
            if interrupt is not None:
                interrupt()
            self._thread.join(timeout=10)
        with self._cond:
            owed = self._owed | set(self._dirty) | self._unfinished
            self._dirty = {}
        if owed != self._owed:
            _write_owed(self._owed_path, owed)
            log.info("recompile of %d agent(s) left for the next start", len(owed))


def _owed_path(engram: Engram) -> Path | None:
    data_dir = getattr(getattr(engram, "config", None), "data_dir", None)
    return Path(data_dir) / OWED if data_dir else None


def _read_owed(path: Path | None) -> set[int]:
    if path is None or not path.is_file():
        return set()
    try:
        return {int(a) for a in json.loads(path.read_text(encoding="utf-8"))["agents"]}
    except (OSError, ValueError, KeyError, TypeError):  # a torn or foreign file: nothing owed
        log.warning("ignoring unreadable %s", path)
        return set()


def _write_owed(path: Path | None, agents: set[int]) -> None:
    if path is None:
        return
    if not agents:
        path.unlink(missing_ok=True)
        return
    from services.store.atomic import atomic_write

    atomic_write(path, json.dumps({"agents": sorted(agents)}) + "\n")

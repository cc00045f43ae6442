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
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
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
        self._thread: threading.Thread | None = None
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
            CompileService(memory).compile(
                rewrite=False,
                skip_unchanged=True,
                export=False,
                keep_history=KEEP_HISTORY,
                after_write=None if after is None else (lambda: after(memory)),
            )
        except Exception:  # a failed recompile must not fail the write that caused it
            log.exception("recompiling %s after a change failed", row.slug)
            return None
        finally:
            self._busy.on = False
        return row.slug

    def _due(self) -> list[int]:
        now = time.monotonic()
        return [a for a, t in self._dirty.items() if now - t >= self.delay]

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    while not self._stopped and not self._due():
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
                    self._compile(agent_id)
        finally:
            self.engram.db.close()  # this thread's own connection

    def close(self) -> None:
        """Stop listening; changes not compiled yet are compiled now (on this thread)."""
        self._unsubscribe()
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.flush()

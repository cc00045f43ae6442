"""A tiny message bus: services report what changed; the GUI (or anyone) listens.

Services never import widgets (qutebrowser's ``message`` habit): the UI bridges these
callbacks into Qt signals on the GUI thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from enum import StrEnum

log = logging.getLogger(__name__)
Listener = Callable[[str, dict], None]


class EventKind(StrEnum):
    """What changed. A StrEnum, so listeners may still compare with the plain strings."""

    FACT_ADDED = "fact.added"
    FACT_UPDATED = "fact.updated"
    FACT_DELETED = "fact.deleted"
    EPISODE_ADDED = "episode.added"
    EPISODE_UPDATED = "episode.updated"
    EPISODE_DELETED = "episode.deleted"
    AGENT_ADDED = "agent.added"
    AGENT_UPDATED = "agent.updated"
    AGENT_REMOVED = "agent.removed"
    COMPILE_DONE = "compile.done"
    FORGET_DONE = "forget.done"
    SYNC_DONE = "sync.done"


def describe(data: dict) -> str:
    """What an event says in the log: ids become counts and only numbers, flags and agent
    slugs pass, so no memory text can reach ``engram.log`` through an event."""
    parts = []
    for key, value in sorted(data.items()):
        if isinstance(value, (list, tuple, set, frozenset)):
            parts.append(f"{key}={len(value)}")
        elif isinstance(value, (bool, int, float)) or value is None:
            parts.append(f"{key}={value}")
        elif key == "slug" and isinstance(value, str):
            parts.append(f"slug={value[:64]}")
    return " ".join(parts)


class EventBus:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, fn: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._listeners:
                    self._listeners.remove(fn)

        return unsubscribe

    def emit(self, kind: EventKind | str, **data) -> None:
        kind = EventKind(kind)  # an unknown event name is a bug, found at the emitter
        if log.isEnabledFor(logging.INFO):  # every write emits: no work when nobody logs
            log.info("%s %s", kind.value, describe(data))
        with self._lock:
            listeners = list(self._listeners)
        for fn in listeners:
            try:
                fn(kind, data)
            except Exception:  # a broken listener must not break a write
                log.exception("event listener failed for %s", kind)

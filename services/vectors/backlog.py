"""Facts stored without vectors (a keyword-only CLI, a hook, the MCP server before its warm-up)
are owed vectors: a marker file in the data dir says so, and the next process that has the
model fills them (``AgentMemory.embed_missing``) before it answers a semantic search or a
``verify``. Checking the marker is one ``stat``; the fill is a count comparison per agent when
there is nothing to do.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

log = logging.getLogger(__name__)
MARKER = "vector-backlog"


def mark(data_dir: Path) -> None:
    try:
        (Path(data_dir) / MARKER).touch()
    except OSError:  # a read-only store: `verify --repair` still finds the missing vectors
        pass


def pending(data_dir: Path) -> bool:
    return os.path.exists(Path(data_dir) / MARKER)


def drain(engram: EngramHandle) -> int:
    """Embed every agent's facts that have no vector yet; the number embedded. The marker is
    renamed away first, so a write that marks the backlog meanwhile is not lost."""
    if engram.index is None:
        return 0
    path = Path(engram.config.data_dir) / MARKER
    claimed = path.with_name(f"{MARKER}.{os.getpid()}")
    try:
        os.replace(path, claimed)
    except OSError:
        return 0  # nothing owed (or another process is filling it)
    done = 0
    try:
        for a in engram.agents(with_counts=False):
            done += engram.agent(a.slug).embed_missing()
    except Exception:
        os.replace(claimed, path)  # still owed: the next process tries again
        raise
    claimed.unlink(missing_ok=True)
    if done:
        log.info("embedded %d fact(s) stored without vectors", done)
    return done

"""Facts stored without vectors (a keyword-only CLI, a hook, the MCP server before its warm-up)
are owed vectors: a marker file in the data dir says so, and the next process that has the
model fills them (``AgentMemory.embed_missing``) before it answers a semantic search or a
``verify``. Checking the marker is one ``stat``; the fill is a count comparison per agent when
there is nothing to do.

Facts deleted without the index open (``pin``/``delete`` load neither Chroma nor the model:
0.5-0.9 s of imports) owe the removal of their vectors: their ids are appended to
``vector-deletes`` and the next process with the index drops them first. Meanwhile a search
cannot return them: every vector hit is checked against the fact rows.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

log = logging.getLogger(__name__)
MARKER = "vector-backlog"
DELETES = "vector-deletes"


def mark(data_dir: Path) -> None:
    try:
        (Path(data_dir) / MARKER).touch()
    except OSError:  # a read-only store: `verify --repair` still finds the missing vectors
        pass


def pending(data_dir: Path) -> bool:
    return os.path.exists(Path(data_dir) / MARKER) or os.path.exists(Path(data_dir) / DELETES)


def owe_deletes(data_dir: Path, agent_id: int, ids: Iterable[int]) -> None:
    """Queue the removal of these facts' vectors (one appended line, private to the user)."""
    line = json.dumps({"agent": int(agent_id), "ids": sorted(int(i) for i in ids)}) + "\n"
    fd = os.open(Path(data_dir) / DELETES, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())  # one write in append mode: lines never interleave
    finally:
        os.close(fd)


def apply_deletes(engram: EngramHandle) -> int:
    """Drop the vectors queued by ``owe_deletes``; the number of ids. A queued id that has a
    row again (SQLite reuses the largest id once it is deleted) is owed a fresh vector."""
    if engram.index is None:
        return 0
    path = Path(engram.config.data_dir) / DELETES
    claimed = path.with_name(f"{DELETES}.{os.getpid()}")
    try:
        os.replace(path, claimed)
    except OSError:
        return 0
    try:
        by_agent: dict[int, set[int]] = {}
        for raw in claimed.read_text("utf-8").splitlines():
            try:
                rec = json.loads(raw)
                by_agent.setdefault(int(rec["agent"]), set()).update(int(i) for i in rec["ids"])
            except (ValueError, KeyError, TypeError):
                log.warning("skipped an unreadable line of %s", DELETES)
        for agent_id, ids in by_agent.items():
            engram.index.delete(agent_id, sorted(ids))
    except Exception:
        _requeue(claimed, path)
        raise
    claimed.unlink(missing_ok=True)
    from services.store import fact_rows

    every = {i for ids in by_agent.values() for i in ids}
    if every and next(fact_rows.texts_of(sorted(every)), None) is not None:
        mark(engram.config.data_dir)
    if every:
        log.info("dropped %d vector(s) of facts deleted without the index", len(every))
    return len(every)


def _requeue(claimed: Path, path: Path) -> None:
    """Put claimed lines back, after any queued meanwhile."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, claimed.read_bytes())
    finally:
        os.close(fd)
    claimed.unlink(missing_ok=True)


def drain(engram: EngramHandle) -> int:
    """Embed every agent's facts that have no vector yet; the number embedded. The marker is
    renamed away first, so a write that marks the backlog meanwhile is not lost."""
    if engram.index is None:
        return 0
    apply_deletes(engram)  # first: an orphan vector would pass for a fact's own in the counts
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

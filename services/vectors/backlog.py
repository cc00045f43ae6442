"""Facts stored without vectors (a keyword-only CLI, a hook, the MCP server before its warm-up,
a bulk import) are owed vectors: a marker file in the data dir says so, and the next process
that has the model fills them (``AgentMemory.embed_missing``) before it answers a semantic
search or a ``verify``. Checking the marker is one ``stat``; the fill is a count comparison
per agent when there is nothing to do.

A bulk import (``services.ingest.bulk.bulk_store``) also owes its facts' entity links: it
appends ``agent first_id last_id`` lines to a second file, which the drain links after the
vectors. ``engram import`` starts the drain in a child right away (``engram model fill``),
which logs its progress; a drain claims the markers first, so two never run at once.

Facts deleted without the index open (``pin``/``delete`` load neither Chroma nor the model:
0.5-0.9 s of imports) owe the removal of their vectors: their ids are appended to
``vector-deletes`` and the next process with the index drops them first. Meanwhile a search
cannot return them: every vector hit is checked against the fact rows.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

log = logging.getLogger(__name__)
MARKER = "vector-backlog"
DELETES = "vector-deletes"
LINKS = "link-backlog"


def mark(data_dir: Path, links: tuple[int, int, int] | None = None) -> None:
    """Vectors are owed; with ``links`` (agent id, first fact id, last fact id), the entity
    links of those facts too."""
    try:
        if links is not None:
            # O_APPEND: two importers' lines do not interleave (one short write each)
            fd = os.open(Path(data_dir) / LINKS, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, ("%d %d %d\n" % links).encode())
            finally:
                os.close(fd)
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


def drain(engram: EngramHandle, progress: Callable[[int, int], None] | None = None) -> int:
    """Embed every agent's facts that have no vector yet, then link the entities a bulk
    import owes; the number embedded. The marker is renamed away first, so a write that
    marks the backlog meanwhile is not lost. ``progress(done, owed)`` after each batch."""
    if engram.index is None:
        _link_owed(engram)  # the links need no model
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
            base = done

            def step(n: int, total: int, base: int = base) -> None:
                if progress:
                    progress(base + n, base + total)

            done += engram.agent(a.slug).embed_missing(progress=step)
        _link_owed(engram)
    except Exception:
        os.replace(claimed, path)  # still owed: the next process tries again
        raise
    claimed.unlink(missing_ok=True)
    if done:
        log.info("embedded %d fact(s) stored without vectors", done)
    return done


def _link_owed(engram: EngramHandle) -> None:
    """Entity links for the fact ranges bulk imports stored (the pipeline links each fact
    as it stores it; a bulk import leaves it to here)."""
    from models import Agent

    path = Path(engram.config.data_dir) / LINKS
    claimed = path.with_name(f"{LINKS}.{os.getpid()}")
    try:
        os.replace(path, claimed)
    except OSError:
        return
    ranges: dict[int, list[tuple[int, int]]] = {}
    for line in claimed.read_text(encoding="ascii", errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            aid, lo, hi = map(int, parts)
            ranges.setdefault(aid, []).append((lo, hi))
    linked = 0
    for aid, spans in ranges.items():
        a = Agent.get_or_none(Agent.id == aid)
        if a is None:
            continue
        linked += engram.agent(a.slug).link_owed(spans)
    claimed.unlink(missing_ok=True)
    if linked:
        log.info("linked the entities of %d bulk-imported fact(s)", linked)

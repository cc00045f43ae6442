"""Physical purge: vectors out of Chroma's files, free pages and WAL frames out of SQLite.

Deleting an id in Chroma only marks it in hnswlib; the float32 vector stays in
``data_level0.bin`` and the document in ``chroma.sqlite3``'s free pages. So a purge rebuilds
the agent's collection from the vectors it keeps, removes the dropped collection's segment
directory (Chroma leaves it on disk) and VACUUMs ``chroma.sqlite3``. For Engram's own store it
merges the FTS5 segments (a deleted row's terms stay in old segments until a merge), then
checkpoints the WAL, VACUUMs and truncates the WAL; ``secure_delete`` zeroes freed pages.
"""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from services.forget.scrub import scrub_file
from services.store import fact_rows

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

log = logging.getLogger(__name__)


def purge_vectors(
    engram: EngramHandle, agent_id: int, drop_ids: set[int], drop: bool = False
) -> list[str]:
    """Rebuild the agent's collection without ``drop_ids``: deleting ids in Chroma only
    marks them in HNSW, so the vectors would stay in the segment files."""
    idx = engram.index
    notes: list[str] = []
    if _vectors_in_postgres(engram):
        # pgvector: a vector is a row of fact_vector; it goes with its fact (ON DELETE
        # CASCADE) and the owner's compaction rewrites the table's files with the others
        if idx is not None:
            idx.drop(agent_id) if drop else idx.delete(agent_id, drop_ids)
        return notes
    if idx is None:
        _drop_collection_raw(engram, agent_id)
        notes.append(
            "vector index dropped for this agent (model not loaded); run "
            "`engram verify --repair` once the model is available to re-embed"
        )
        return notes
    if drop:
        idx.drop(agent_id)
        return notes
    from services.vectors.index import VectorIndex

    if not isinstance(idx, VectorIndex):  # only Chroma keeps deleted vectors in its segments
        idx.delete(agent_id, drop_ids)
        return notes
    # held from reading the vectors to writing them back: an agent's hook writing now
    # waits (and then writes into the new collection) instead of losing its vector
    with idx.writing(agent_id):
        _rebuild(idx, agent_id, drop_ids)
    return notes


STORED_ALL = 20_000  # forgotten vectors read whole before a purge; above, the sample's only


def forgotten_vectors(engram: EngramHandle, pv) -> dict[str, list[float]]:
    """The stored vectors of the facts a forget is about to drop, by the fact's text, read
    before the purge: the check after it looks for these very bytes in Chroma's files
    instead of embedding the texts again (6 s of a 1 % forget at 10k facts). Above
    ``STORED_ALL`` only the texts the check is likely to read (its sample); a text without a
    vector read here (or one this process cannot read) is embedded by the check, as before."""
    from services.forget.preview import verify_sample

    idx = engram.index
    out: dict[str, list[float]] = {}
    # only a local Chroma's files are scanned for vectors (a server's, pgvector's are not ours)
    if idx is None or not Path(str(engram.config.vector_location)).is_dir():
        return out
    every = sum(len(ap.vectors) for ap in pv.agents) <= STORED_ALL
    wanted = set(verify_sample([x for ap in pv.agents for x in ap.terms]))
    for ap in pv.agents:
        wanted |= set(verify_sample(ap.terms))
    for ap in pv.agents:
        has = set(ap.vectors)
        texts = {f["id"]: f["content"] for f in ap.facts if f["id"] in has}
        # all of them when few: the check's sample is drawn later, from the texts no kept
        # fact holds, and may pick any
        ids = [i for i, t in texts.items() if every or t in wanted]
        if not ids:
            continue
        try:
            got = {}
            for s in range(0, len(ids), 5000):
                got.update(idx.vectors(ap.agent_id, ids[s : s + 5000]))
        except Exception as exc:  # another process's write not in this one's HNSW view
            log.info("forget: stored vectors not read (%s); the check embeds the texts", exc)
            continue
        for i, v in got.items():
            out.setdefault(texts[i], [float(x) for x in v])
    return out


def _rebuild(idx, agent_id: int, drop_ids: set[int]) -> None:
    vecs, unreadable = idx.readable_vectors(agent_id)
    # rows after vectors: a row committed in between is embedded below, not lost
    rows = {i: c for i, c in fact_rows.fact_texts(agent_id) if i not in drop_ids}
    keep = [i for i in vecs if i in rows]
    idx.drop(agent_id)
    if keep:
        import numpy as np  # here: the app's forget dialog loads this module at start

        idx.upsert(agent_id, keep, [rows[i] for i in keep], np.stack([vecs[i] for i in keep]))
    # rows that had no vector yet, or one this process could not read (written by another
    # process since it opened Chroma): embedded now, so the index is whole
    missing = [i for i in rows if i not in vecs]
    if missing:
        idx.upsert(agent_id, missing, [rows[i] for i in missing])
    if unreadable:
        log.info("vector rebuild: %d vector(s) re-embedded from their rows", len(unreadable))


def _vectors_in_postgres(engram: EngramHandle) -> bool:
    from models.db import is_postgres

    if getattr(engram.index, "kind", "") == "pgvector":
        return True
    if not is_postgres(engram.db) or engram.config.vector_url:
        return False
    from models.server_schema import vectors_in_database

    return vectors_in_database(engram.db)


def _drop_collection_raw(engram: EngramHandle, agent_id: int) -> None:
    path = Path(engram.config.vector_location)
    if not path.is_dir():
        return
    from services.vectors.index import VectorIndex

    VectorIndex(path, None).drop(agent_id)


# a team store's tables that hold memory text (the tsvector columns live in fact and episode;
# entity holds names, fact_vector embeddings): models/server_schema.py
def compact_server_store(engram: EngramHandle) -> list[str]:
    """PostgreSQL keeps a deleted row as a dead tuple until the table is rewritten. A member
    does not own the tables (and may not VACUUM them): the owner's ``engram_compact``
    function rewrites each (CLUSTER: new files for the table, its TOAST and its indexes, GIN
    included). The notes say what actually ran. What it cannot reach (WAL segments not yet
    recycled, replicas, base backups, a Chroma server's files) is the server operator's, and
    ``forget --verify`` says so."""
    from models.server_schema import COMPACT_TABLES
    from services.teamstore import compact_team_store

    return compact_team_store(engram.db, COMPACT_TABLES)


def compact_store(engram: EngramHandle) -> list[str]:
    from models.db import is_postgres

    if is_postgres(engram.db):
        return compact_server_store(engram)
    notes: list[str] = []
    db = engram.db
    if db.execute_sql("PRAGMA secure_delete").fetchone()[0] != 1:
        db.execute_sql("PRAGMA secure_delete = 1")
        notes.append("secure_delete was off on this connection; turned on")
    for table in ("fact_fts", "episode_fts"):
        db.execute_sql(f"INSERT INTO {table}({table}) VALUES('optimize')")
    if not _checkpoint(engram):
        notes.append(
            "another process holds the database open; its WAL could not be "
            "truncated yet (run `engram forget --verify` after it closes)"
        )
    db.execute_sql("VACUUM")
    _checkpoint(engram)
    notes += _compact_chroma(engram)
    return notes


def _checkpoint(engram: EngramHandle, tries: int = 20) -> bool:
    for i in range(tries):
        busy, _log, _done = engram.db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if not busy:
            return True
        time.sleep(0.05 * (i + 1))
    return False


def _compact_chroma(engram: EngramHandle) -> list[str]:
    from services.forget import isolated

    loc = Path(engram.config.vector_location)
    if not (loc / "chroma.sqlite3").is_file():
        return []
    # in a child: a second SQLite library in this process must not touch the file Chroma's
    # Rust SQLite holds (see services/forget/isolated.py)
    live, problem = isolated.run(isolated.chroma_compact_job, str(loc))
    notes = [problem] if problem else []
    if live is not None:
        # a dropped collection's HNSW directory stays on disk: remove it
        for d in loc.iterdir():
            if d.is_dir() and d.name not in set(live) and (d / "header.bin").exists():
                for p in d.iterdir():
                    scrub_file(p)
                shutil.rmtree(d, ignore_errors=True)
    return notes

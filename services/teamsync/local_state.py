"""The local side of sync: this client's id, the pull cursor, which local fact is which
shared fact (a uid), and the outbox of changes not yet pushed. Plain tables in the local
store, created on first use (a store that never syncs never has them)."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from models import Agent
from models import instance as store_instance
from services.store import fact_rows
from services.store.uids import all_fact_uids

SYNCED_STATUSES = ("active", "archived")
# what a round carries besides the text: a change to any of them is a change to push
CARRIED = ("category", "importance", "pinned", "tags", "status")


def state_hash(
    content_hash: str, category: Any, importance: Any, pinned: Any, tags: Any, status: Any
) -> str:
    """One hash of everything sync carries, so an edit of any of it is seen as a change."""
    norm = [
        content_hash,
        category or "",
        round(float(importance or 0.0), 6),
        bool(pinned),
        sorted(tags or []),
        status or "",
    ]
    return hashlib.sha256(json.dumps(norm).encode("utf-8")).hexdigest()


def row_hash(f: Any) -> str:
    return state_hash(f.content_hash, f.category, f.importance, f.pinned, f.tags, f.status)


def row_fields(f: Any) -> dict[str, str]:
    """A short hash per carried field (the text by its content hash): what the two sides
    agreed on, field by field, so a round tells which side changed which field (a pin on
    one machine and a new wording on the other are two changes, not a conflict)."""
    norm = {
        "content": f.content_hash,
        "category": f.category or "",
        "importance": round(float(f.importance or 0.0), 6),
        "pinned": bool(f.pinned),
        "tags": sorted(f.tags or []),
        "status": f.status or "",
    }
    return {k: hashlib.sha256(json.dumps(v).encode()).hexdigest()[:16] for k, v in norm.items()}


LOCAL_SQL = [
    "CREATE TABLE IF NOT EXISTS sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # synced_hash: the state hash (text and carried fields) both sides agreed on at the last
    # round (an edit since makes the local fact differ from it); a content hash alone in a
    # store that synced before the fields travelled
    """CREATE TABLE IF NOT EXISTS sync_map (local_id INTEGER PRIMARY KEY, uid TEXT NOT NULL
        UNIQUE, agent_slug TEXT NOT NULL, synced_hash TEXT)""",
    # no text in the queue: an upsert reads the fact when it is pushed (a fact forgotten
    # before the push is not sent at all)
    """CREATE TABLE IF NOT EXISTS sync_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT,
        op TEXT NOT NULL, agent_slug TEXT NOT NULL, uid TEXT NOT NULL, local_id INTEGER)""",
]


def exists(db) -> bool:
    """Has this store ever synced (its sync tables were made on first use)?"""
    row = db.execute_sql(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_state'"
    ).fetchone()
    return row is not None


def ensure(db) -> None:
    for stmt in LOCAL_SQL:
        db.execute_sql(stmt)
    cols = {r[1] for r in db.execute_sql("PRAGMA table_info(sync_map)").fetchall()}
    if "synced_fields" not in cols:  # a store that synced before fields were merged
        db.execute_sql("ALTER TABLE sync_map ADD COLUMN synced_fields TEXT")


def get(db, key: str, default: str | None = None) -> str | None:
    row = db.execute_sql("SELECT value FROM sync_state WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def put(db, key: str, value: str) -> None:
    db.execute_sql(
        "INSERT INTO sync_state(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def client_id(db) -> str:
    """This store's id as a sync client, bound to the store's instance: a copy of the data
    dir or a restored backup (a new instance, models/instance.py) pushes under an id of its
    own, so the server never takes its pushes for the original's (same id, same sequence
    numbers) and pulls what the original pushed. Its outbox stays queued for the new id:
    what the server did not acknowledge from it goes again (pushes are idempotent by uid)."""
    cid = get(db, "client_id")
    inst = store_instance.instance(db)
    bound = get(db, "client_instance")
    if cid is None or (bound is not None and bound != inst):
        cid = uuid.uuid4().hex
        put(db, "client_id", cid)
    if bound != inst:
        put(db, "client_instance", inst)  # a store that synced before v10 keeps its id
    return cid


RENAMED = "server_slug:"  # sync_state key prefix: a local agent's other name on the server


def renames(db) -> dict[str, str]:
    """local agent slug -> its name on the server, where the two differ (a slug clash)."""
    rows = db.execute_sql(
        "SELECT key, value FROM sync_state WHERE key LIKE ?", (RENAMED + "%",)
    ).fetchall()
    return {k[len(RENAMED) :]: v for k, v in rows}


def renamed(db, slug: str) -> str | None:
    return get(db, RENAMED + slug)


def rename(db, slug: str, there: str) -> None:
    put(db, RENAMED + slug, there)


def mapped(db) -> dict[int, tuple[str, str, str | None]]:
    """local fact id → (uid, agent slug, synced hash)"""
    rows = db.execute_sql("SELECT local_id, uid, agent_slug, synced_hash FROM sync_map")
    return {lid: (uid, slug, h) for lid, uid, slug, h in rows.fetchall()}


def agreed_fields(db) -> dict[int, dict[str, str]]:
    """local fact id → the per-field hashes agreed at the last round (row_fields)"""
    rows = db.execute_sql(
        "SELECT local_id, synced_fields FROM sync_map WHERE synced_fields IS NOT NULL"
    )
    return {lid: json.loads(v) for lid, v in rows.fetchall()}


def local_for(db, uid: str) -> int | None:
    row = db.execute_sql("SELECT local_id FROM sync_map WHERE uid = ?", (uid,)).fetchone()
    return row[0] if row else None


def map_fact(
    db, local_id: int, uid: str, slug: str, synced_hash: str | None, fields: dict | None = None
) -> None:
    db.execute_sql("DELETE FROM sync_map WHERE uid = ? OR local_id = ?", (uid, local_id))
    db.execute_sql(
        "INSERT INTO sync_map(local_id, uid, agent_slug, synced_hash, synced_fields) "
        "VALUES (?, ?, ?, ?, ?)",
        (local_id, uid, slug, synced_hash, json.dumps(fields) if fields else None),
    )


def map_row(db, f: Any, uid: str, slug: str) -> None:
    """The local row ``f`` is what both sides agree on now."""
    map_fact(db, f.id, uid, slug, row_hash(f), row_fields(f))


def unmap(db, uid: str) -> None:
    db.execute_sql("DELETE FROM sync_map WHERE uid = ?", (uid,))


def queued(db) -> list[tuple[int, str, str, str, int | None]]:
    return db.execute_sql(
        "SELECT seq, op, agent_slug, uid, local_id FROM sync_outbox ORDER BY seq"
    ).fetchall()


def collect(db) -> int:
    """Queue what changed locally since the last round: new facts, edited facts (content
    differs from the agreed hash), forgotten or deleted facts (mapped, gone). Returns how
    many operations were queued now."""
    cid = client_id(db)
    known = mapped(db)
    waiting = {(op, uid) for _, op, _, uid, _ in queued(db)}
    slugs = dict(Agent.select(Agent.id, Agent.slug).tuples())
    n = 0
    alive = set()
    rows = list(fact_rows.sync_states())
    # a new shared fact is known by the fact's own uid: row ids repeat across copies of a store
    uids = all_fact_uids([r[0] for r in rows if r[0] not in known and r[3] in SYNCED_STATUSES])
    taken = {uid for uid, _, _ in known.values()}
    for fid, aid, ch, status, category, importance, pinned, tags in rows:
        alive.add(fid)
        if status not in SYNCED_STATUSES:
            continue  # superseded history and review candidates stay local
        h = state_hash(ch, category, importance, pinned, tags, status)
        if fid in known:
            uid, slug, synced = known[fid]
            if synced == ch:  # agreed before the fields travelled: agreed now
                map_fact(db, fid, uid, slug, h)
                continue
            if synced == h or ("upsert", uid) in waiting:
                continue
        else:
            uid, slug = uids.get(fid) or f"{cid}:{fid}", slugs[aid]
            if uid in taken:  # an archive imported twice into this store carries a uid twice
                uid = f"{cid}:{fid}"
            taken.add(uid)
            map_fact(db, fid, uid, slug, None)
            if ("upsert", uid) in waiting:
                continue
        _queue(db, "upsert", slug, uid, fid)
        n += 1
    gone = [f for f in known if f not in alive]  # rows that no longer exist
    # a delete (undoable, no rule) travels as a delete; only a forget is an erasure
    deleted = fact_rows.deleted_not_forgotten(gone)
    for fid in gone:
        uid, slug, _ = known[fid]
        op = "delete" if fid in deleted else "erase"
        if (op, uid) not in waiting:
            _queue(db, op, slug, uid, None)
            n += 1
        unmap(db, uid)
    return n


def _queue(db, op: str, slug: str, uid: str, local_id: int | None) -> None:
    db.execute_sql(
        "INSERT INTO sync_outbox(op, agent_slug, uid, local_id) VALUES (?, ?, ?, ?)",
        (op, slug, uid, local_id),
    )


def done(db, seq: int) -> None:
    db.execute_sql("DELETE FROM sync_outbox WHERE seq = ?", (seq,))

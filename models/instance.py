"""The store's own identity (schema v10), and how a copy or a restored backup is told apart
from the store it came from.

A store holds an instance id in ``store_identity``. A local store also keeps a marker file
beside its database (``engram.db.identity``) naming that instance, where the file was (path,
device, inode) and the store's checkpoint, a random token the sync advances after each round.
Opening compares the two: the same instance in another place is a copy (``cp -a`` of the data
dir); a checkpoint the database does not hold is an older file put back (a restored backup).
Either way the store takes a new instance id, so whatever names the old one (the sync's
client identity, an agent's write-back links) knows it is not talking to the same store.

Write-back marks work the same way per agent: each save of an agent's links draws a new
token, kept in the database and in the links file; links whose token the database does not
hold were written against a later state of the store than the one open now.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import peewee as pw

from models.filelock import exclusive_lock

MARKER_SUFFIX = ".identity"


def _get(db: pw.Database, key: str) -> str | None:
    got = db.execute_sql(
        "SELECT value FROM store_identity WHERE key = " + _p(db), (key,)
    ).fetchone()
    return got[0] if got else None


def _put(db: pw.Database, key: str, value: str) -> None:
    p = _p(db)
    db.execute_sql(
        f"INSERT INTO store_identity(key, value) VALUES ({p}, {p}) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def _p(db: pw.Database) -> str:
    return "%s" if isinstance(getattr(db, "obj", db), pw.PostgresqlDatabase) else "?"


def new_instance(db: pw.Database, because: str | None = None) -> str:
    """Give the store a new instance id (the old one is kept as its parent)."""
    old = _get(db, "instance")
    inst = uuid.uuid4().hex
    _put(db, "instance", inst)
    if old is not None:
        _put(db, "parent", old)
        _put(db, "forked_because", because or "")
    return inst


def instance(db: pw.Database) -> str:
    return _get(db, "instance") or ""


# the marker file beside a local store --------------------------------------------------------
def _marker_path(db_path: Path) -> Path:
    return Path(str(db_path) + MARKER_SUFFIX)


def _here(db_path: Path) -> dict:
    st = db_path.stat()
    return {"path": str(db_path.resolve()), "device": st.st_dev, "inode": st.st_ino}


def _read_marker(db_path: Path) -> dict | None:
    try:
        got = json.loads(_marker_path(db_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return got if isinstance(got, dict) else None


def _write_marker(db_path: Path, data: dict) -> None:
    # models sit below services.store.atomic: the same temp-file-and-rename, inline
    target = _marker_path(db_path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, target)


def _checkpoints(db: pw.Database) -> tuple[str, ...]:
    return tuple((_get(db, "checkpoint") or "").split())


def why_not_the_same(marker: dict | None, db: pw.Database, here: dict) -> str | None:
    """Why the database open now is not the store the marker describes (None: it is)."""
    if marker is None:
        # the first open since v10 (or a folder where no marker could be written): trust the
        # file; but a database that had a marker and now has none was copied without it
        inst = instance(db)
        return "copied without its marker" if _get(db, "marked") == inst else None
    if marker.get("instance") != instance(db):
        return "its marker names another store"
    if any(marker.get(k) != here[k] for k in ("path", "device", "inode")):
        return "copied or moved from " + str(marker.get("path"))
    if marker.get("checkpoint") and marker["checkpoint"] not in _checkpoints(db):
        return "an older copy of the database was put back (restored from a backup)"
    return None


def settle(db: pw.Database, db_path: Path) -> str | None:
    """On opening a local store: a copy or a restored file gets its own instance id. Returns
    why it did (None: the store is the one its marker describes). Caller holds the open
    lock."""
    marker = _read_marker(db_path)
    here = _here(db_path)
    why = why_not_the_same(marker, db, here)
    if why is not None:
        with db.atomic():
            new_instance(db, why)
    want = {**here, "instance": instance(db), "checkpoint": (_checkpoints(db) or ("",))[0]}
    if marker != want:
        try:
            _write_marker(db_path, want)
        except OSError:
            return why  # a read-only folder: the store still opens, a writable open marks it
    if _get(db, "marked") != want["instance"]:
        with db.atomic():
            _put(db, "marked", want["instance"])
    return why


def advance(db: pw.Database) -> None:
    """Something outside the database now depends on its state (a sync round reached the
    server): a new checkpoint in the database (the previous one kept: a crash between the
    two writes is not a restore) and then in the marker."""
    path = Path(str(getattr(getattr(db, "obj", db), "database", "") or ""))
    if not path.is_file():
        return  # a team store: no marker
    token = uuid.uuid4().hex
    with exclusive_lock(Path(str(path) + ".open-lock")):
        with db.atomic():
            _put(db, "checkpoint", " ".join((token, *_checkpoints(db)[:1])))
        _write_marker(path, {**_here(path), "instance": instance(db), "checkpoint": token})


# write-back marks (services/interop/writeback.py) --------------------------------------------
def _mark_key(agent_uid: str) -> str:
    return f"writeback:{agent_uid}"


def writeback_marks(db: pw.Database, agent_uid: str) -> tuple[str, ...]:
    """The agent's latest write-back mark and the one before (the links file is written after
    the database: a crash between them leaves the links one mark behind, not a stranger)."""
    return tuple((_get(db, _mark_key(agent_uid)) or "").split())


def new_writeback_mark(db: pw.Database, agent_uid: str) -> str:
    token = uuid.uuid4().hex
    with db.atomic():
        _put(db, _mark_key(agent_uid), " ".join((token, *writeback_marks(db, agent_uid)[:1])))
    return token

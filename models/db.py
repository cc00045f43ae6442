"""Database factory: one place decides how the store is opened.

The URL names the store so that no service assumes a local file: a plain path or
``sqlite:///path`` opens SQLite; other URLs go through ``playhouse.db_url`` (PostgreSQL is
reserved for shared team stores; FTS5 is SQLite-only, so the keyword search needs SQLite today).
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import peewee
from peewee import SqliteDatabase

from models.filelock import exclusive_lock

database_proxy = peewee.DatabaseProxy()

# WAL lets the GUI read while a hook writes; busy_timeout turns "database is locked" into a
# wait; secure_delete zeroes freed pages so forgotten text does not linger in free pages.
SQLITE_PRAGMAS = {
    "busy_timeout": 30000,  # first: the pragmas after it may have to wait for a lock
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "secure_delete": 1,
    "cache_size": -32000,
    "temp_store": "memory",
}


def sqlite_path_from_url(url: str) -> Path | None:
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite:///") :])
    if "://" not in url:
        return Path(url)
    return None


def open_database(url: str) -> peewee.Database:
    """Create (but do not bind) the database named by ``url``."""
    path = sqlite_path_from_url(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # BEGIN IMMEDIATE: a deferred transaction that reads then writes can fail with
        # SQLITE_BUSY without waiting on busy_timeout; taking the write lock up front makes
        # concurrent writers (GUI, compile worker, agents' hooks) queue instead of failing.
        return SqliteDatabase(
            str(path),
            pragmas=SQLITE_PRAGMAS,
            check_same_thread=False,
            timeout=30,
            lock_type="IMMEDIATE",
        )
    from playhouse.db_url import connect

    return connect(url)


def connect_database(url: str) -> peewee.Database:
    """Open the database, bind the models to it and bring the schema up to date."""
    from models.schema import migrate

    db = open_database(url)
    database_proxy.initialize(db)
    path = sqlite_path_from_url(url)
    # Two hooks starting at once on a new store both switch it to WAL and migrate it; the
    # loser of that race sees "database is locked". One opener at a time, per store.
    with _open_lock(path):
        db.connect(reuse_if_open=True)
        migrate(db)
    return db


def _open_lock(path: Path | None):
    if path is None:
        return nullcontext()
    return exclusive_lock(Path(str(path) + ".open-lock"))

"""Dated store backups.

A backup is a consistent copy of the SQLite store taken with SQLite's online backup API (safe
while other connections read or write). The vector index is not backed up: it is rebuilt
from the rows.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime
from pathlib import Path

from services.store.handle import EngramHandle

BACKUP_DIR = "backups"


def db_path(engram: EngramHandle) -> Path | None:
    import peewee as pw

    return Path(engram.db.database) if isinstance(engram.db, pw.SqliteDatabase) else None


def backup_store(engram: EngramHandle, reason: str) -> Path | None:
    src = db_path(engram)
    if src is None or not src.exists():
        return None
    out_dir = Path(engram.config.data_dir) / BACKUP_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    dest = out_dir / f"{src.stem}.{reason}.{stamp}.db"
    with sqlite3.connect(str(src), timeout=30) as s, sqlite3.connect(str(dest)) as d:
        s.backup(d)
    d.close()
    s.close()
    os.chmod(dest, 0o600)
    return dest


def store_backups(engram: EngramHandle) -> list[Path]:
    """Every copy of the store: dated forget backups and the migration backups
    (``engram.v<N>.<stamp>.bak`` beside the database)."""
    out: list[Path] = []
    bdir = Path(engram.config.data_dir) / BACKUP_DIR
    if bdir.is_dir():
        out += sorted(p for p in bdir.iterdir() if p.is_file())
    src = db_path(engram)
    if src is not None and src.parent.is_dir():
        out += sorted(src.parent.glob(f"{src.stem}.v*.bak"))
    return out

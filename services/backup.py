"""Dated store backups, and scrubbing files so a purge does not leave a copy behind.

A backup is a consistent copy of the SQLite store taken with SQLite's online backup API (safe
while other connections read or write). The vector index is not backed up: it is rebuilt
from the rows.
"""
from __future__ import annotations

import os
import sqlite3
from datetime import datetime
from pathlib import Path

BACKUP_DIR = "backups"


def db_path(engram) -> Path | None:
    import peewee as pw

    return Path(engram.db.database) if isinstance(engram.db, pw.SqliteDatabase) else None


def backup_store(engram, reason: str) -> Path | None:
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


def store_backups(engram) -> list[Path]:
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


def scrub_file(path: Path) -> None:
    """Overwrite a file's bytes with zeros before unlinking it, so the blocks it used do not
    keep the content (on filesystems that overwrite in place; copy-on-write ones and SSD
    wear levelling may still keep old blocks — full-disk encryption covers those)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "r+b", buffering=0) as fh:
            chunk = b"\0" * (1 << 20)
            left = size
            while left > 0:
                n = min(left, len(chunk))
                fh.write(chunk[:n])
                left -= n
            os.fsync(fh.fileno())
    except FileNotFoundError:
        return
    except OSError:
        pass  # read-only copy: still try to unlink
    path.unlink(missing_ok=True)


def scrub_replace(path: Path, data: str | bytes) -> None:
    """Atomically replace a user file, then zero the old inode's bytes: the new content is
    in place before anything is destroyed, and the old content does not linger on disk."""
    from services.atomic import atomic_write

    path = Path(path)
    old = None
    try:
        old = open(path, "r+b", buffering=0)
    except OSError:
        old = None
    try:
        atomic_write(path, data)
        if old is not None:
            size = os.fstat(old.fileno()).st_size
            old.seek(0)
            old.write(b"\0" * size)
            os.fsync(old.fileno())
    finally:
        if old is not None:
            old.close()

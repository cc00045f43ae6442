"""Scrubbing files so a purge does not leave a copy behind: zero the bytes, then unlink or replace."""

from __future__ import annotations

import os
from pathlib import Path


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
    from services.store.atomic import atomic_write

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

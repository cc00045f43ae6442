"""Turn a low-level storage failure into a sentence a user can act on."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path


def explain(exc: BaseException, data_dir: str | Path | None) -> str:
    """A hint to append to a database/OS error: read-only, full, damaged or missing store."""
    msg = str(exc).lower()
    d = Path(data_dir).expanduser() if data_dir else None
    if d is not None and d.exists() and not os.access(d, os.W_OK):
        return f" (the data directory {d} is read-only: make it writable or use --data-dir)"
    if "disk is full" in msg or getattr(exc, "errno", None) == errno.ENOSPC:
        return f" (no space left on the disk holding {d}: free some space; nothing was stored)"
    if d is not None and d.exists():
        try:
            if shutil.disk_usage(d).free < 1 << 20:
                return f" (the disk holding {d} is full: free some space; nothing was stored)"
        except OSError:
            pass
    if "not a database" in msg or "malformed" in msg:
        where = f" --data-dir {d}" if d else ""
        return (
            f" (the store in {d} is damaged: `engram{where} restore` lists its backups, "
            f"`engram{where} restore NAME --yes` puts one back)"
        )
    if "readonly" in msg or "read-only" in msg:
        return f" (the store in {d} cannot be written: check its permissions)"
    return ""

"""An inter-process lock on a file, through the `filelock` library (fcntl on POSIX,
msvcrt on Windows, so the lock holds on every platform the app ships to)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock


@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a fresh lock object per use: two threads of one process exclude each other too
    with FileLock(str(path), mode=0o600):
        yield

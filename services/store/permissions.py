"""Private by default: the store is the user's alone.

Memory holds what the user told their agents; nobody else on the machine may read it. New
files are created under umask 077 (directories 0700, files 0600); an existing store whose
files other local users could read is tightened when it is opened, and ``engram verify``
reports anything that is still loose (a file the store cannot chmod, a database kept
outside the data directory).
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from services.store.atomic import PRIVATE_DIR, PRIVATE_FILE

log = logging.getLogger(__name__)
PRIVATE_UMASK = 0o077


def private_umask() -> None:
    """Every file this process creates from here on is the user's alone."""
    os.umask(PRIVATE_UMASK)


def _store_paths(data_dir: Path, extra: list[Path]) -> Iterator[Path]:
    if data_dir.is_dir():
        yield data_dir
        for root, dirs, files in os.walk(data_dir, followlinks=False):
            for name in dirs + files:
                yield Path(root) / name
    for p in extra:
        for q in (p, Path(str(p) + "-wal"), Path(str(p) + "-shm")):
            if q.exists():
                yield q


def _wanted(st: os.stat_result) -> int | None:
    if stat.S_ISDIR(st.st_mode):
        return PRIVATE_DIR
    if stat.S_ISREG(st.st_mode):
        return PRIVATE_FILE
    return None  # links, sockets: their mode is not what guards the data


def loose(data_dir: Path, extra: Sequence[Path] = ()) -> list[tuple[Path, int]]:
    """(path, mode) of store files and directories other users can read or write."""
    out = []
    for p in _store_paths(Path(data_dir), list(extra)):
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if _wanted(st) is not None and st.st_mode & 0o077:
            out.append((p, stat.S_IMODE(st.st_mode)))
    return out


def tighten(data_dir: Path, extra: Sequence[Path] = ()) -> list[str]:
    """Make the store private; returns a note per thing changed (and per failure)."""
    fixed, failed = 0, []
    for p, mode in loose(data_dir, extra):
        try:
            # only take others' bits away: a store the user made read-only stays read-only
            os.chmod(p, mode & ~0o077)
            fixed += 1
        except OSError as exc:
            failed.append(f"could not make {p} private ({oct(mode)}): {exc.strerror}")
    notes = failed
    if fixed:
        notes.insert(
            0,
            f"store permissions tightened: {fixed} file(s) and folder(s) in {data_dir} "
            "were readable by other users; now only you can read them",
        )
    for n in notes:
        log.warning(n)
    return notes


def describe_loose(data_dir: Path, extra: Sequence[Path] = ()) -> list[str]:
    return [
        f"loose permissions: {p} is {oct(mode)} (other users can read it; want "
        f"{oct(PRIVATE_DIR if p.is_dir() else PRIVATE_FILE)})"
        for p, mode in loose(data_dir, extra)
    ]

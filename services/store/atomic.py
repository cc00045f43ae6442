"""Atomic writes for user files: temp file in the same directory, fsync, rename, fsync dir.

Safe by construction: a symlink is followed and its target replaced (the link stays a link);
a device, FIFO, socket or directory is never replaced by a regular file; the target keeps its
mode (a new file is private, 0600); callers writing where the user pointed (exports) can
refuse to overwrite an existing file and refuse to create a missing parent directory.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from services.errors import InvalidInput

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


class UnsafeTarget(InvalidInput):
    """The path cannot be written safely (not a regular file, exists, no parent)."""


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def resolve_target(path: str | Path) -> Path:
    """Where a write to ``path`` must land: the end of its symlink chain (a loop or an
    unreadable link is an error, never "no such file")."""
    path = Path(path)
    if not path.is_symlink():
        return path
    try:
        os.stat(path)
    except FileNotFoundError:
        pass  # a dangling link: writing creates its target
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeTarget(f"{path}: symbolic link loop") from None
        raise
    return Path(os.path.realpath(path))


def check_target(
    path: str | Path, overwrite: bool = True, create_parent: bool = True
) -> tuple[Path, int | None]:
    """(the file to replace, its current mode or None) or UnsafeTarget saying why not."""
    path = Path(path)
    target = resolve_target(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeTarget(f"{path}: symbolic link loop") from None
        raise
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeTarget(f"refusing to write {path}: it is {_kind(st.st_mode)}")
        if not overwrite:
            raise UnsafeTarget(f"{path} exists (use --force to replace it)")
        return target, st.st_mode & 0o7777
    parent = target.parent
    if not parent.is_dir():
        if parent.exists():
            raise UnsafeTarget(f"cannot write {path}: {parent} is not a directory")
        if not create_parent:
            raise UnsafeTarget(f"cannot write {path}: directory {parent} does not exist")
    return target, None


def atomic_write(
    path: str | Path,
    data: str | bytes,
    mode: int | None = None,
    *,
    overwrite: bool = True,
    create_parent: bool = True,
) -> Path:
    target, old_mode = check_target(path, overwrite=overwrite, create_parent=create_parent)
    target.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if mode is None:
        mode = old_mode if old_mode is not None else PRIVATE_FILE
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dfd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # some filesystems refuse a directory fsync; the rename still happened
        pass
    return Path(path)

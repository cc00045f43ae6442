"""Dated store backups.

A backup is a consistent copy of the SQLite store taken with SQLite's online backup API (safe
while other connections read or write). Forget's own copies are single database files (the
vector index is rebuilt from the rows); ``engram backup`` and the daily backup copy the whole
store, database and vector index, into ``backups/<stamp>/``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from services.store.atomic import atomic_write
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
        # whole-store backups: their database and vector index hold memory text too
        for d in sorted(p for p in bdir.iterdir() if p.is_dir()):
            out += sorted(p for p in d.rglob("*") if p.is_file() and p.name != MANIFEST)
    src = db_path(engram)
    if src is not None and src.parent.is_dir():
        out += sorted(src.parent.glob(f"{src.stem}.v*.bak"))
    return out


# whole-store backups: <data dir>/backups/<stamp>/ with engram.db and chroma/ -------------------
STAMP = "%Y%m%d-%H%M%S"
SETTINGS_FILE = "settings.json"
SECTION = "backup"
DEFAULT_KEEP_DAYS = 7
MANIFEST = "backup.json"
SINCE_FILE = ".engram-since"  # the day Engram first opened this store


@dataclass
class StoreBackup:
    name: str
    path: Path
    created: datetime
    reason: str  # "manual", "daily" or "before-restore"
    agents: int
    facts: int
    size: int  # bytes on disk

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "path": str(self.path),
            "created": self.created.isoformat(timespec="seconds"),
            "reason": self.reason,
            "agents": self.agents,
            "facts": self.facts,
            "bytes": self.size,
        }


def keep_days(data_dir: Path) -> int:
    """How many days daily backups are kept (``settings.json`` → ``backup.keep_days``;
    0 turns the daily backup off)."""
    try:
        section = json.loads((Path(data_dir) / SETTINGS_FILE).read_text("utf-8")).get(SECTION)
        value = section.get("keep_days") if isinstance(section, dict) else None
    except (OSError, ValueError, AttributeError):
        value = None
    return value if isinstance(value, int) and value >= 0 else DEFAULT_KEEP_DAYS


def set_keep_days(data_dir: Path, days: int) -> None:
    path = Path(data_dir) / SETTINGS_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    data = data if isinstance(data, dict) else {}
    section = data.get(SECTION)
    data[SECTION] = {**(section if isinstance(section, dict) else {}), "keep_days": int(days)}
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _counts(db: Path) -> tuple[int, int]:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            agents = con.execute("SELECT count(*) FROM agent").fetchone()[0]
            facts = con.execute("SELECT count(*) FROM fact").fetchone()[0]
        finally:
            con.close()
        return int(agents), int(facts)
    except sqlite3.Error:
        return 0, 0


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def create_backup(
    data_dir: Path, db: Path, chroma: Path | None, reason: str = "manual"
) -> StoreBackup:
    """A consistent copy of the store: the database through SQLite's online backup API (safe
    while other connections write), then the vector index folder. Built under a hidden name
    and renamed into place, so a backup that is listed is always whole."""
    root = Path(data_dir) / BACKUP_DIR
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    now = datetime.now()
    name = now.strftime(STAMP)
    n = 1
    while (root / name).exists():  # two backups in one second
        n += 1
        name = f"{now.strftime(STAMP)}-{n}"
    tmp = Path(tempfile.mkdtemp(prefix=".partial-", dir=root))
    try:
        try:
            _copy_db(db, tmp / db.name)
        except sqlite3.DatabaseError:
            if reason != "before-restore":
                raise
            # a damaged store being replaced: its bytes are kept as they are, for a rescue
            (tmp / db.name).unlink(missing_ok=True)
            shutil.copyfile(db, tmp / db.name)
        if chroma is not None and chroma.is_dir():
            shutil.copytree(
                chroma,
                tmp / "chroma",
                ignore=shutil.ignore_patterns("*.lock", "*-wal", "*-shm", "*-journal"),
                copy_function=_copy_file,
            )
        (tmp / MANIFEST).write_text(
            json.dumps({"created": now.isoformat(timespec="seconds"), "reason": reason}) + "\n",
            "utf-8",
        )
        os.replace(tmp, root / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    made = _read(root / name, db.name)
    assert made is not None  # just written whole
    return made


def _copy_db(db: Path, dest: Path) -> None:
    src = sqlite3.connect(str(db), timeout=30)
    dst = sqlite3.connect(str(dest))
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    os.chmod(dest, 0o600)


def _copy_file(src: str, dest: str) -> None:
    """Chroma's own SQLite file is copied as the store's is (a writer may be busy); the
    index segments beside it are plain files."""
    if src.endswith(".sqlite3"):
        _copy_db(Path(src), Path(dest))
    else:
        shutil.copy2(src, dest)


def _read(path: Path, db_name: str = "engram.db") -> StoreBackup | None:
    if not (path / db_name).is_file():  # scrubbed by a forget, or not a backup
        return None
    try:
        meta = json.loads((path / MANIFEST).read_text("utf-8"))
        created = datetime.fromisoformat(meta["created"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    agents, facts = _counts(path / db_name)
    return StoreBackup(
        path.name, path, created, str(meta.get("reason", "manual")), agents, facts, _size(path)
    )


def list_backups(data_dir: Path) -> list[StoreBackup]:
    """Whole-store backups, oldest first (forget's single-file copies are not listed here)."""
    root = Path(data_dir) / BACKUP_DIR
    if not root.is_dir():
        return []
    found = [_read(p) for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return sorted((b for b in found if b is not None), key=lambda b: (b.created, b.name))


def find_backup(data_dir: Path, name: str) -> StoreBackup | None:
    return next((b for b in list_backups(data_dir) if b.name == name), None)


def daily_backup(
    data_dir: Path, db: Path, chroma: Path | None, now: datetime | None = None
) -> StoreBackup | None:
    """Today's automatic backup when there is none yet, and daily backups older than the
    kept days removed. Returns the new backup or None."""
    days = keep_days(data_dir)
    if days == 0 or not db.exists():
        return None
    now = now or datetime.now()
    # the first daily backup is the day after Engram first saw this store: a store made
    # today (a first run, a test) has nothing a backup would save that `engram backup` cannot
    since = Path(data_dir) / SINCE_FILE
    try:
        first = datetime.fromisoformat(since.read_text("utf-8").strip()).date()
    except (OSError, ValueError):
        atomic_write(since, now.date().isoformat() + "\n")
        return None
    if first >= now.date():
        return None
    backups = list_backups(data_dir)
    for b in backups:
        if b.reason == "daily" and (now - b.created).days >= days:
            shutil.rmtree(b.path, ignore_errors=True)
    if any(b.created.date() == now.date() for b in backups if b.reason == "daily"):
        return None
    return create_backup(data_dir, db, chroma, reason="daily")


def restore_backup(
    data_dir: Path, backup: StoreBackup, db: Path, chroma: Path | None
) -> StoreBackup | None:
    """Put a backup in place of the store, which must be closed. The current store is backed
    up first (reason "before-restore"), so a restore can itself be undone. Returns that copy."""
    before = create_backup(data_dir, db, chroma, reason="before-restore") if db.exists() else None
    staged = db.with_name(f".{db.name}.restoring")
    shutil.copyfile(backup.path / db.name, staged)
    os.chmod(staged, 0o600)
    # the old write-ahead log belongs to the old database: left beside the new one it would
    # be read into it
    for suffix in ("-wal", "-shm", "-journal"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    os.replace(staged, db)
    if chroma is not None:
        old = chroma.with_name(f".{chroma.name}.replaced")
        shutil.rmtree(old, ignore_errors=True)
        if chroma.exists():
            os.replace(chroma, old)
        if (backup.path / "chroma").is_dir():
            shutil.copytree(backup.path / "chroma", chroma)
        shutil.rmtree(old, ignore_errors=True)
    return before

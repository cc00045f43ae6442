"""Schema versions and migrations.

Each migration runs inside one transaction together with the version bump, so a crash leaves
either the old or the new schema. Before migrating an existing store with user data, a dated
copy of the file is taken (Vorta's habit).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import peewee as pw

from models.entities import ALL_MODELS, ENTITY_MODELS, SchemaVersion

FTS_SQL = [
    # External-content FTS5: the text lives once, in fact/episode; triggers keep the index
    # exact so a deleted or edited row never lingers as a phantom hit.
    """CREATE VIRTUAL TABLE IF NOT EXISTS fact_fts USING fts5(
        content, subject, tags, content='fact', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER IF NOT EXISTS fact_ai AFTER INSERT ON fact BEGIN
        INSERT INTO fact_fts(rowid, content, subject, tags)
        VALUES (new.id, new.content, coalesce(new.subject, ''), coalesce(new.tags, ''));
    END""",
    """CREATE TRIGGER IF NOT EXISTS fact_ad AFTER DELETE ON fact BEGIN
        INSERT INTO fact_fts(fact_fts, rowid, content, subject, tags)
        VALUES ('delete', old.id, old.content, coalesce(old.subject, ''), coalesce(old.tags, ''));
    END""",
    """CREATE TRIGGER IF NOT EXISTS fact_au AFTER UPDATE OF content, subject, tags ON fact BEGIN
        INSERT INTO fact_fts(fact_fts, rowid, content, subject, tags)
        VALUES ('delete', old.id, old.content, coalesce(old.subject, ''), coalesce(old.tags, ''));
        INSERT INTO fact_fts(rowid, content, subject, tags)
        VALUES (new.id, new.content, coalesce(new.subject, ''), coalesce(new.tags, ''));
    END""",
    """CREATE VIRTUAL TABLE IF NOT EXISTS episode_fts USING fts5(
        summary, tags, content='episode', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER IF NOT EXISTS episode_ai AFTER INSERT ON episode BEGIN
        INSERT INTO episode_fts(rowid, summary, tags) VALUES (new.id, new.summary, new.tags);
    END""",
    """CREATE TRIGGER IF NOT EXISTS episode_ad AFTER DELETE ON episode BEGIN
        INSERT INTO episode_fts(episode_fts, rowid, summary, tags)
        VALUES ('delete', old.id, old.summary, old.tags);
    END""",
    """CREATE TRIGGER IF NOT EXISTS episode_au AFTER UPDATE OF summary, tags ON episode BEGIN
        INSERT INTO episode_fts(episode_fts, rowid, summary, tags)
        VALUES ('delete', old.id, old.summary, old.tags);
        INSERT INTO episode_fts(rowid, summary, tags) VALUES (new.id, new.summary, new.tags);
    END""",
]


def _v1(db: pw.Database) -> None:
    db.create_tables(ALL_MODELS, safe=True)
    for stmt in FTS_SQL:
        db.execute_sql(stmt)


def _v2(db: pw.Database) -> None:
    """Lifecycle: compile reads "best first" (pinned, importance, use, recency) and "about
    these days"; without these two indexes every layer sorts all of an agent's facts."""
    db.execute_sql(
        "CREATE INDEX IF NOT EXISTS fact_rank ON fact(agent_id, status, pinned DESC, "
        "importance DESC, access_count DESC, created_at DESC, id DESC)"
    )
    db.execute_sql("CREATE INDEX IF NOT EXISTS fact_event_day ON fact(agent_id, event_date)")


def _v3(db: pw.Database) -> None:
    """memory.md reads each project's section best-first; with only ``fact_rank`` SQLite walks
    every active fact in rank order to find one project's few hundred (100k facts in 300
    projects: 19 s per compile, 40 ms with this index)."""
    db.execute_sql(
        "CREATE INDEX IF NOT EXISTS fact_category_rank ON fact(agent_id, category, "
        "status, pinned DESC, importance DESC, access_count DESC, created_at DESC, "
        "id DESC)"
    )


ENTITY_SQL = [
    # an entity nobody mentions any more goes with its last link: a forgotten fact must not
    # leave the name it carried in the entity table (FK cascades fire this trigger too)
    # a deleted link (a forgotten or deleted fact, a re-link after an edit) is one mention less
    """CREATE TRIGGER IF NOT EXISTS fact_entity_uncount AFTER DELETE ON fact_entity BEGIN
        UPDATE entity SET mention_count = max(mention_count - 1, 0) WHERE id = old.entity_id;
    END""",
    """CREATE TRIGGER IF NOT EXISTS fact_entity_prune AFTER DELETE ON fact_entity
    WHEN NOT EXISTS (SELECT 1 FROM fact_entity WHERE entity_id = old.entity_id) BEGIN
        DELETE FROM entity WHERE id = old.entity_id;
    END""",
]


def _v5(db: pw.Database) -> None:
    """Entity memory: entities, their links to facts, stated relations, merge candidates.
    Independent of migration 4 (the team store): it only creates its own tables."""
    db.create_tables(ENTITY_MODELS, safe=True)
    for stmt in ENTITY_SQL:
        db.execute_sql(stmt)


# Append new migrations here; never edit a released one. Versions are applied by what is
# missing, not by "greater than the highest": branches add numbered migrations independently
# (4 and 5 landed separately), and a store that got 5 first still gets 4 when it arrives.
MIGRATIONS = [(1, _v1), (2, _v2), (3, _v3), (5, _v5)]
CURRENT_VERSION = max(v for v, _ in MIGRATIONS)


def current_version(db: pw.Database) -> int:
    if not db.table_exists("schema_version"):
        return 0
    row = SchemaVersion.select(pw.fn.MAX(SchemaVersion.version)).scalar()
    return row or 0


def backup_before_migration(db: pw.Database, version: int) -> Path | None:
    path = Path(db.database) if isinstance(db, pw.SqliteDatabase) else None
    if path is None or version == 0 or not path.exists():
        return None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    dest = path.with_name(f"{path.stem}.v{version}.{stamp}.bak")
    db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    # SQLite's backup API, not a file copy: closing another descriptor of the live file
    # would drop this process's locks on it (see services/forget/isolated.py)
    import sqlite3

    out = sqlite3.connect(str(dest))
    try:
        db.connection().backup(out)
    finally:
        out.close()
    return dest


def applied_versions(db: pw.Database) -> set[int]:
    if not db.table_exists("schema_version"):
        return set()
    return {v for (v,) in SchemaVersion.select(SchemaVersion.version).tuples()}


def migrate(db: pw.Database) -> int:
    version = current_version(db)
    done = applied_versions(db)
    pending = sorted((v, fn) for v, fn in MIGRATIONS if v not in done)
    if not pending:
        return version
    backup_before_migration(db, version)
    for v, fn in pending:
        with db.atomic():
            fn(db)
            SchemaVersion.create(version=v)
        version = max(version, v)
    return version

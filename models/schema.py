"""Schema versions and migrations.

Each migration runs inside one transaction together with the version bump, so a crash leaves
either the old or the new schema. Before migrating an existing store with user data, a dated
copy of the file is taken (Vorta's habit).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import peewee as pw

from models.tables import ALL_MODELS, ENTITY_MODELS, ReadLog, SchemaVersion

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
    if isinstance(db, pw.PostgresqlDatabase):
        return  # full text on PostgreSQL is a generated tsvector column (v4), not FTS5
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


# PostgreSQL full text: generated columns follow every insert/update/delete by themselves (no
# trigger to forget), GIN-indexed. english: stemming like FTS5's porter tokenizer.
PG_FTS_SQL = [
    """ALTER TABLE fact ADD COLUMN IF NOT EXISTS fts tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(content, '')), 'A')
        || setweight(to_tsvector('english', coalesce(subject, '')), 'B')
        || setweight(to_tsvector('english', coalesce(tags, '')), 'B')) STORED""",
    "CREATE INDEX IF NOT EXISTS fact_fts_gin ON fact USING gin(fts)",
    """ALTER TABLE episode ADD COLUMN IF NOT EXISTS fts tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(summary, '')), 'A')
        || setweight(to_tsvector('english', coalesce(tags, '')), 'B')) STORED""",
    "CREATE INDEX IF NOT EXISTS episode_fts_gin ON episode USING gin(fts)",
    # SQLite's json_extract(text, '$.a.b'), which lifecycle queries call through peewee's fn
    """CREATE OR REPLACE FUNCTION json_extract(doc text, path text) RETURNS text
        LANGUAGE sql IMMUTABLE AS
        $$ SELECT (doc::jsonb) #>> string_to_array(substr(path, 3), '.') $$""",
    # SQLite's two-argument scalar min() (stats' importance buckets)
    """CREATE OR REPLACE FUNCTION min(a integer, b integer) RETURNS integer
        LANGUAGE sql IMMUTABLE AS $$ SELECT LEAST(a, b) $$""",
    # writers notify; every client LISTENs (the app's refresh on others' writes)
    """CREATE OR REPLACE FUNCTION engram_notify() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM pg_notify('engram_changes', TG_TABLE_NAME); RETURN NULL; END $$""",
]
PG_NOTIFY_TABLES = ("agent", "fact", "episode", "compiled_layer", "audit_event")


def _add_column(db: pw.Database, table: str, column: str, ddl: str) -> None:
    if column not in {c.name for c in db.get_columns(table)}:
        db.execute_sql(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}")


def _v4(db: pw.Database) -> None:
    """Team stores: who made each write and from where (audit provenance), shared or private
    agents (both backends); on PostgreSQL, full text, SQLite-compatible functions, change
    notifications and row-level security."""
    _add_column(db, "audit_event", "by_user", "VARCHAR(255)")
    _add_column(db, "audit_event", "origin", "VARCHAR(255)")
    _add_column(db, "agent", "visibility", "VARCHAR(255) NOT NULL DEFAULT 'shared'")
    _add_column(db, "agent", "owner", "VARCHAR(255)")
    if not isinstance(db, pw.PostgresqlDatabase):
        return
    from models.access import enable_row_security

    enable_row_security(db)
    for stmt in PG_FTS_SQL:
        db.execute_sql(stmt)
    for table in PG_NOTIFY_TABLES:
        db.execute_sql(f"DROP TRIGGER IF EXISTS {table}_notify ON {table}")
        db.execute_sql(
            f"CREATE TRIGGER {table}_notify AFTER INSERT OR UPDATE OR DELETE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION engram_notify()"
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


# the same two triggers on PostgreSQL (plpgsql), and row-level security for the entity tables
# that carry names (the links hold only ids and follow their fact)
PG_ENTITY_SQL = [
    """CREATE OR REPLACE FUNCTION engram_fact_entity_deleted() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN
        UPDATE entity SET mention_count = GREATEST(mention_count - 1, 0) WHERE id = OLD.entity_id;
        IF NOT EXISTS (SELECT 1 FROM fact_entity WHERE entity_id = OLD.entity_id) THEN
            DELETE FROM entity WHERE id = OLD.entity_id;
        END IF;
        RETURN NULL; END $$""",
    "DROP TRIGGER IF EXISTS fact_entity_deleted ON fact_entity",
    """CREATE TRIGGER fact_entity_deleted AFTER DELETE ON fact_entity
        FOR EACH ROW EXECUTE FUNCTION engram_fact_entity_deleted()""",
]
PG_ENTITY_AGENT_TABLES = ("entity", "entity_relation", "entity_candidate")


def _v5(db: pw.Database) -> None:
    """Entity memory: entities, their links to facts, stated relations, merge candidates.
    Independent of migration 4 (the team store): it only creates its own tables."""
    db.create_tables(ENTITY_MODELS, safe=True)
    if not isinstance(db, pw.PostgresqlDatabase):
        for stmt in ENTITY_SQL:
            db.execute_sql(stmt)
        return
    for stmt in PG_ENTITY_SQL:
        db.execute_sql(stmt)
    from models.access import enable_row_security_on

    enable_row_security_on(db, PG_ENTITY_AGENT_TABLES)


def _v8(db: pw.Database) -> None:
    """Team stores you can trust: vectors in PostgreSQL (pgvector) under the same row
    security, least privilege for members, a team-wide forget key, physical erasure through
    the owner's function (models/server_schema.py). Nothing on a local store."""
    if not isinstance(db, pw.PostgresqlDatabase):
        return
    from models.server_schema import migrate_v8

    migrate_v8(db)


def _v9(db: pw.Database) -> None:
    """The history of a fact walks ``superseded_by`` within one agent. With only single-column
    indexes SQLite's planner took ``(agent_id, …)`` and scanned the whole agent (1.8 s at 100k
    facts, on the GUI thread at every row selection); this index answers it in one probe.
    Plain SQL both backends accept."""
    db.execute_sql(
        "CREATE INDEX IF NOT EXISTS fact_agent_superseded ON fact(agent_id, superseded_by_id)"
    )


# a UUID4 in hex, in SQL: the rows a store already holds get their uid in one statement
SQLITE_UUID4 = (
    "lower(hex(randomblob(6)) || '4' || substr(hex(randomblob(2)), 2) || "
    "substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || "
    "hex(randomblob(6)))"
)
STORE_IDENTITY_SQL = (
    "CREATE TABLE IF NOT EXISTS store_identity (key VARCHAR(255) PRIMARY KEY, value TEXT NOT NULL)"
)


def _v10(db: pw.Database) -> None:
    """Stable identity: integer ids are local and reused (a restored backup hands them to
    other facts), so every fact and agent gets a uid, and the store an instance id
    (models/instance.py) that a copy or a restored file does not share with its original."""
    if isinstance(db, pw.PostgresqlDatabase):
        from models.server_schema import migrate_v10

        migrate_v10(db, _add_column)
        return
    for table in ("fact", "agent"):
        _add_column(db, table, "uid", "VARCHAR(32)")
        db.execute_sql(f"UPDATE {table} SET uid = {SQLITE_UUID4} WHERE uid IS NULL")
        # not unique: an archive imported twice carries its facts' uids twice
        db.execute_sql(f"CREATE INDEX IF NOT EXISTS {table}_uid ON {table}(uid)")
        # a row inserted without one (raw SQL: the bulk path, an older client) gets its uid
        db.execute_sql(
            f"CREATE TRIGGER IF NOT EXISTS {table}_uid_ai AFTER INSERT ON {table} "
            f"WHEN new.uid IS NULL BEGIN UPDATE {table} SET uid = {SQLITE_UUID4} "
            "WHERE id = new.id; END"
        )
    db.execute_sql(STORE_IDENTITY_SQL)
    from models.instance import new_instance

    new_instance(db)


def _v12(db: pw.Database) -> None:
    """Team stores: the server is the witness of who forgot, holds the writer locks and
    keeps memory text out of planner statistics (models/server_guard.py)."""
    if not isinstance(db, pw.PostgresqlDatabase):
        return
    from models.server_guard import harden

    harden(db)


def _v13(db: pw.Database) -> None:
    """Team stores: the sync change log fires on every field sync carries (pin, tags,
    category, importance), not only the text and status (models/server_schema.py)."""
    if not isinstance(db, pw.PostgresqlDatabase):
        return
    from models.server_schema import migrate_v13

    migrate_v13(db)


def _v14(db: pw.Database) -> None:
    """The read log (who read what, issue 36): ids and channels only. Local stores; a team
    store's reads are not logged yet (its tables need row security first)."""
    if isinstance(db, pw.PostgresqlDatabase):
        return
    db.create_tables([ReadLog], safe=True)


def _v15(db: pw.Database) -> None:
    """Team stores: the forget-rule key stays in the server (members hash through its
    function) and receipts are written only by its function (models/server_forget.py)."""
    if not isinstance(db, pw.PostgresqlDatabase):
        return
    from models.server_forget import migrate_v15

    migrate_v15(db)


# Append new migrations here; never edit a released one. Versions are applied by what is
# missing, not by "greater than the highest": branches add numbered migrations independently
# (4 and 5 landed separately), and a store that got 5 first still gets 4 when it arrives.
MIGRATIONS = [
    (1, _v1), (2, _v2), (3, _v3), (4, _v4), (5, _v5), (8, _v8), (9, _v9), (10, _v10), (12, _v12),
    (13, _v13), (14, _v14), (15, _v15),
]  # fmt: skip
CURRENT_VERSION = max(v for v, _ in MIGRATIONS)


class SchemaTooNew(Exception):
    """The store was migrated by a newer Engram: this one would write rows its schema does not
    describe (a column it leaves empty, a rule it does not apply), so it opens nothing."""

    def __init__(self, found: int, known: int, where: str = "") -> None:
        self.found, self.known = found, known
        at = f" ({where})" if where else ""
        super().__init__(
            f"this store{at} was written by a newer Engram (schema version {found}; this "
            f"Engram knows up to {known}): nothing was opened or changed. Update Engram, or "
            "open another data folder."
        )


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


def pending(db: pw.Database) -> bool:
    """Some migration has not run on this store."""
    return bool({v for v, _ in MIGRATIONS} - applied_versions(db))


def migrate(db: pw.Database) -> int:
    version = current_version(db)
    done = applied_versions(db)
    known = max(v for v, _ in MIGRATIONS)
    if version > known:  # before any write: not even the pre-migration backup
        raise SchemaTooNew(version, known, str(getattr(db, "database", "") or ""))
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

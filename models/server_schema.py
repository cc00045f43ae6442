"""Schema v8 on PostgreSQL: vectors in the database (pgvector), a team-wide key for forget
rules, and physical erasure a member may start but only the owner role can run.

Vectors live in ``fact_vector`` beside their fact: the same row-level security, the same
transaction, and a forget's ``DELETE FROM fact`` takes the vector with it (a foreign key with
ON DELETE CASCADE). No text is stored with a vector, only a hash of the text it was made from
(``verify`` finds a stale vector by it).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import peewee as pw

from models.access import TEAM_ROLE, enable_row_security_on, least_privilege, run_raw

EMBEDDING_DIM = 384  # all-MiniLM-L6-v2
# the tables that hold memory text, rewritten after a forget (entity: names; fact_vector:
# embeddings, which approximate the text)
COMPACT_TABLES = (
    "fact",
    "audit_event",
    "episode",
    "session",
    "compiled_layer",
    "entity",
    "fact_vector",
)

VECTOR_SQL = [
    f"""CREATE TABLE IF NOT EXISTS fact_vector (
        fact_id integer PRIMARY KEY REFERENCES fact(id) ON DELETE CASCADE,
        agent_id integer NOT NULL REFERENCES agent(id) ON DELETE CASCADE,
        text_hash text NOT NULL,
        embedding vector({EMBEDDING_DIM}) NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS fact_vector_agent ON fact_vector(agent_id)",
    # cosine, like the local Chroma collections; m/ef as Chroma's (HNSW in services/vectors)
    """CREATE INDEX IF NOT EXISTS fact_vector_hnsw ON fact_vector
        USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 200)""",
]

MAINTENANCE_SQL = [
    """CREATE TABLE IF NOT EXISTS maintenance_log (
        id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp(),
        by_role text NOT NULL DEFAULT session_user, action text NOT NULL, tables text[])""",
    # CLUSTER (unlike VACUUM) may run inside a function: it rewrites the table and its indexes
    # (TOAST and GIN too) into new files and unlinks the old ones, as VACUUM FULL does. The
    # function runs as the tables' owner, so a member's forget really compacts.
    """CREATE OR REPLACE FUNCTION engram_compact(tables text[]) RETURNS text[]
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
        DECLARE t text; done text[] := '{}';
        BEGIN
        FOREACH t IN ARRAY tables LOOP
            IF to_regclass(t) IS NOT NULL AND to_regclass(t || '_pkey') IS NOT NULL THEN
                EXECUTE format('CLUSTER %I USING %I', t, t || '_pkey');
                done := done || t;
            END IF;
        END LOOP;
        INSERT INTO maintenance_log(action, tables) VALUES ('compact', done);
        RETURN done;
        END $$""",
    "REVOKE ALL ON FUNCTION engram_compact(text[]) FROM PUBLIC",
    f"GRANT EXECUTE ON FUNCTION engram_compact(text[]) TO {TEAM_ROLE}",
    # a key every client of the store hashes forget rules with (the rules never hold text)
    "CREATE TABLE IF NOT EXISTS team_secret (name text PRIMARY KEY, value bytea NOT NULL)",
]


# offline-first sync (services/teamsync): every change to a fact is a row of sync_change,
# numbered by the server (the cursor clients pull by); a row carries ids only, never text. A
# push records (client id, sequence) in sync_push, so a push retried after a lost answer is
# applied once.
SYNC_SQL = [
    """CREATE TABLE IF NOT EXISTS sync_change (
        id bigserial PRIMARY KEY, agent_id integer NOT NULL, fact_id integer NOT NULL,
        uid text NOT NULL, op text NOT NULL, client_id text,
        at timestamptz NOT NULL DEFAULT clock_timestamp())""",
    "CREATE INDEX IF NOT EXISTS sync_change_agent ON sync_change(agent_id, id)",
    # SECURITY DEFINER: members cannot write the change log themselves (no forged erasures)
    """CREATE OR REPLACE FUNCTION engram_sync_log() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
        DECLARE r fact%ROWTYPE; kind text;
        BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; kind := 'delete'; ELSE r := NEW; kind := 'upsert'; END IF;
        INSERT INTO sync_change(agent_id, fact_id, uid, op, client_id) VALUES (
            r.agent_id, r.id,
            coalesce((r.metadata::jsonb) ->> 'sync_uid', 'server:' || r.id), kind,
            nullif(current_setting('engram.sync_client', true), ''));
        RETURN NULL; END $$""",
    "DROP TRIGGER IF EXISTS fact_sync_log ON fact",
    """CREATE TRIGGER fact_sync_log AFTER INSERT OR DELETE OR UPDATE OF content, status ON fact
        FOR EACH ROW EXECUTE FUNCTION engram_sync_log()""",
    """CREATE TABLE IF NOT EXISTS sync_push (
        client_id text NOT NULL, client_seq bigint NOT NULL, result text,
        by_role text NOT NULL DEFAULT session_user,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (client_id, client_seq))""",
]


# v13: the change log watches every field sync carries, so an edit made on the server itself
# (plain SQL, another tool) reaches the machines too; v8's trigger watched content and status.
SYNC_TRIGGER_V13 = [
    "DROP TRIGGER IF EXISTS fact_sync_log ON fact",
    """CREATE TRIGGER fact_sync_log AFTER INSERT OR DELETE OR UPDATE OF content, status, pinned,
        tags, category, importance ON fact FOR EACH ROW EXECUTE FUNCTION engram_sync_log()""",
]


def migrate_v13(db: pw.Database) -> None:
    for stmt in SYNC_TRIGGER_V13:
        run_raw(db, stmt)


def has_pgvector(db: pw.Database) -> bool:
    row = db.execute_sql(
        "SELECT installed_version IS NOT NULL, true FROM pg_available_extensions "
        "WHERE name = 'vector'"
    ).fetchone()
    return bool(row)


def vectors_in_database(db: pw.Database) -> bool:
    """The store keeps its vectors in PostgreSQL (schema v8 found pgvector)."""
    return bool(db.execute_sql("SELECT to_regclass('fact_vector') IS NOT NULL").fetchone()[0])


def _create_vector_table(db: pw.Database) -> None:
    if not has_pgvector(db):
        return  # a server without pgvector: vectors stay on a Chroma server (or local)
    db.execute_sql("CREATE EXTENSION IF NOT EXISTS vector")
    for stmt in VECTOR_SQL:
        db.execute_sql(stmt)
    enable_row_security_on(db, ["fact_vector"])


def migrate_v8(db: pw.Database) -> None:
    _create_vector_table(db)
    for stmt in MAINTENANCE_SQL:
        run_raw(db, stmt)
    db.execute_sql(
        "INSERT INTO team_secret(name, value) VALUES ('forget', %s) ON CONFLICT DO NOTHING",
        (os.urandom(32),),
    )
    for stmt in SYNC_SQL:
        run_raw(db, stmt)
    least_privilege(db)
    db.execute_sql(f"GRANT SELECT ON team_secret, maintenance_log TO {TEAM_ROLE}")
    # the change log follows its agent's visibility; pushes are each role's own
    from models.access import _policies

    _policies(db, ["sync_change"])
    db.execute_sql("ALTER TABLE sync_push ENABLE ROW LEVEL SECURITY")
    db.execute_sql("DROP POLICY IF EXISTS sync_push_own ON sync_push")
    db.execute_sql(
        "CREATE POLICY sync_push_own ON sync_push USING (by_role = session_user) "
        "WITH CHECK (by_role = session_user)"
    )
    db.execute_sql(f"GRANT SELECT, INSERT ON sync_push TO {TEAM_ROLE}")
    if vectors_in_database(db):  # least_privilege revoked it with the rest
        db.execute_sql(f"GRANT SELECT, INSERT, UPDATE, DELETE ON fact_vector TO {TEAM_ROLE}")


PG_UUID4 = "replace(gen_random_uuid()::text, '-', '')"


def migrate_v10(db: pw.Database, add_column: Callable[[pw.Database, str, str, str], None]) -> None:
    """Stable identity on a team store (models/schema.py ``_v10``): uids for the rows it holds
    (as the owner, so row security hides none of them), the store's instance id, and the
    table members keep their write-back marks in."""
    from models.access import grant_member_writes
    from models.instance import new_instance
    from models.schema import STORE_IDENTITY_SQL

    for table in ("fact", "agent"):
        add_column(db, table, "uid", "VARCHAR(32)")
        db.execute_sql(f"UPDATE {table} SET uid = {PG_UUID4} WHERE uid IS NULL")
        # the server's deferred audit trigger (v12, models/server_guard.py) may have queued
        # events for that update; an index cannot be built over pending trigger events
        db.execute_sql("SET CONSTRAINTS ALL IMMEDIATE")
        db.execute_sql(f"CREATE INDEX IF NOT EXISTS {table}_uid ON {table}(uid)")
    # a row inserted without one (raw SQL: the bulk path, an older client) gets its uid
    db.execute_sql(
        "CREATE OR REPLACE FUNCTION engram_fill_uid() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN NEW.uid := coalesce(NEW.uid, {PG_UUID4}); RETURN NEW; END $$"
    )
    for table in ("fact", "agent"):
        db.execute_sql(f"DROP TRIGGER IF EXISTS {table}_uid_fill ON {table}")
        db.execute_sql(
            f"CREATE TRIGGER {table}_uid_fill BEFORE INSERT ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION engram_fill_uid()"
        )
    db.execute_sql(STORE_IDENTITY_SQL)
    new_instance(db)
    grant_member_writes(db, ["store_identity"])

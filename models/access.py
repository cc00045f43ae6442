"""Who may read an agent's memory on a team store: PostgreSQL row-level security.

An agent is ``shared`` (every team member) or ``private`` (its owner, a database role, only).
The policies live in the database, so a client that goes around Engram (psql, a script) sees
exactly what Engram would show it. One PostgreSQL role per person, each a member of
``engram_team``; the role that created the store owns the tables and is not subject to the
policies (it migrates and administers; do not hand it out).
"""

from __future__ import annotations

import re

import peewee as pw

TEAM_ROLE = "engram_team"
ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
# tables whose rows belong to one agent (forget_rule's agent may be null: every agent)
AGENT_TABLES = ("fact", "episode", "session", "compiled_layer", "audit_event", "forget_rule")

RLS_SQL = [
    # SECURITY DEFINER: the check reads agent rows the caller may not see (no policy recursion)
    """CREATE OR REPLACE FUNCTION engram_agent_visible(aid integer) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT aid IS NULL OR EXISTS (
            SELECT 1 FROM agent a WHERE a.id = aid
            AND (a.visibility = 'shared' OR a.owner = session_user))
    $$""",
    "ALTER TABLE agent ALTER COLUMN owner SET DEFAULT session_user",
    "ALTER TABLE agent ENABLE ROW LEVEL SECURITY",
    "DROP POLICY IF EXISTS agent_access ON agent",
    """CREATE POLICY agent_access ON agent
        USING (visibility = 'shared' OR owner = session_user)
        WITH CHECK (visibility = 'shared' OR owner = session_user)""",
]


def enable_row_security(db: pw.Database) -> None:
    for stmt in RLS_SQL:
        db.execute_sql(stmt)
    _policies(db, AGENT_TABLES)
    db.execute_sql(
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{TEAM_ROLE}') "
        f"THEN CREATE ROLE {TEAM_ROLE} NOLOGIN; END IF; END $$"
    )
    grant_team(db)


def grant_team(db: pw.Database) -> None:
    """The team role may use every table (the policies decide which rows)."""
    db.execute_sql(f"GRANT USAGE ON SCHEMA public TO {TEAM_ROLE}")
    db.execute_sql(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {TEAM_ROLE}"
    )
    db.execute_sql(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {TEAM_ROLE}")
    # tables and sequences later migrations create are the team's too
    db.execute_sql(
        "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE "
        f"ON TABLES TO {TEAM_ROLE}"
    )
    db.execute_sql(
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO {TEAM_ROLE}"
    )


def create_member(db: pw.Database, name: str, password: str) -> None:
    """A login role for one person, in the team. The password is set here once and then lives
    in that person's keyring or ~/.pgpass, never in Engram's files."""
    if not ROLE_NAME.match(name):
        raise ValueError(f"role name {name!r}: lower-case letters, digits and _ only")
    exists = db.execute_sql("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
    verb = "ALTER" if exists else "CREATE"
    db.execute_sql(f"{verb} ROLE {name} LOGIN PASSWORD %s", (password,))
    db.execute_sql(f"GRANT {TEAM_ROLE} TO {name}")


def _policies(db: pw.Database, tables) -> None:
    for table in tables:
        db.execute_sql(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        db.execute_sql(f"DROP POLICY IF EXISTS {table}_access ON {table}")
        db.execute_sql(
            f"CREATE POLICY {table}_access ON {table} USING (engram_agent_visible(agent_id)) "
            "WITH CHECK (engram_agent_visible(agent_id))"
        )


def enable_row_security_on(db: pw.Database, tables) -> None:
    """Tables a later migration adds that belong to an agent: the same policy, and the team's
    grants extended to them (to them only: schema v8 narrowed the rest)."""
    _policies(db, tables)
    db.execute_sql(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {TEAM_ROLE}")
    grant_member_writes(db, tables)


# -- least privilege (schema v8) ---------------------------------------------------------------
# A member may read what the policies show and write memory rows; what could damage another
# member goes through checked functions owned by the admin role, or not at all.
MEMBER_WRITE_TABLES = (
    "fact",
    "episode",
    "session",
    "compiled_layer",
    "entity",
    "entity_relation",
    "entity_candidate",
    "fact_entity",
    "forget_rule",
)

ADMIN_CHECK = (
    "pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'MEMBER')"
)

LEAST_PRIVILEGE_SQL = [
    # owner and visibility change only through engram_set_visibility (SECURITY DEFINER runs as
    # the table owner, so current_user is the owner there and only there)
    f"""CREATE OR REPLACE FUNCTION engram_agent_guard() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN
        IF {ADMIN_CHECK} THEN RETURN NEW; END IF;
        IF TG_OP = 'INSERT' THEN
            NEW.owner := session_user;
        ELSIF NEW.owner IS DISTINCT FROM OLD.owner
           OR NEW.visibility IS DISTINCT FROM OLD.visibility THEN
            RAISE EXCEPTION 'agent owner and visibility change only through engram share/private'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW; END $$""",
    "DROP TRIGGER IF EXISTS agent_guard ON agent",
    """CREATE TRIGGER agent_guard BEFORE INSERT OR UPDATE ON agent
        FOR EACH ROW EXECUTE FUNCTION engram_agent_guard()""",
    """CREATE OR REPLACE FUNCTION engram_set_visibility(agent_slug text, vis text) RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
        DECLARE who text;
        BEGIN
        IF vis NOT IN ('shared', 'private') THEN
            RAISE EXCEPTION 'visibility is shared or private' USING ERRCODE = 'invalid_parameter_value';
        END IF;
        SELECT owner INTO who FROM agent WHERE slug = agent_slug
            AND (visibility = 'shared' OR owner = session_user);
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no agent %', agent_slug USING ERRCODE = 'no_data_found';
        END IF;
        IF who IS DISTINCT FROM session_user THEN
            RAISE EXCEPTION 'only its owner (%) can change who sees agent %', who, agent_slug
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        UPDATE agent SET visibility = vis WHERE slug = agent_slug;
        END $$""",
    # agents: read shared or own; only the owner deletes one (its rows go by cascade)
    "DROP POLICY IF EXISTS agent_access ON agent",
    "DROP POLICY IF EXISTS agent_read ON agent",
    "DROP POLICY IF EXISTS agent_insert ON agent",
    "DROP POLICY IF EXISTS agent_update ON agent",
    "DROP POLICY IF EXISTS agent_delete ON agent",
    "CREATE POLICY agent_read ON agent FOR SELECT USING (visibility = 'shared' OR owner = session_user)",
    "CREATE POLICY agent_insert ON agent FOR INSERT WITH CHECK (owner = session_user)",
    """CREATE POLICY agent_update ON agent FOR UPDATE
        USING (visibility = 'shared' OR owner = session_user)
        WITH CHECK (visibility = 'shared' OR owner = session_user)""",
    "CREATE POLICY agent_delete ON agent FOR DELETE USING (owner = session_user)",
    # a fact's entity links follow the fact's agent
    """CREATE OR REPLACE FUNCTION engram_fact_visible(fid integer) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT EXISTS (SELECT 1 FROM fact f JOIN agent a ON a.id = f.agent_id
            WHERE f.id = fid AND (a.visibility = 'shared' OR a.owner = session_user))
    $$""",
    "ALTER TABLE fact_entity ENABLE ROW LEVEL SECURITY",
    "DROP POLICY IF EXISTS fact_entity_access ON fact_entity",
    """CREATE POLICY fact_entity_access ON fact_entity USING (engram_fact_visible(fact_id))
        WITH CHECK (engram_fact_visible(fact_id))""",
    # receipts: whoever forgot reads and completes their own; an agent's receipts are seen by
    # those who see the agent; nobody but the admin deletes one
    "ALTER TABLE forget_receipt ADD COLUMN IF NOT EXISTS by_role text DEFAULT session_user",
    # the transaction that wrote it (top level, even inside a savepoint): the audit check
    # below asks whether the deleting transaction left a receipt
    "ALTER TABLE forget_receipt ADD COLUMN IF NOT EXISTS txid bigint",
    f"""CREATE OR REPLACE FUNCTION engram_receipt_guard() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN
        IF TG_OP = 'INSERT' THEN
            NEW.txid := txid_current();
            IF NOT {ADMIN_CHECK} THEN NEW.by_role := session_user; END IF;
        ELSE
            NEW.txid := OLD.txid;
            NEW.by_role := OLD.by_role;
        END IF;
        RETURN NEW; END $$""",
    "DROP TRIGGER IF EXISTS receipt_guard ON forget_receipt",
    """CREATE TRIGGER receipt_guard BEFORE INSERT OR UPDATE ON forget_receipt
        FOR EACH ROW EXECUTE FUNCTION engram_receipt_guard()""",
    """CREATE OR REPLACE FUNCTION engram_slug_visible(s text) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT EXISTS (SELECT 1 FROM agent a WHERE a.slug = s
            AND (a.visibility = 'shared' OR a.owner = session_user))
    $$""",
    "ALTER TABLE forget_receipt ENABLE ROW LEVEL SECURITY",
    "DROP POLICY IF EXISTS receipt_read ON forget_receipt",
    "DROP POLICY IF EXISTS receipt_write ON forget_receipt",
    "DROP POLICY IF EXISTS receipt_update ON forget_receipt",
    """CREATE POLICY receipt_read ON forget_receipt FOR SELECT
        USING (by_role = session_user OR engram_slug_visible(agent_slug))""",
    "CREATE POLICY receipt_write ON forget_receipt FOR INSERT WITH CHECK (true)",
    """CREATE POLICY receipt_update ON forget_receipt FOR UPDATE
        USING (by_role = session_user) WITH CHECK (by_role = session_user)""",
    # audit events are never edited; a member deletes them only as part of a forget, which
    # leaves a receipt in the same transaction (checked at commit)
    f"""CREATE OR REPLACE FUNCTION engram_audit_erase_check() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$ BEGIN
        IF {ADMIN_CHECK.replace("current_user", "session_user")} THEN RETURN NULL; END IF;
        IF NOT EXISTS (SELECT 1 FROM forget_receipt WHERE txid = txid_current()) THEN
            RAISE EXCEPTION 'audit events are removed only by a forget (which leaves a receipt)'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NULL; END $$""",
    "DROP TRIGGER IF EXISTS audit_erase_check ON audit_event",
    """CREATE CONSTRAINT TRIGGER audit_erase_check AFTER DELETE ON audit_event
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION engram_audit_erase_check()""",
]


def _revoke_and_grant(db: pw.Database) -> None:
    t = TEAM_ROLE
    db.execute_sql(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {t}")
    db.execute_sql(
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE INSERT, UPDATE, DELETE ON TABLES FROM {t}"
    )
    db.execute_sql(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {t}")
    db.execute_sql(f"GRANT INSERT, UPDATE, DELETE ON {', '.join(MEMBER_WRITE_TABLES)} TO {t}")
    db.execute_sql(f"GRANT INSERT, UPDATE, DELETE ON agent TO {t}")
    db.execute_sql(f"GRANT INSERT, DELETE ON audit_event TO {t}")
    db.execute_sql(f"GRANT INSERT, UPDATE ON forget_receipt TO {t}")
    # sequences: members draw ids, never set them (no setval past another member's rows)
    db.execute_sql(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {t}")
    db.execute_sql(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {t}")
    db.execute_sql(f"ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE UPDATE ON SEQUENCES FROM {t}")
    for fn in ("engram_set_visibility(text, text)",):
        db.execute_sql(f"REVOKE ALL ON FUNCTION {fn} FROM PUBLIC")
        db.execute_sql(f"GRANT EXECUTE ON FUNCTION {fn} TO {t}")


def run_raw(db: pw.Database, stmt: str) -> None:
    """DDL whose body holds ``%`` (RAISE, format): no parameter interpolation."""
    db.cursor().execute(stmt)


def least_privilege(db: pw.Database) -> None:
    for stmt in LEAST_PRIVILEGE_SQL:
        run_raw(db, stmt)
    _revoke_and_grant(db)


def grant_member_writes(db: pw.Database, tables) -> None:
    """A table a later step adds that members write (under its row policies)."""
    db.execute_sql(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {', '.join(tables)} TO {TEAM_ROLE}")

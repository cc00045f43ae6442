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
    grants extended to them."""
    _policies(db, tables)
    grant_team(db)

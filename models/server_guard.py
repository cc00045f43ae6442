"""Schema v12 on PostgreSQL: the server is the witness (issue 31).

What a member's client says about itself (who forgot, which agent, which lock it holds) is
no longer taken on trust: triggers and ``SECURITY DEFINER`` functions owned by the admin role
stamp the database role, check the agent, and keep an id-only record of what a forget
erased. Each block below names the attack it answers; tests/teamstore/test_attacks.py keeps
the SQL of each attack.
"""

from __future__ import annotations

import peewee as pw

from models.access import TEAM_ROLE, run_raw
from models.server_stats import STATS_COLUMNS, STATS_SQL

# the admin role (the tables' owner) and superusers; definer functions run as the owner, so
# they ask about session_user, the role that logged in
IS_ADMIN_SQL = """CREATE OR REPLACE FUNCTION engram_is_admin() RETURNS boolean
    LANGUAGE sql STABLE AS $$
    SELECT pg_has_role(session_user,
        (SELECT relowner FROM pg_class WHERE oid = 'public.agent'::regclass), 'MEMBER')
$$"""

# 1, 2: a receipt is stamped with the role that wrote it and names only an agent that role
# sees; every transaction that writes or completes a receipt is witnessed in a table no
# member reaches, and an audit event is erased only under the eraser's own receipt for its
# agent. Each erased event leaves its ids (never its text) in audit_erasure.
RECEIPT_SQL = [
    """CREATE TABLE IF NOT EXISTS forget_witness (
        txid bigint NOT NULL, receipt_id integer NOT NULL, agent_slug text,
        by_role text NOT NULL, PRIMARY KEY (txid, receipt_id))""",
    f"REVOKE ALL ON forget_witness FROM PUBLIC, {TEAM_ROLE}",
    """CREATE TABLE IF NOT EXISTS audit_erasure (
        id bigserial PRIMARY KEY, receipt_id integer, by_role text NOT NULL,
        agent_id integer, audit_id integer NOT NULL, fact_id integer, action text,
        at timestamptz NOT NULL DEFAULT clock_timestamp())""",
    f"REVOKE ALL ON audit_erasure FROM PUBLIC, {TEAM_ROLE}",
    f"GRANT SELECT ON audit_erasure TO {TEAM_ROLE}",
    "ALTER TABLE audit_erasure ENABLE ROW LEVEL SECURITY",
    "DROP POLICY IF EXISTS audit_erasure_read ON audit_erasure",
    """CREATE POLICY audit_erasure_read ON audit_erasure FOR SELECT
        USING (by_role = session_user OR engram_agent_visible(agent_id))""",
    """CREATE OR REPLACE FUNCTION engram_receipt_guard() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$ BEGIN
        IF TG_OP = 'INSERT' THEN
            NEW.txid := txid_current();
            IF NOT engram_is_admin() THEN
                NEW.by_role := session_user;
                IF NEW.agent_slug IS NOT NULL AND NOT engram_slug_visible(NEW.agent_slug) THEN
                    RAISE EXCEPTION 'no agent % for a forget receipt', NEW.agent_slug
                        USING ERRCODE = 'insufficient_privilege';
                END IF;
            END IF;
        ELSE
            NEW.txid := OLD.txid;
            NEW.by_role := OLD.by_role;
            NEW.agent_slug := OLD.agent_slug;
            NEW.created_at := OLD.created_at;
        END IF;
        INSERT INTO forget_witness VALUES (txid_current(), NEW.id, NEW.agent_slug, NEW.by_role)
            ON CONFLICT DO NOTHING;
        RETURN NEW; END $$""",
    """CREATE OR REPLACE FUNCTION engram_audit_erase_check() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
        DECLARE s text; gone boolean; rid integer;
        BEGIN
        SELECT a.slug INTO s FROM agent a WHERE a.id = OLD.agent_id;
        gone := NOT FOUND;
        SELECT w.receipt_id INTO rid FROM forget_witness w
            WHERE w.txid = txid_current() AND w.by_role = session_user
            AND (gone OR w.agent_slug IS NULL OR w.agent_slug = s)
            ORDER BY w.receipt_id DESC LIMIT 1;
        IF rid IS NULL AND NOT engram_is_admin() THEN
            RAISE EXCEPTION 'audit events of agent % are removed only by a forget of that agent (which leaves your receipt)', coalesce(s, OLD.agent_id::text)
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        INSERT INTO audit_erasure(receipt_id, by_role, agent_id, audit_id, fact_id, action)
            VALUES (rid, session_user, OLD.agent_id, OLD.id, OLD.fact_id, OLD.action);
        RETURN NULL; END $$""",
]

# 7: one writer per agent, as a row lock in a table only this function reaches: nobody can
# take the lock of an agent they cannot see, a wait is bounded, and the holder is named
LOCK_SQL = [
    """CREATE TABLE IF NOT EXISTS agent_lock (
        agent_id integer PRIMARY KEY REFERENCES agent(id) ON DELETE CASCADE)""",
    f"REVOKE ALL ON agent_lock FROM PUBLIC, {TEAM_ROLE}",
    """CREATE OR REPLACE FUNCTION engram_lock_agent(aid integer, wait_ms integer)
        RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
        DECLARE was text;
        BEGIN
        IF NOT EXISTS (SELECT 1 FROM agent a WHERE a.id = aid
                AND (a.visibility = 'shared' OR a.owner = session_user)) THEN
            RAISE EXCEPTION 'no agent %', aid USING ERRCODE = 'no_data_found';
        END IF;
        was := current_setting('lock_timeout');
        PERFORM set_config('lock_timeout', greatest(wait_ms, 1)::text, true);
        INSERT INTO agent_lock(agent_id) VALUES (aid) ON CONFLICT DO NOTHING;
        PERFORM 1 FROM agent_lock WHERE agent_id = aid FOR UPDATE;
        PERFORM set_config('lock_timeout', was, true);
        END $$""",
    # who holds it: the transaction that locked the row (its xmax) and that session's role
    """CREATE OR REPLACE FUNCTION engram_lock_holder(aid integer) RETURNS text
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT s.usename::text FROM agent_lock l
        JOIN pg_locks k ON k.locktype = 'transactionid' AND k.transactionid = l.xmax
            AND k.granted AND k.mode = 'ExclusiveLock'
        JOIN pg_stat_activity s ON s.pid = k.pid
        WHERE l.agent_id = aid AND engram_agent_visible(aid) LIMIT 1
    $$""",
]

# 10: a vector is written only for a fact the writer sees, in that fact's agent; a hidden
# fact and a missing one get the same answer (before the key and foreign-key checks run)
VECTOR_SQL = [
    """CREATE OR REPLACE FUNCTION engram_vector_guard() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM fact f JOIN agent a ON a.id = f.agent_id
                WHERE f.id = NEW.fact_id AND f.agent_id = NEW.agent_id
                AND (a.visibility = 'shared' OR a.owner = session_user)) THEN
            RAISE EXCEPTION 'no fact % in agent % to hold a vector', NEW.fact_id, NEW.agent_id
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW; END $$""",
]

# 8: the audit trail is the server's. Each event is stamped with the role that wrote it
# (db_role; by_user stays as the client's label beside it); a fact written in SQL with no
# event of Engram's in its transaction gets one from the server at commit (a forget's rows
# are covered by its receipt); a shared fact does not move to another agent, and a shared
# agent is not renamed and its personal-data policy not changed, except by its owner
AUDIT_SQL = [
    "ALTER TABLE audit_event ADD COLUMN IF NOT EXISTS db_role text",
    "ALTER TABLE audit_event ADD COLUMN IF NOT EXISTS txid bigint",
    """CREATE OR REPLACE FUNCTION engram_audit_stamp() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN
        IF TG_OP = 'INSERT' THEN
            NEW.db_role := session_user;
            NEW.txid := txid_current();
        ELSE
            NEW.db_role := OLD.db_role;
            NEW.txid := OLD.txid;
        END IF;
        RETURN NEW; END $$""",
    "DROP TRIGGER IF EXISTS audit_stamp ON audit_event",
    """CREATE TRIGGER audit_stamp BEFORE INSERT OR UPDATE ON audit_event
        FOR EACH ROW EXECUTE FUNCTION engram_audit_stamp()""",
    """CREATE OR REPLACE FUNCTION engram_fact_audit() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
        DECLARE fid integer; aid integer; b text; a text;
        BEGIN
        IF TG_OP = 'UPDATE' AND NEW.content IS NOT DISTINCT FROM OLD.content
            AND NEW.agent_id = OLD.agent_id AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
            RETURN NULL;
        END IF;
        IF TG_OP = 'DELETE' THEN fid := OLD.id; aid := OLD.agent_id;
        ELSE fid := NEW.id; aid := NEW.agent_id; END IF;
        IF EXISTS (SELECT 1 FROM audit_event e WHERE e.fact_id = fid
                AND e.txid = txid_current())
           OR EXISTS (SELECT 1 FROM forget_witness w WHERE w.txid = txid_current())
           OR NOT EXISTS (SELECT 1 FROM agent g WHERE g.id = aid) THEN
            RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
            b := json_build_object('content', OLD.content, 'status', OLD.status,
                                   'agent_id', OLD.agent_id)::text;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            a := json_build_object('content', NEW.content, 'status', NEW.status,
                                   'agent_id', NEW.agent_id)::text;
        END IF;
        INSERT INTO audit_event (agent_id, fact_id, action, before, after, actor, reason,
                                 by_user, origin, created_at)
        VALUES (aid, fid, 'sql.' || lower(TG_OP), b, a, 'sql',
                'no audit event came with this write: recorded by the server', session_user,
                'sql', timezone('utc', now()));
        RETURN NULL; END $$""",
    "DROP TRIGGER IF EXISTS fact_audit ON fact",
    """CREATE CONSTRAINT TRIGGER fact_audit AFTER INSERT OR UPDATE OR DELETE ON fact
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION engram_fact_audit()""",
    """CREATE OR REPLACE FUNCTION engram_fact_move_guard() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$ BEGIN
        IF NEW.agent_id <> OLD.agent_id AND NOT engram_is_admin() AND EXISTS (
                SELECT 1 FROM agent a WHERE a.id IN (OLD.agent_id, NEW.agent_id)
                AND a.owner IS DISTINCT FROM session_user) THEN
            RAISE EXCEPTION 'a fact moves between agents only when you own both'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW; END $$""",
    "DROP TRIGGER IF EXISTS fact_move_guard ON fact",
    """CREATE TRIGGER fact_move_guard BEFORE UPDATE OF agent_id ON fact
        FOR EACH ROW EXECUTE FUNCTION engram_fact_move_guard()""",
    """CREATE OR REPLACE FUNCTION engram_agent_owner_guard() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$ BEGIN
        IF OLD.owner IS NOT DISTINCT FROM session_user OR engram_is_admin() THEN
            RETURN NEW;
        END IF;
        IF NEW.slug IS DISTINCT FROM OLD.slug OR NEW.name IS DISTINCT FROM OLD.name
           OR NEW.kind IS DISTINCT FROM OLD.kind
           OR (NEW.settings::jsonb -> 'pii') IS DISTINCT FROM (OLD.settings::jsonb -> 'pii') THEN
            RAISE EXCEPTION 'only its owner (%) renames agent % or changes its personal-data policy', OLD.owner, OLD.slug
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW; END $$""",
    "DROP TRIGGER IF EXISTS agent_owner_guard ON agent",
    """CREATE TRIGGER agent_owner_guard BEFORE UPDATE ON agent
        FOR EACH ROW EXECUTE FUNCTION engram_agent_owner_guard()""",
]

# 3: a member's rule covers the agents that member sees (a rule for every agent is the
# admin's: a member's is written once per agent they see), and only an agent's owner (or the
# admin) removes or changes its rules
RULE_SQL = [
    """CREATE OR REPLACE FUNCTION engram_rule_scope() RETURNS trigger
        LANGUAGE plpgsql AS $$
        DECLARE ids integer[];
        BEGIN
        IF NEW.agent_id IS NOT NULL OR engram_is_admin() THEN RETURN NEW; END IF;
        SELECT array_agg(a.id ORDER BY a.id) INTO ids FROM agent a;  -- the rows this role sees
        IF ids IS NULL THEN
            RAISE EXCEPTION 'a forget rule for every agent is the admin''s (you see no agent)'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        INSERT INTO forget_rule (agent_id, label, hashes, ngram, created_at)
            SELECT x, NEW.label, NEW.hashes, NEW.ngram, NEW.created_at FROM unnest(ids[2:]) x;
        NEW.agent_id := ids[1];
        RETURN NEW; END $$""",
    "DROP TRIGGER IF EXISTS rule_scope ON forget_rule",
    """CREATE TRIGGER rule_scope BEFORE INSERT ON forget_rule
        FOR EACH ROW EXECUTE FUNCTION engram_rule_scope()""",
    """CREATE OR REPLACE FUNCTION engram_rule_owner_guard() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
        DECLARE who text; s text;
        BEGIN
        IF engram_is_admin() THEN
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END IF;
        SELECT a.owner, a.slug INTO who, s FROM agent a WHERE a.id = OLD.agent_id;
        IF FOUND AND who IS DISTINCT FROM session_user THEN
            RAISE EXCEPTION 'only the owner of agent % (%) removes or changes its forget rules', s, who
                USING ERRCODE = 'insufficient_privilege';
        ELSIF NOT FOUND AND OLD.agent_id IS NULL THEN
            RAISE EXCEPTION 'a forget rule for every agent is the admin''s to remove'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW; END $$""",
    "DROP TRIGGER IF EXISTS rule_owner_guard ON forget_rule",
    """CREATE TRIGGER rule_owner_guard BEFORE UPDATE OR DELETE ON forget_rule
        FOR EACH ROW EXECUTE FUNCTION engram_rule_owner_guard()""",
]

FUNCTIONS = (
    "engram_lock_agent(integer, integer)",
    "engram_lock_holder(integer)",
    "engram_sampled_text_columns()",
    "engram_clear_text_stats()",
)


def _has_table(db: pw.Database, name: str) -> bool:
    return bool(db.execute_sql("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0])


def harden(db: pw.Database) -> None:
    for stmt in [IS_ADMIN_SQL, *RECEIPT_SQL, *LOCK_SQL, *STATS_SQL, *AUDIT_SQL, *RULE_SQL]:
        run_raw(db, stmt)
    for table, column in STATS_COLUMNS:
        if _has_table(db, table):
            db.execute_sql(f"ALTER TABLE {table} ALTER COLUMN {column} SET STATISTICS 0")
    db.execute_sql("SELECT engram_clear_text_stats()")
    if _has_table(db, "fact_vector"):
        for stmt in VECTOR_SQL:
            run_raw(db, stmt)
        db.execute_sql("DROP TRIGGER IF EXISTS vector_guard ON fact_vector")
        db.execute_sql(
            "CREATE TRIGGER vector_guard BEFORE INSERT OR UPDATE ON fact_vector "
            "FOR EACH ROW EXECUTE FUNCTION engram_vector_guard()"
        )
    for fn in FUNCTIONS:
        db.execute_sql(f"REVOKE ALL ON FUNCTION {fn} FROM PUBLIC")
        db.execute_sql(f"GRANT EXECUTE ON FUNCTION {fn} TO {TEAM_ROLE}")

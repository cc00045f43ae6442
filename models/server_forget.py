"""Schema v15 on PostgreSQL: the forget-rule key never leaves the server, and a forget receipt
is written only by the server's function (issue 31, findings 1-3).

Before, every member read ``team_secret`` to hash rules on the client: anyone who had once
been in the team could test guesses against the rules offline, for ever. Now the key is
readable by the admin role alone (no grant, and row security with no policy behind it), and
members hash through ``engram_rule_hash``, which runs as the owner. Receipts: members lost
INSERT on ``forget_receipt``; ``engram_open_receipt`` writes one, stamped by the receipt
trigger of v12 with the role that called it (``session_user``), for an agent that role sees.
tests/teamstore/test_attacks.py keeps the SQL of each attack.
"""

from __future__ import annotations

import peewee as pw

from models.access import TEAM_ROLE, run_raw

# HMAC-SHA256 (RFC 2104) of each message under the team key, as Python's hmac computes it
# (rules hashed by clients before v15 keep matching): the pads are built once per call, the
# messages hashed in one set-based query
RULE_HASH_SQL = """CREATE OR REPLACE FUNCTION engram_rule_hash(msgs text[]) RETURNS text[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
    DECLARE k bytea; ipad bytea; opad bytea; i integer;
    BEGIN
    SELECT value INTO k FROM team_secret WHERE name = 'forget';
    IF k IS NULL THEN
        RAISE EXCEPTION 'this team store has no forget key' USING ERRCODE = 'no_data_found';
    END IF;
    IF length(k) > 64 THEN k := sha256(k); END IF;
    k := k || decode(repeat('00', 64 - length(k)), 'hex');
    ipad := k; opad := k;
    FOR i IN 0..63 LOOP
        ipad := set_byte(ipad, i, get_byte(k, i) # 54);
        opad := set_byte(opad, i, get_byte(k, i) # 92);
    END LOOP;
    RETURN ARRAY(
        SELECT encode(sha256(opad || sha256(ipad || convert_to(m, 'UTF8'))), 'hex')
        FROM unnest(msgs) WITH ORDINALITY AS t(m, n) ORDER BY n);
    END $$"""

# the receipt trigger (v12) stamps by_role with session_user and refuses an agent the
# caller cannot see; this function is the only way a member writes a receipt
OPEN_RECEIPT_SQL = """CREATE OR REPLACE FUNCTION engram_open_receipt(
        slug text, scope text, counts text, hashes text) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
    DECLARE rid integer;
    BEGIN
    INSERT INTO forget_receipt (agent_slug, scope, counts, hashes, created_at)
        VALUES (slug, scope, counts, hashes, timezone('utc', now()))
        RETURNING id INTO rid;
    RETURN rid;
    END $$"""

FUNCTIONS = ("engram_rule_hash(text[])", "engram_open_receipt(text, text, text, text)")


def migrate_v15(db: pw.Database) -> None:
    run_raw(db, RULE_HASH_SQL)
    run_raw(db, OPEN_RECEIPT_SQL)
    for fn in FUNCTIONS:
        db.execute_sql(f"REVOKE ALL ON FUNCTION {fn} FROM PUBLIC")
        db.execute_sql(f"GRANT EXECUTE ON FUNCTION {fn} TO {TEAM_ROLE}")
    db.execute_sql(f"REVOKE ALL ON team_secret FROM PUBLIC, {TEAM_ROLE}")
    # no policy: a grant a later migration hands out by mistake still shows no row
    db.execute_sql("ALTER TABLE team_secret ENABLE ROW LEVEL SECURITY")
    db.execute_sql(f"REVOKE INSERT ON forget_receipt FROM PUBLIC, {TEAM_ROLE}")


def has_rule_hash(db: pw.Database) -> bool:
    """The store hashes forget rules on the server (schema v15)."""
    row = db.execute_sql(
        "SELECT to_regprocedure('engram_rule_hash(text[])') IS NOT NULL"
    ).fetchone()
    return bool(row and row[0])

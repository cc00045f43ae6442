"""Two members, two real PostgreSQL roles: each test keeps the SQL of one attack from issue 31
that a member ran as himself (psql, a script: no Engram in between) and shows the server
holding, and what the other member then sees through the CLI."""

from __future__ import annotations

import re
from functools import partial

import psycopg2
import pytest

from services.config import StoreConfig
from services.engram import Engram
from tests.teamstore.servers import member_cli as _cli

SHARED = [
    "The release branch is cut every Monday morning",
    "Deploys to staging need a second reviewer",
]
DIARY = "My salary review with Priya is on the third of June"


def _sql(pg_server, dbname, role, autocommit=True):
    con = psycopg2.connect(host="127.0.0.1", port=pg_server.port, user=role, dbname=dbname)
    con.autocommit = autocommit
    return con


def _refused(con, match: str, *statements: str) -> None:
    """Each statement fails on the server with MATCH; the connection stays usable."""
    cur = con.cursor()
    for stmt in statements:
        with pytest.raises(psycopg2.Error, match=match):
            cur.execute(stmt)
        con.rollback()


@pytest.fixture
def team(members, team_store, tmp_path):
    """alice: a shared agent "team" (two facts, their audit events) and a private "diary"."""
    alice = Engram.open(
        StoreConfig(data_dir=tmp_path / "alice", db_url=members("alice"), semantic=False)
    )
    try:
        t = alice.agent("team", create=True)
        for text in SHARED:
            t.remember(text)
        alice.agent("diary", create=True)
        alice.set_visibility("diary", "private")
        d = alice.agent("diary")
        d.remember(DIARY)
        return {
            "team": t.agent_id,
            "diary": d.agent_id,
            "diary_fact": d.list()[0].id,
            "team_fact": t.list()[0].id,
        }
    finally:
        alice.close()


RECEIPT = (
    "INSERT INTO forget_receipt (agent_slug, scope, counts, hashes, created_at, by_role) "
    "VALUES (%s, '{\"kind\": \"matching\"}', '{}', '[]', now(), %s) RETURNING id, by_role"
)
# the one way a member writes a receipt (schema v15): the server's function, which records
# the role that called it
OPEN_RECEIPT = "SELECT engram_open_receipt(%s, '{\"kind\": \"matching\"}', '{}', '[]')"


def _opened(cur, slug: str) -> tuple[int, str]:
    cur.execute(OPEN_RECEIPT, (slug,))
    rid = cur.fetchone()[0]
    cur.execute("SELECT by_role FROM forget_receipt WHERE id = %s", (rid,))
    return rid, cur.fetchone()[0]


def test_1_a_receipt_for_another_agent_does_not_cover_erasing_the_teams_audit_trail(
    members, team_store, pg_server, team
):
    con = _sql(pg_server, team_store.dbname, "bob", autocommit=False)
    cur = con.cursor()
    # the attack: any receipt written straight into the table: refused, whatever it says
    with pytest.raises(psycopg2.Error, match="permission denied for table forget_receipt"):
        cur.execute(RECEIPT, ("team", "alice"))
    con.rollback()
    # a receipt of bob's own (for an agent of his), then the team's trail goes
    cur.execute(
        "INSERT INTO agent (slug, name, kind, settings, created_at, visibility) "
        "VALUES ('bobs', 'bobs', 'generic', '{}', now(), 'shared')"
    )
    assert _opened(cur, "bobs")[1] == "bob"
    cur.execute("DELETE FROM audit_event WHERE agent_id = %s", (team["team"],))
    assert cur.rowcount >= 2
    with pytest.raises(psycopg2.Error, match="removed only by a forget of that agent"):
        con.commit()
    con.rollback()
    # nor with no receipt at all, nor one claiming to be no agent's... as admin only
    cur.execute("DELETE FROM audit_event WHERE agent_id = %s", (team["team"],))
    with pytest.raises(psycopg2.Error, match="removed only by a forget"):
        con.commit()
    con.rollback()
    con.close()
    admin = _sql(pg_server, team_store.dbname, "engram_admin")
    with admin.cursor() as c:
        c.execute("SELECT count(*) FROM audit_event WHERE agent_id = %s", (team["team"],))
        assert c.fetchone()[0] >= 2
        c.execute("SELECT count(*) FROM audit_erasure")
        assert c.fetchone()[0] == 0
        c.execute("SELECT count(*) FROM forget_receipt")
        assert c.fetchone()[0] == 0
    admin.close()


def test_1_2_a_forged_receipt_names_its_real_writer_and_every_event_it_erased(
    members, team_store, pg_server, team, tmp_path, monkeypatch, capsys
):
    con = _sql(pg_server, team_store.dbname, "bob", autocommit=False)
    cur = con.cursor()
    # a receipt for alice's private agent: refused (bob cannot see it), by the table and by
    # the function alike
    with pytest.raises(psycopg2.Error, match="permission denied for table forget_receipt"):
        cur.execute(RECEIPT, ("diary", "alice"))
    con.rollback()
    with pytest.raises(psycopg2.Error, match="no agent diary"):
        cur.execute(OPEN_RECEIPT, ("diary",))
    con.rollback()
    # a receipt for the shared agent (the function stamps bob), then the trail erased
    rid, by = _opened(cur, "team")
    assert by == "bob"  # the server's stamp, not the client's claim
    cur.execute("SELECT id FROM audit_event WHERE agent_id = %s ORDER BY id", (team["team"],))
    erased = [r[0] for r in cur.fetchall()]
    cur.execute("DELETE FROM audit_event WHERE agent_id = %s", (team["team"],))
    con.commit()
    # and the stamp cannot be changed afterwards, nor the receipt or the record removed
    cur.execute(
        "UPDATE forget_receipt SET by_role = 'alice', agent_slug = 'x' WHERE id = %s", (rid,)
    )
    con.commit()
    _refused(
        con,
        "permission denied",
        "DELETE FROM forget_receipt",
        "DELETE FROM audit_erasure",
        "DELETE FROM forget_witness",
    )
    con.close()

    # alice sees who did it: the receipt says bob, and the server kept each erased event's id
    rc, out, err = _cli(capsys, monkeypatch, members("alice"), tmp_path / "alice-cli", "receipts")
    assert rc == 0, err
    said = rf"receipt {rid} at .*agent team, by bob \(database role\), {len(erased)} audit event"
    assert re.search(said, out), out
    con = _sql(pg_server, team_store.dbname, "alice")
    with con.cursor() as c:
        c.execute(
            "SELECT audit_id, by_role, receipt_id FROM audit_erasure WHERE agent_id = %s "
            "ORDER BY audit_id",
            (team["team"],),
        )
        assert c.fetchall() == [(i, "bob", rid) for i in erased]
    con.close()


def test_7_a_member_holding_advisory_locks_or_one_agents_lock_stops_nobody_else(
    members, team_store, pg_server, team, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("ENGRAM_PG_LOCK_TIMEOUT", "2")
    bob = _sql(pg_server, team_store.dbname, "bob", autocommit=False)
    cur = bob.cursor()
    # the attack: the lock every client took to open the store, and the old per-agent keys
    cur.execute("SELECT pg_advisory_lock(4242014)")
    cur.execute("SELECT pg_advisory_lock(4242, %s)", (team["team"],))
    cur.execute("SELECT pg_advisory_lock(4242, %s)", (team["diary"],))
    as_alice = partial(_cli, capsys, monkeypatch, members("alice"), tmp_path / "a")

    rc, out, err = as_alice("remember", "--agent", "team", "The office closes at six on Fridays")
    assert rc == 0, err
    # the writer lock now: bob cannot take the lock of an agent he cannot see, nor reach
    # the lock table
    with pytest.raises(psycopg2.Error, match="no agent"):
        cur.execute("SELECT engram_lock_agent(%s, 100)", (team["diary"],))
    bob.rollback()
    with pytest.raises(psycopg2.Error, match="permission denied"):
        cur.execute("SELECT * FROM agent_lock FOR UPDATE")
    bob.rollback()
    # he can hold the shared agent's (he writes to it): a writer there waits a bounded time
    # and is told who holds it; alice's own agent is not held up
    cur.execute("SELECT engram_lock_agent(%s, 100)", (team["team"],))
    rc, out, err = as_alice("remember", "--agent", "team", "The office opens at eight")
    assert rc != 0 and "lock wait: bob held the writer lock" in err, (rc, out, err)
    rc, out, err = as_alice("remember", "--agent", "diary", "Dentist on Tuesday")
    assert rc == 0, err
    bob.rollback()
    bob.close()


def test_9_memory_text_stays_out_of_planner_statistics_and_verify_says_when_a_dba_put_it_back(
    members, team_store, pg_server, team, tmp_path, monkeypatch, capsys
):
    admin = _sql(pg_server, team_store.dbname, "engram_admin")
    c = admin.cursor()

    def sampled() -> str:
        c.execute(
            "SELECT coalesce(string_agg(concat_ws(' ', most_common_vals::text, "
            "histogram_bounds::text, most_common_elems::text), ' '), '') FROM pg_stats "
            "WHERE schemaname = 'public' AND tablename IN "
            "('fact', 'audit_event', 'compiled_layer', 'entity', 'episode')"
        )
        return c.fetchone()[0]

    c.execute("ANALYZE")
    assert "release branch" not in sampled() and "salary" not in sampled()
    # a DBA raises the target and analyses by hand: the text is in pg_statistic again
    for col in ("content", "fts"):
        c.execute(f"ALTER TABLE fact ALTER COLUMN {col} SET STATISTICS 100")
    c.execute("ANALYZE fact")
    assert "Monday morning" in sampled()
    bob, bdir = members("bob"), tmp_path / "b"
    as_bob = partial(_cli, capsys, monkeypatch, bob, bdir)
    rc, out, err = as_bob("forget", "--verify", SHARED[0], "--agent", "team")
    assert rc == 1 and "failed: planner statistics of fact.content" in out, out
    # bob's forget clears them (the owner's function), and verify says so
    rc, out, err = as_bob(
        "forget", "--agent", "team", "--matching", "release branch is cut", "--yes"
    )
    assert rc == 0, (out, err)
    assert "Monday morning" not in sampled() and "salary" not in sampled()
    rc, out, err = as_bob("forget", "--verify", SHARED[0], "--agent", "team")
    assert rc == 0 and "held: no planner statistics hold sampled memory text" in out, out
    admin.close()


def test_10_fact_vector_answers_the_same_for_a_hidden_fact_and_a_missing_one(
    members, team_store, pg_server, team
):
    con = _sql(pg_server, team_store.dbname, "bob")
    cur = con.cursor()
    vec = "[" + ",".join(["0.1"] * 384) + "]"
    answers = []
    for fid in (team["diary_fact"], 999999):
        with pytest.raises(psycopg2.Error) as got:
            cur.execute(
                "INSERT INTO fact_vector (fact_id, agent_id, text_hash, embedding) "
                "VALUES (%s, %s, 'h', %s::vector)",
                (fid, team["team"], vec),
            )
        answers.append((got.value.pgcode, str(got.value).splitlines()[0].replace(str(fid), "N")))
    assert answers[0] == answers[1], answers
    assert "duplicate" not in answers[0][1] and "foreign key" not in answers[0][1]
    # his own fact's vector still goes in
    cur.execute(
        "INSERT INTO fact_vector (fact_id, agent_id, text_hash, embedding) "
        "VALUES (%s, %s, 'h', %s::vector) ON CONFLICT (fact_id) DO UPDATE SET text_hash = 'h'",
        (team["team_fact"], team["team"], vec),
    )
    con.close()


def test_8_sql_edits_are_audited_by_the_server_with_the_role_that_made_them(
    members, team_store, pg_server, team, tmp_path, monkeypatch, capsys
):
    alice, adir = members("alice"), tmp_path / "a"
    as_alice = partial(_cli, capsys, monkeypatch, alice, adir)
    fid = team["team_fact"]
    # Engram's own writes keep their own events (no server duplicate), stamped with the role
    monkeypatch.setenv("ENGRAM_USER", "mallory")  # a label the client chooses
    rc, out, err = as_alice("pin", str(fid))
    assert rc == 0, err
    con = _sql(pg_server, team_store.dbname, "bob")
    cur = con.cursor()
    # the attacks: a silent SQL edit, a fact moved into his private agent, the shared agent
    # renamed, its personal-data policy changed
    cur.execute("UPDATE fact SET content = 'Releases are cut on Fridays' WHERE id = %s", (fid,))
    cur.execute(
        "INSERT INTO agent (slug, name, kind, settings, created_at, visibility) "
        "VALUES ('bobs', 'bobs', 'generic', '{}', now(), 'private') RETURNING id"
    )
    mine = cur.fetchone()[0]
    refused = [
        ("UPDATE fact SET agent_id = %s WHERE id = %s", (mine, fid), "moves between agents"),
        ("UPDATE agent SET slug = 'renamed' WHERE id = %s", (team["team"],), "only its owner"),
        ("UPDATE agent SET name = 'renamed' WHERE id = %s", (team["team"],), "only its owner"),
        (
            'UPDATE agent SET settings = \'{"pii": "allow"}\' WHERE id = %s',
            (team["team"],),
            "only its owner",
        ),
    ]
    for stmt, params, says in refused:
        with pytest.raises(psycopg2.Error, match=says):
            cur.execute(stmt, params)
    cur.execute(
        "SELECT action, by_user, db_role, origin FROM audit_event WHERE fact_id = %s ORDER BY id",
        (fid,),
    )
    events = cur.fetchall()
    con.close()
    assert events[-1] == ("sql.update", "bob", "bob", "sql"), events
    assert not any(a.startswith("sql.") for a, *_ in events[:-1]), events
    pin = [e for e in events if e[0] == "pin"]
    assert pin and pin[0][1:3] == ("mallory", "alice"), events  # the label beside the role
    # alice sees it in the fact's history
    rc, out, err = as_alice("show", str(fid))
    assert rc == 0, err
    assert re.search(r"sql\.update by sql \(bob, sql\) \[database role bob\]", out), out
    assert "[database role alice]" in out, out


RULE = (
    "INSERT INTO forget_rule (agent_id, label, hashes, ngram, created_at) "
    "VALUES (%s, 'x', '[\"1:00\"]', 1, now()) RETURNING id, agent_id"
)


def test_3_a_members_forget_for_all_agents_covers_only_what_he_sees_and_only_owners_remove_rules(
    members, team_store, pg_server, team, tmp_path, monkeypatch, capsys
):
    alice, bob = members("alice"), members("bob")
    adir, bdir = tmp_path / "a", tmp_path / "b"
    as_alice = partial(_cli, capsys, monkeypatch, alice, adir)
    as_bob = partial(_cli, capsys, monkeypatch, bob, bdir)
    # alice's rule on her shared agent
    rc, out, err = as_alice("forget", "--agent", "team", "--matching", "second reviewer", "--yes")
    assert rc == 0, (out, err)
    # the attack: bob's forget for every agent, then alice writes the words to her diary
    text = "Standup moves to the Kestrel room"
    rc, out, err = as_alice("remember", "--agent", "team", text)
    assert rc == 0, (out, err)
    rc, out, err = as_bob("forget", "--all-agents", "--matching", "Kestrel room", "--yes")
    assert rc == 0, (out, err)
    rc, out, err = as_alice("remember", "--agent", "diary", text)
    assert rc == 0, (out, err)
    rc, out, err = as_alice("remember", "--agent", "team", text)
    assert rc == 3, (out, err)  # the team's agent: bob's rule holds there
    con = _sql(pg_server, team_store.dbname, "bob")
    cur = con.cursor()
    # in SQL: a rule for every agent becomes one per agent he sees
    cur.execute(RULE, (None,))
    assert cur.fetchone()[1] == team["team"]
    # and he may not remove or weaken the rules of alice's agent
    cur.execute("SELECT id FROM forget_rule WHERE agent_id = %s ORDER BY id", (team["team"],))
    alices = cur.fetchone()[0]
    for stmt in (
        "DELETE FROM forget_rule WHERE id = %s",
        "UPDATE forget_rule SET hashes = '[]' WHERE id = %s",
    ):
        with pytest.raises(psycopg2.Error, match="only the owner of agent team"):
            cur.execute(stmt, (alices,))
    con.close()
    rc, out, err = as_bob("rules", "remove", str(alices))
    assert rc != 0 and "only the owner of agent team (alice)" in err, (rc, out, err)
    admin = _sql(pg_server, team_store.dbname, "engram_admin")
    with admin.cursor() as c:
        c.execute(
            "SELECT count(*) FROM forget_rule WHERE agent_id IS NULL OR agent_id = %s",
            (team["diary"],),
        )
        assert c.fetchone()[0] == 0
        c.execute("SELECT count(*) FROM forget_rule WHERE id = %s", (alices,))
        assert c.fetchone()[0] == 1
    admin.close()


def test_3_the_forget_rule_key_stays_in_the_server_and_members_hash_through_it(
    members, team_store, pg_server, team, tmp_path, monkeypatch, capsys
):
    """Finding 3, the key: before schema v15 every member read ``team_secret`` (and could
    test guesses against the team's rules offline, for ever). Now only the server hashes,
    with the same HMAC, so rules made either way block the same words on every client."""
    import hashlib
    import hmac

    con = _sql(pg_server, team_store.dbname, "bob")
    cur = con.cursor()
    # the attack: read the key (and, failing that, see that a row is there at all)
    _refused(
        con,
        "permission denied for table team_secret",
        "SELECT value FROM team_secret",
        "SELECT count(*) FROM team_secret",
        "COPY team_secret TO STDOUT",
    )
    # what he may do: hash words through the server's function
    cur.execute("SELECT engram_rule_hash(ARRAY['kestrel room', 'the third of june'])")
    by_server = cur.fetchone()[0]
    con.close()
    admin = _sql(pg_server, team_store.dbname, "engram_admin")
    with admin.cursor() as c:
        c.execute("SELECT value FROM team_secret WHERE name = 'forget'")
        key = bytes(c.fetchone()[0])
    admin.close()
    assert by_server == [
        hmac.new(key, m.encode(), hashlib.sha256).hexdigest()
        for m in ("kestrel room", "the third of june")
    ]
    # bob's forget through the CLI makes a rule that blocks the words for alice
    as_alice = partial(_cli, capsys, monkeypatch, members("alice"), tmp_path / "a")
    as_bob = partial(_cli, capsys, monkeypatch, members("bob"), tmp_path / "b")
    text = "Standup moves to the Kestrel room"
    rc, out, err = as_alice("remember", "--agent", "team", text)
    assert rc == 0, (out, err)
    rc, out, err = as_bob("forget", "--agent", "team", "--matching", "Kestrel room", "--yes")
    assert rc == 0, (out, err)
    rc, out, err = as_alice("remember", "--agent", "team", text)
    assert rc == 3 and "forget rule" in (out + err).lower(), (rc, out, err)
    # and no key on either machine: their data dirs hold no forget.key
    assert not list(tmp_path.glob("*/forget.key"))
    # someone who left the team hashes nothing any more
    admin = _sql(pg_server, team_store.dbname, "engram_admin")
    admin.cursor().execute("REVOKE engram_team FROM bob")
    admin.close()
    con = _sql(pg_server, team_store.dbname, "bob")
    with pytest.raises(psycopg2.Error, match="permission denied for function engram_rule_hash"):
        con.cursor().execute("SELECT engram_rule_hash(ARRAY['kestrel room'])")
    con.close()

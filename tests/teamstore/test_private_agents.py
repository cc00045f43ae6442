"""Two people, two real PostgreSQL roles, vectors in PostgreSQL (pgvector): member B cannot
read, infer, alter or delete member A's private agent or the team's shared records by any
path (plain SQL, the CLI, MCP's tools, the vector index), and after B's forget the server's
files hold none of the forgotten text."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg2
import pytest

from services.config import StoreConfig
from services.engram import Engram

DIARY = [
    "My salary review with Priya is on the third of June",
    "I am interviewing with Northwind Labs on Friday afternoon",
]
SHARED = "The release branch is cut every Monday morning"
SECRET = "The staging root password is kept in the Zephyrine vault"


def _open(url, tmp_path, name, semantic=True):
    e = Engram.open(StoreConfig(data_dir=tmp_path / name, db_url=url, semantic=semantic))
    if semantic:
        assert e.semantic_enabled, e.semantic_error
        assert e.index.kind == "pgvector"  # no Chroma server named: vectors in PostgreSQL
    return e


def _sql(pg_server, dbname, role):
    con = psycopg2.connect(host="127.0.0.1", port=pg_server.port, user=role, dbname=dbname)
    con.autocommit = True
    return con


@pytest.fixture
def alice_setup(members, team_store, tmp_path):
    alice = _open(members("alice"), tmp_path, "alice")
    alice.agent("diary", create=True)
    alice.set_visibility("diary", "private")
    alice.agent("diary").remember_many([__import__("services").NewFact(t) for t in DIARY])
    team = alice.agent("team", create=True)
    team.remember(SHARED)
    team.remember(SECRET)
    ids = {"diary": alice.agent("diary").agent_id, "team": team.agent_id}
    assert alice.index.count(ids["diary"]) == 2
    alice.close()
    return ids


def test_b_sees_nothing_of_a_private_agent_through_sql_cli_mcp_or_vectors(
    members, team_store, pg_server, alice_setup, tmp_path, monkeypatch, capsys
):
    diary_id = alice_setup["diary"]
    con = _sql(pg_server, team_store.dbname, "bob")
    cur = con.cursor()
    for table in ("fact", "audit_event", "fact_vector", "entity", "episode", "forget_rule"):
        cur.execute(f"SELECT count(*) FROM {table} WHERE agent_id = %s", (diary_id,))
        assert cur.fetchone()[0] == 0, table
    cur.execute("SELECT count(*) FROM fact_entity fe JOIN fact f ON f.id = fe.fact_id")
    linked = cur.fetchone()[0]
    cur.execute("SELECT count(*) FROM fact_entity")
    assert cur.fetchone()[0] == linked  # no link of a fact B cannot see
    cur.execute("SELECT slug FROM agent ORDER BY slug")
    assert [r[0] for r in cur.fetchall()] == ["team"]
    con.close()

    # the CLI, as bob
    from app.cli import main

    monkeypatch.setenv("ENGRAM_DB_URL", members("bob"))
    monkeypatch.delenv("ENGRAM_CHROMA_URL", raising=False)
    rc = main(["--data-dir", str(tmp_path / "bob-cli"), "agents", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert [a["slug"] for a in json.loads(out)] == ["team"]
    rc = main(["--data-dir", str(tmp_path / "bob-cli"), "recall", "--agent", "diary", "salary"])
    out, err = capsys.readouterr()
    assert rc != 0 and "salary" not in out and "no agent" in err
    rc = main(["--data-dir", str(tmp_path / "bob-cli"), "agent", "share", "diary"])
    out, err = capsys.readouterr()
    assert rc != 0 and "no agent" in err

    # MCP's tools and the vectors, as bob: a question near the diary finds only team memory
    from services.errors import NotFound
    from services.integrations.mcp import memory as mcp_tools

    bob = _open(members("bob"), tmp_path, "bob")
    try:
        with pytest.raises(NotFound):
            bob.agent("diary")  # what `engram mcp --agent diary` opens first
        got = mcp_tools.recall(bob.agent("team"), "when is my salary review", mode="semantic")
        assert {h["content"] for h in got["hits"]} <= {SHARED, SECRET}
        assert bob.index.count(diary_id) == 0
        assert bob.index.query(diary_id, bob.embedder.embed([DIARY[0]])[0], k=5) == []
    finally:
        bob.close()


def test_b_cannot_alter_or_delete_what_is_not_his(members, team_store, pg_server, alice_setup):
    team_id = alice_setup["team"]
    con = _sql(pg_server, team_store.dbname, "bob")
    cur = con.cursor()
    refused = [
        ("UPDATE agent SET owner = 'bob', visibility = 'private' WHERE id = %s", (team_id,)),
        ("UPDATE agent SET visibility = 'private' WHERE id = %s", (team_id,)),
        ("DELETE FROM audit_event WHERE agent_id = %s", (team_id,)),
        ("UPDATE audit_event SET reason = 'x' WHERE agent_id = %s", (team_id,)),
        ("UPDATE schema_version SET version = 99", ()),
        ("DELETE FROM forget_receipt", ()),
        ("SELECT engram_compact(ARRAY['fact']::text[]) FROM fact WHERE false", ()),
        ("SELECT setval('fact_id_seq', 1)", ()),
        ("VACUUM FULL fact", ()),
    ]
    for stmt, params in refused[:-1]:
        try:
            cur.execute(stmt, params)
        except psycopg2.Error as exc:
            assert (
                "permission denied" in str(exc)
                or "only through" in str(exc)
                or ("forget" in str(exc))
            ), (stmt, exc)
        else:
            # no error: then nothing may have changed (the owner-only compaction ran as owner)
            assert stmt.startswith("SELECT engram_compact"), stmt
    cur.execute("SELECT owner, visibility FROM agent WHERE id = %s", (team_id,))
    assert cur.fetchone() == ("alice", "shared")
    cur.execute("SELECT count(*) FROM audit_event WHERE agent_id = %s", (team_id,))
    assert cur.fetchone()[0] >= 2
    # an agent bob creates is his whatever he claims
    cur.execute(
        "INSERT INTO agent (slug, name, kind, settings, created_at, visibility, owner) "
        "VALUES ('bobs', 'bobs', 'generic', '{}', now(), 'private', 'alice') RETURNING owner"
    )
    assert cur.fetchone()[0] == "bob"
    con.close()


def _heap_bytes(pg_server, dbname: str) -> bytes:
    """Every file of the database's directory on the server's disk (tables, TOAST, indexes,
    catalogs), after a checkpoint has written every dirty page."""
    con = pg_server.admin(dbname)
    with con.cursor() as cur:
        cur.execute("CHECKPOINT")
        cur.execute("SELECT oid FROM pg_database WHERE datname = %s", (dbname,))
        oid = cur.fetchone()[0]
    con.close()
    base = Path(pg_server.root) / "data" / "base" / str(oid)
    return b"".join(p.read_bytes() for p in base.iterdir() if p.is_file())


def test_after_bs_forget_the_server_files_hold_none_of_the_text(
    members, team_store, pg_server, alice_setup, tmp_path
):
    from services.forget.service import ForgetScope, ForgetService

    assert b"Zephyrine" in _heap_bytes(pg_server, team_store.dbname)
    bob = _open(members("bob"), tmp_path, "bob")
    try:
        svc = ForgetService(bob)
        receipt = svc.execute(ForgetScope(agent="team", matching="Zephyrine vault"))
        assert receipt["counts"]["remaining_after_verify"] == 0
        # the receipt says what ran: the owner's function rewrote the tables
        assert receipt["counts"]["server_tables_rewritten"] >= 6, receipt
        rep = svc.verify([SECRET], agent="team")
        assert rep.ok, rep.remaining
        text = "\n".join(rep.guarantees)
        assert "held: every text table was rewritten" in text, text
        assert "held: no vector in PostgreSQL (pgvector)" in text, text
        assert [h.fact.content for h in bob.agent("team").search("release", mode="keyword")] == [
            SHARED
        ]
    finally:
        bob.close()
    assert b"Zephyrine" not in _heap_bytes(pg_server, team_store.dbname)
    # the rule holds on every client of the team store: alice cannot write it again
    alice = _open(members("alice"), tmp_path, "alice2", semantic=False)
    try:
        got = alice.agent("team").remember(SECRET)
        assert got.status == "blocked" and got.fact_id is None, got
        assert alice.agent("team").search("Zephyrine", mode="keyword") == []
    finally:
        alice.close()

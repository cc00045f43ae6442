"""Shared and private agents on a team store, enforced by PostgreSQL row-level security:
a private agent's rows are invisible to another member even in plain SQL as that role."""

from __future__ import annotations

import psycopg2
import pytest

from services.config import StoreConfig
from services.engram import Engram


def _open(url, tmp_path, name):
    return Engram.open(StoreConfig(data_dir=tmp_path / name, db_url=url, semantic=False))


def test_a_private_agent_is_invisible_to_another_role_in_direct_sql(members, tmp_path, pg_server):
    alice = _open(members("alice"), tmp_path, "alice")
    diary = alice.agent("alice-diary", create=True)
    alice.set_visibility("alice-diary", "private")
    diary.remember("My salary review is on the 3rd of June")
    diary.remember("I am interviewing with another company on Friday")
    team = alice.agent("team", create=True)
    team.remember("The release branch is cut every Monday")
    private_id = diary.agent_id
    alice.close()

    # bob, as himself, in plain SQL (no Engram in between)
    con = psycopg2.connect(
        host="127.0.0.1", port=pg_server.port, user="bob", dbname=members("bob").rsplit("/", 1)[1]
    )
    cur = con.cursor()
    cur.execute("SELECT count(*) FROM fact WHERE agent_id = %s", (private_id,))
    assert cur.fetchone()[0] == 0
    cur.execute("SELECT count(*) FROM audit_event WHERE agent_id = %s", (private_id,))
    assert cur.fetchone()[0] == 0
    cur.execute("SELECT slug FROM agent ORDER BY slug")
    assert [r[0] for r in cur.fetchall()] == ["team"]
    cur.execute("SELECT content FROM fact")
    assert [r[0] for r in cur.fetchall()] == ["The release branch is cut every Monday"]
    cur.execute("SELECT count(*) FROM fact WHERE fts @@ plainto_tsquery('english', 'salary')")
    assert cur.fetchone()[0] == 0
    # nor can he write into it
    with pytest.raises(psycopg2.Error, match="row-level security"):
        cur.execute(
            "INSERT INTO fact (agent_id, content, content_hash, category, memory_type, "
            "importance, confidence, pinned, status, source, tags, created_at, updated_at, "
            "access_count, metadata) VALUES (%s, 'x', 'h', 'fact', 'semantic', 0.5, 0.5, "
            "false, 'active', 'manual', '[]', now(), now(), 0, '{}')",
            (private_id,),
        )
    con.rollback()
    con.close()

    # through Engram bob sees the team's memory and nothing of alice's diary
    bob = _open(members("bob"), tmp_path, "bob")
    assert [a.slug for a in bob.agents()] == ["team"]
    hits = bob.agent("team").search("release branch", mode="keyword", touch=False)
    assert [h.fact.content for h in hits] == ["The release branch is cut every Monday"]
    bob.close()

    # alice still sees both
    alice = _open(members("alice"), tmp_path, "alice")
    assert {a.slug for a in alice.agents()} == {"alice-diary", "team"}
    assert len(alice.agent("alice-diary").list()) == 2
    alice.close()


def test_the_password_comes_from_the_keyring_when_no_pgpass_has_it(members, tmp_path, monkeypatch):
    """The OS keyring backend is outside the product: an in-memory one stands in for it."""
    from tests.fake_keyring import in_memory_keyring

    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    with in_memory_keyring():
        from services.teamstore import check_database, save_password

        url = members("bob")
        ok, msg = check_database(url)
        assert not ok and msg.startswith("unauthorised:"), msg
        assert save_password(url, "bob-secret-2")[0]
        ok, msg = check_database(url)
        assert ok and "as bob" in msg, msg
        e = _open(url, tmp_path, "bob")
        assert e.agents(with_counts=False) == []
        e.close()


def test_a_libpq_service_entry_and_pass_file_open_the_store_with_nothing_in_engrams_files(
    members, team_store, pg_server, tmp_path, monkeypatch
):
    svc = tmp_path / "pg_service.conf"
    svc.write_text(
        f"[team]\nhost=127.0.0.1\nport={pg_server.port}\nuser=alice\ndbname={team_store.dbname}\n"
    )
    monkeypatch.setenv("PGSERVICEFILE", str(svc))
    e = _open("postgresql:///?service=team", tmp_path, "svc")
    try:
        e.agent("team", create=True).remember("Opened through a service entry")
        who = e.db.execute_sql("SELECT current_user, current_database()").fetchone()
        assert who == ("alice", team_store.dbname)
    finally:
        e.close()
    stored = b"".join(p.read_bytes() for p in (tmp_path / "svc").rglob("*") if p.is_file())
    assert b"alice-secret-1" not in stored

"""Schema v10 on the PostgreSQL team store: the rows a team store holds get uids when it is
migrated, and ``engram migrate --from DIR`` / ``--to DIR`` moves facts and agents with their
uids (the same memory, not a copy under new names). Real PostgreSQL and Chroma servers."""

from __future__ import annotations

import itertools

from app.cli import main
from models import Agent, Fact, connect_database
from services.config import StoreConfig
from services.engram import Engram
from services.ingest.pipeline import NewFact

_serial = itertools.count()
TEXTS = [
    "Production database is PostgreSQL 16 on a dedicated host",
    "The team ships releases every second Tuesday",
    "Runs the test suite with pytest -x before each commit",
]


def _uids(config: StoreConfig) -> tuple[str, dict[str, str]]:
    e = Engram.open(config)
    try:
        agent = Agent.get(Agent.slug == "claude")
        facts = Fact.select(Fact.content, Fact.uid).where(Fact.agent == agent.id)
        return agent.uid, {c: u for c, u in facts.tuples()}
    finally:
        e.close()


def test_migrate_to_the_team_store_and_back_keeps_every_uid(
    team_store, tmp_path, monkeypatch, capsys
):
    local, back, here = tmp_path / "local", tmp_path / "back", tmp_path / "team-client"
    e = Engram.open(StoreConfig(data_dir=local, semantic=False))
    e.agent("claude", create=True, kind="claude-code").remember_many([NewFact(t) for t in TEXTS])
    e.close()
    agent_uid, before = _uids(StoreConfig(data_dir=local, semantic=False))
    assert sorted(before) == sorted(TEXTS) and all(len(u) == 32 for u in before.values())

    monkeypatch.setenv("ENGRAM_DB_URL", team_store.db_url)
    monkeypatch.setenv("ENGRAM_CHROMA_URL", team_store.chroma_url)
    assert main(["--data-dir", str(here), "migrate", "--from", str(local)]) == 0
    team = StoreConfig(data_dir=here, db_url=team_store.db_url, semantic=False)
    assert _uids(team) == (agent_uid, before)

    assert main(["--data-dir", str(here), "migrate", "--to", str(back), "--agent", "claude"]) == 0
    capsys.readouterr()
    monkeypatch.delenv("ENGRAM_DB_URL")
    monkeypatch.delenv("ENGRAM_CHROMA_URL")
    assert _uids(StoreConfig(data_dir=back, semantic=False)) == (agent_uid, before)


def test_a_team_store_from_before_v10_gets_uids(pg_server):
    name = f"ident_v9_{next(_serial)}"
    con = pg_server.admin()
    con.autocommit = True
    with con.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name}")
    try:
        url = pg_server.url(name)
        db = connect_database(url)
        a = Agent.create(slug="notes", name="notes")
        for t in TEXTS:
            Fact.create(agent=a, content=t, content_hash=t[:20])
        for table in ("fact", "agent"):  # back to what an Engram before v10 left
            db.execute_sql(f"DROP TRIGGER {table}_uid_fill ON {table}")
            db.execute_sql(f"ALTER TABLE {table} DROP COLUMN uid")
        db.execute_sql("DROP TABLE store_identity")
        db.execute_sql("DELETE FROM schema_version WHERE version = 10")
        db.close()

        db = connect_database(url)
        # a raw insert naming the column without a value (the bulk path) still gets one
        Fact.insert(agent=a.id, content="Raw", content_hash="raw", uid=None).execute()
        uids = [u for (u,) in db.execute_sql("SELECT uid FROM fact").fetchall()]
        agent = db.execute_sql("SELECT uid FROM agent").fetchone()[0]
        inst = db.execute_sql("SELECT value FROM store_identity WHERE key = 'instance'")
        assert len(uids) == 4 and len(set(uids + [agent])) == 5
        assert all(len(u) == 32 and u[12] == "4" for u in uids + [agent])
        assert len(inst.fetchone()[0]) == 32
        db.close()
    finally:
        with con.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        con.close()

from __future__ import annotations

import pytest


@pytest.fixture
def keyword_engram_pg(team_store, tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(
        StoreConfig(
            data_dir=tmp_path / "team",
            db_url=team_store.db_url,
            vector_url=team_store.chroma_url,
            semantic=False,
        )
    )
    yield e
    e.close()


@pytest.fixture
def engram_pg(team_store, tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(
        StoreConfig(
            data_dir=tmp_path / "team", db_url=team_store.db_url, vector_url=team_store.chroma_url
        )
    )
    assert e.semantic_enabled, e.semantic_error
    yield e
    e.close()


@pytest.fixture
def members(team_store, pg_server, tmp_path, monkeypatch):
    """Two people, two PostgreSQL roles (alice, bob) in the team; their passwords in a libpq
    password file (PGPASSFILE), which is where libpq, not Engram, reads them."""
    from models.access import create_member
    from models.db import open_postgres

    admin = open_postgres(team_store.db_url)
    admin.connect()
    pw = {"alice": "alice-secret-1", "bob": "bob-secret-2"}
    for name, secret in pw.items():
        create_member(admin, name, secret)
    admin.close()
    passfile = tmp_path / "pgpass"
    passfile.write_text(
        "".join(f"127.0.0.1:{pg_server.port}:*:{n}:{s}\n" for n, s in pw.items()), "utf-8"
    )
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))

    def url(name: str) -> str:
        return pg_server.url(team_store.dbname, role=name)

    return url


@pytest.fixture
def own_server():
    """A PostgreSQL of this test's own, with a database "mine": stopped and started again
    mid-test (a laptop going offline), so it cannot be the session's shared server."""
    from tests.teamstore.servers import start_postgres

    pg = start_postgres()
    con = pg.admin()
    con.cursor().execute("CREATE DATABASE mine")
    con.close()
    yield pg
    pg.stop()

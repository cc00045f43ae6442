"""Session servers and a fresh team store per test (a database cloned from a migrated
template, a Chroma database of its own), dropped at the end of the test."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from tests.teamstore.servers import start_chroma, start_or_fail, start_postgres

TEMPLATE = "engram_template"
_serial = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server():
    server = start_or_fail(start_postgres)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chroma_server():
    server = start_or_fail(start_chroma)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def _pg_template(pg_server):
    """One migrated database; each test's store is a copy of it (CREATE DATABASE … TEMPLATE
    takes ~100 ms, migrating takes longer)."""
    from models import connect_database

    con = pg_server.admin()
    with con.cursor() as cur:
        cur.execute(f"CREATE DATABASE {TEMPLATE}")
    db = connect_database(pg_server.url(TEMPLATE))
    db.close()
    con.close()
    return TEMPLATE


@dataclass
class TeamStore:
    db_url: str
    chroma_url: str
    dbname: str


@pytest.fixture
def team_store(pg_server, chroma_server, _pg_template):
    name = f"engram_t{next(_serial)}"
    con = pg_server.admin()
    with con.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name} TEMPLATE {_pg_template}")
    yield TeamStore(pg_server.url(name), f"{chroma_server.url}/?database={name}", name)
    with con.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    con.close()

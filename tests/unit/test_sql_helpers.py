"""The SQL both backends share, run against a real SQLite database: an id list as one
parameter, the filters as a WHERE tail, LIKE patterns escaped."""

from __future__ import annotations

import sqlite3
from datetime import date

import pytest

from services.search.sql import ids_in, sql_filters
from services.store.facts import FactFilters


@pytest.fixture
def con():
    c = sqlite3.connect(":memory:")
    c.execute(
        "CREATE TABLE fact (id INTEGER PRIMARY KEY, content TEXT, status TEXT, category TEXT,"
        " memory_type TEXT, pinned INTEGER, created_at TEXT)"
    )
    rows = [
        (1, "uses 100% of the CPU", "active", "env", "semantic", 0, "2026-01-05 10:00:00"),
        (2, "snake_case names", "active", "pref", "semantic", 1, "2026-02-01 09:00:00"),
        (3, "archived note", "archived", "proj:engram", "episodic", 0, "2026-03-01 08:00:00"),
        (4, "project fact", "active", "proj:other", "semantic", 0, "2026-03-02 08:00:00"),
    ]
    c.executemany("INSERT INTO fact VALUES (?,?,?,?,?,?,?)", rows)
    yield c
    c.close()


def _ids(con, f: FactFilters) -> list[int]:
    sql, params = sql_filters("SELECT f.id FROM fact f WHERE 1=1", [], f)
    return [r[0] for r in con.execute(sql + " ORDER BY f.id", params)]


class _Sqlite:  # what ids_in asks of a peewee database
    pass


def test_ids_in_is_one_parameter_whatever_the_count(con):
    clause, param = ids_in(_Sqlite(), [4, 2, 2, 999])
    got = [r[0] for r in con.execute(f"SELECT id FROM fact WHERE id {clause} ORDER BY id", [param])]
    assert got == [2, 4]
    clause, param = ids_in(_Sqlite(), range(1, 50_000))  # past SQLite's variable limit
    assert con.execute(f"SELECT count(*) FROM fact WHERE id {clause}", [param]).fetchone() == (4,)


def test_filters_by_status_category_prefix_type_and_pin(con):
    assert _ids(con, FactFilters(status=["active"])) == [1, 2, 4]
    assert _ids(con, FactFilters(category=["proj:"])) == [3, 4]
    assert _ids(con, FactFilters(category=["pref", "proj:engram"])) == [2, 3]
    assert _ids(con, FactFilters(memory_type=["episodic"])) == [3]
    assert _ids(con, FactFilters(pinned=True)) == [2]


def test_date_bounds_include_the_whole_last_day(con):
    got = _ids(con, FactFilters(since=date(2026, 2, 1), until=date(2026, 3, 1)))
    assert got == [2, 3]


def test_text_filter_treats_like_wildcards_as_text(con):
    assert _ids(con, FactFilters(text="100%")) == [1]
    assert _ids(con, FactFilters(text="e_c")) == [2]  # the underscore is literal
    assert _ids(con, FactFilters(text="%")) == [1]

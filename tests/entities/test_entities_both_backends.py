"""Entity linking runs on the write path of both stores: on a team store (PostgreSQL) the same
facts give the same entities, relations and counts, and forgetting the fact drops the name."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.backends("sqlite", "postgres")


def test_entities_link_and_go_with_their_fact(keyword_engram):
    mem = keyword_engram.agent("team", create=True)
    a = mem.remember("Maria Lopez works on Project Atlas with Postgres").fact_id
    mem.remember("Maria Lopez reviews every Atlas migration")
    names = {e.name: e for e in mem.entities.list()}
    assert "Maria Lopez" in names and names["Maria Lopez"].type == "person"
    assert names["Maria Lopez"].mention_count == 2
    page = mem.entities.page("Maria Lopez")
    assert len(page.facts) == 2
    mem.delete([a])
    assert {e.name: e for e in mem.entities.list()}["Maria Lopez"].mention_count == 1

"""The store's cross-agent fact scans and writes (forget, verify, import and entity code use
them instead of querying rows themselves), and the one audit writer, on a real store."""

from __future__ import annotations

import pytest

from models import AuditEvent, Fact
from services.store import fact_rows
from services.store.audit import record_audit
from tests.core.two_agents import ALPHA, BETA, two_agents

# the same reads and writes on the local store and on a team store (PostgreSQL)
pytestmark = pytest.mark.backends("sqlite", "postgres")


def test_texts_by_agent_and_by_id_across_agents(keyword_engram):
    a, b, fa, fb = two_agents(keyword_engram)

    assert dict(fact_rows.fact_texts(a.agent_id)) == {fa: ALPHA}
    assert set(dict(fact_rows.fact_texts())) == {fa, fb}
    # more ids than one IN (...) takes, most of them absent: only the real rows come back
    wanted = [*range(fb + 1, fb + 1200), fb, fa]
    assert dict(fact_rows.texts_of(wanted)) == {
        fa: ALPHA,
        fb: BETA,
    }
    assert fact_rows.owners([fa, fb, fb + 5]) == {a.agent_id, b.agent_id}
    assert fact_rows.fact_ids(b.agent_id) == [fb]
    assert fact_rows.any_exist([fb + 7, fa]) and not fact_rows.any_exist([fb + 7])


def test_delete_rows_unlinks_successors_and_spares_other_agents(keyword_engram):
    a = keyword_engram.agent("alpha", create=True)
    b = keyword_engram.agent("beta", create=True)
    old = a.remember("The staging database is on port 5432").fact_id
    new = a.remember("The staging database moved to port 6543").fact_id
    Fact.update(superseded_by=new).where(Fact.id == old).execute()
    other = b.remember("Beta keeps its own notes").fact_id

    fact_rows.delete_rows(a.agent_id, [new, other])  # other belongs to beta: not touched

    assert Fact.get_by_id(old).superseded_by_id is None
    assert not Fact.select().where(Fact.id == new).exists()
    assert Fact.select().where(Fact.id == other).exists()


def test_rewrite_metadata_and_a_missing_fact(keyword_engram):
    a = keyword_engram.agent("alpha", create=True)
    fid = a.remember("Uses ruff for linting", metadata={"topic": "ruff setup"}).fact_id

    assert fact_rows.rewrite_metadata(fid, lambda m: {**m, "topic": "lint"})
    assert Fact.get_by_id(fid).metadata["topic"] == "lint"
    assert not fact_rows.rewrite_metadata(fid + 99, lambda m: m)


def test_one_audit_writer_records_the_mcp_client_as_origin(keyword_engram):
    a = keyword_engram.agent("alpha", create=True)
    by_user = record_audit(a.agent_id, "forget", after={"n": 1}, reason="receipt")
    by_client = record_audit(a.agent_id, "edit", 7, {"x": 1}, {"x": 2}, actor="mcp:cursor")

    u, c = AuditEvent.get_by_id(by_user), AuditEvent.get_by_id(by_client)
    assert (u.action, u.fact_id, u.actor, u.after, u.reason) == (
        "forget",
        None,
        "user",
        {"n": 1},
        "receipt",
    )
    assert (c.fact_id, c.before, c.after, c.actor, c.origin) == (
        7,
        {"x": 1},
        {"x": 2},
        "mcp:cursor",
        "mcp:cursor",
    )


def test_listing_reads_compile_and_context_use(keyword_engram):
    a = keyword_engram.agent("alpha", create=True)
    ids = [
        a.remember(t, category=c, subject=s).fact_id
        for t, c, s in [
            ("Maria leads the billing project", "proj:billing", "Maria"),
            ("Maria prefers short reviews", "pref", "Maria"),
            ("The billing service runs on Fly.io", "proj:billing", "billing"),
            ("Deploys happen on Tuesdays", "env", None),
        ]
    ]
    a.pin(ids[3])
    a.edit(ids[1], status="archived")

    assert fact_rows.pinned_ids(a.agent_id) == [ids[3]]
    assert set(fact_rows.active_categories(a.agent_id)) == {"proj:billing", "env"}
    assert fact_rows.frequent_values(a.agent_id, "category", 5, ("proj:", "rel:")) == [
        "proj:billing"
    ]
    assert fact_rows.frequent_values(a.agent_id, "subject", 1) == ["billing"] or (
        fact_rows.frequent_values(a.agent_id, "subject", 1) == ["Maria"]
    )
    assert fact_rows.not_forgotten(a.agent_id, [ids[1], ids[2], 10**6]) == {ids[1], ids[2]}
    assert fact_rows.existing([ids[0], 10**6]) == {ids[0]}
    brief = fact_rows.brief_rows(a.agent_id, ids=[ids[2], ids[2], ids[0]])
    assert sorted((r.id, r.status) for r in brief) == [
        (ids[0], a.get(ids[0]).status),
        (ids[2], "active"),
    ]
    assert {r.id for r in fact_rows.brief_rows(a.agent_id)} == set(ids)

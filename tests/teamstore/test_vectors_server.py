"""Vectors on a Chroma server: the same collection layout as the local store, and
`verify --repair` finds and fixes drift against the server."""

from __future__ import annotations

from services.ingest.pipeline import NewFact


def test_verify_repair_against_the_chroma_server(engram_pg):
    mem = engram_pg.agent("team", create=True)
    ids = [
        r.fact_id
        for r in mem.remember_many(
            [
                NewFact("The on-call rota changes every Monday at nine"),
                NewFact("Grafana dashboards live in the observability folder"),
                NewFact("Terraform state is kept in the eu-west-1 bucket"),
            ]
        )
    ]
    idx = engram_pg.index
    assert idx.client.__class__.__name__ != "PersistentClient" and idx.path is None
    assert idx.count(mem.agent_id) == 3
    assert engram_pg.verify().ok
    # drift: a vector lost, an orphan left behind, a stale document
    idx.delete(mem.agent_id, [ids[0]])
    idx.upsert(mem.agent_id, [999999], ["a vector whose fact is gone"])
    idx.upsert(mem.agent_id, [ids[1]], ["an old wording of the fact"])
    rep = engram_pg.verify()
    (chk,) = [c for c in rep.agents if c.slug == "team"]
    assert not rep.ok
    assert (chk.missing_vectors, chk.orphan_vectors, chk.stale_vectors) == (
        [ids[0]],
        [999999],
        [ids[1]],
    )
    engram_pg.verify(repair=True)
    assert engram_pg.verify().ok
    assert idx.all_ids(mem.agent_id) == set(ids)
    top = mem.search("who is on call this week", mode="semantic", k=1, touch=False)
    assert top[0].fact.id == ids[0]


def test_the_chroma_server_holds_ids_and_embeddings_but_no_text(engram_pg):
    mem = engram_pg.agent("team", create=True)
    fid = mem.remember("The payroll export runs on the last Friday of the month").fact_id
    got = engram_pg.index.collection(mem.agent_id).get(
        ids=[str(fid)], include=["documents", "embeddings", "metadatas"]
    )
    assert got["ids"] == [str(fid)] and len(got["embeddings"][0]) == 384
    assert got["documents"] == [None]
    assert "payroll" not in str(got["metadatas"])
    # a stale vector is still found, by the text's hash
    assert engram_pg.index.stale_ids(mem.agent_id, {fid: "another text"}) == [fid]


def test_verify_after_forget_finds_an_entity_name_left_behind(keyword_engram_pg):
    from models import Entity
    from services.forget.service import ForgetService

    mem = keyword_engram_pg.agent("team", create=True)
    mem.remember("The budget review is on Monday")
    Entity.create(agent=mem.agent_id, name="Zephyrine Okafor", key="zephyrine okafor")
    rep = ForgetService(keyword_engram_pg).verify(["Zephyrine Okafor"], agent="team")
    assert not rep.ok
    assert any("entity" in str(place) for place in rep.remaining), rep.remaining

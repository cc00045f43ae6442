"""Whole-agent archive (JSON lines): export → import into a fresh store → export gives the
same lines; importing next to the original renumbers ids and rewrites every reference.
Real stores, real Chroma, real model (vectors travel in the archive)."""

from __future__ import annotations

import json
from datetime import date

import numpy as np
import pytest

from models import CompiledLayer, Session
from services.config import StoreConfig
from services.engram import Engram
from services.errors import InvalidInput
from services.ingest.pipeline import NewFact
from services.interop.archive import export_archive, import_archive


def lines(path):
    return [json.loads(l) for l in path.read_text().splitlines()]


def build_agent(eng):
    m = eng.agent("claude", create=True, kind="claude-code")
    eng.update_agent("claude", settings={"budget": 1200})
    m.remember_many(
        [
            NewFact(content="User lives in Berlin", category="fact"),
            NewFact(content="Prefers pnpm over npm", category="pref", pinned=True, tags=["js"]),
            NewFact(content="Temporary: debugging the login test", category="tmp"),
        ]
    )
    m.remember("User moved to Lisbon", category="fact")  # supersedes Berlin
    tmp = [f for f in m.list() if f.category == "tmp"][0]
    m.edit(tmp.id, content="Temporary: debugging the flaky login test", importance=0.3)
    gone = m.remember("A fact that gets deleted", category="fact").fact_id
    m.delete(gone)
    m.search("package manager")  # access counts travel too
    s = Session.create(
        agent=m.agent_id, external_id="sess-1", turn_count=4, log="user: hi\nassistant: hello"
    )
    m.add_episode(date(2026, 11, 20), "Set up CI", time="2:30 PM", tags=["ci"], session_id=s.id)
    pnpm = [f for f in m.list() if "pnpm" in f.content][0]
    CompiledLayer.create(
        agent=m.agent_id,
        layer="memory",
        markdown="- Prefers pnpm\n",
        token_count=4,
        budget=1000,
        provenance=[[1, [pnpm.id]]],
    )
    return m


def test_round_trip_into_a_fresh_store_is_exact(tmp_path):
    a = Engram.open(StoreConfig(data_dir=tmp_path / "a"))
    m = build_agent(a)
    first = tmp_path / "claude.jsonl"
    counts = export_archive(m, first, vectors=True)
    assert counts["fact"] == 4 and counts["vector"] == 4 and counts["audit"] >= 8
    vec_a = a.index.vectors(m.agent_id)
    a.close()

    b = Engram.open(StoreConfig(data_dir=tmp_path / "b"))
    try:
        rep = import_archive(b, first)
        assert not rep.ids_remapped and rep.vectors == 4
        m2 = b.agent("claude")
        second = tmp_path / "again.jsonl"
        export_archive(m2, second, vectors=True)
        one, two = lines(first), lines(second)
        assert one[0]["type"] == "engram-archive"
        rows = lambda ls: [l for l in ls[1:] if l["type"] != "vector"]  # noqa: E731
        assert rows(one) == rows(two)  # everything but the header's exported_at
        # Chroma re-normalises cosine vectors on insert: equal to float32 rounding
        va = {l["fact"]: np.array(l["vector"]) for l in one if l["type"] == "vector"}
        vb = {l["fact"]: np.array(l["vector"]) for l in two if l["type"] == "vector"}
        assert set(va) == set(vb) and len(va) == 4
        assert all(np.abs(va[i] - vb[i]).max() < 1e-6 for i in va)
        # what a user sees works in the restored store
        lisbon = [f for f in m2.list() if f.content == "User moved to Lisbon"][0]
        berlin = [f for f in m2.list() if f.content == "User lives in Berlin"][0]
        assert berlin.status == "superseded" and berlin.superseded_by == lisbon.id
        assert [h["action"] for h in m2.facts.history(lisbon.id)][:2] == ["create", "create"]
        hits = m2.search("which javascript package manager", mode="semantic", touch=False)
        assert hits[0].fact.content == "Prefers pnpm over npm"
        vec_b = b.index.vectors(m2.agent_id)
        assert set(vec_b) == set(vec_a)
        for i in vec_a:
            assert float(vec_a[i] @ vec_b[i]) > 0.99999
    finally:
        b.close()


def test_import_beside_the_original_renumbers_and_keeps_links(tmp_path):
    eng = Engram.open(StoreConfig(data_dir=tmp_path / "s"))
    try:
        m = build_agent(eng)
        out = tmp_path / "claude.jsonl"
        export_archive(m, out)
        rep = import_archive(eng, out, slug="claude-copy")
        assert rep.ids_remapped
        with pytest.raises(InvalidInput, match="exists already"):
            import_archive(eng, out)
        copy = eng.agent("claude-copy")
        assert copy.info.workspace is None
        orig_facts = {f.content: f for f in m.list()}
        copy_facts = {f.content: f for f in copy.list()}
        assert set(orig_facts) == set(copy_facts)
        assert not set(f.id for f in orig_facts.values()) & set(f.id for f in copy_facts.values())
        ber, lis = copy_facts["User lives in Berlin"], copy_facts["User moved to Lisbon"]
        assert ber.superseded_by == lis.id
        for k in (
            "category",
            "status",
            "pinned",
            "importance",
            "tags",
            "created_at",
            "access_count",
            "event_date",
        ):
            assert [getattr(orig_facts[c], k) for c in sorted(orig_facts)] == [
                getattr(copy_facts[c], k) for c in sorted(copy_facts)
            ], k
        # history follows the new ids, snapshots included
        hist = copy.facts.history(lis.id)
        assert any(h["after"] and h["after"]["id"] == lis.id for h in hist)
        layer = CompiledLayer.get(CompiledLayer.agent == copy.agent_id)
        assert layer.provenance == [[1, [copy_facts["Prefers pnpm over npm"].id]]]
        [ep] = copy.episodes.list()
        sess = Session.get(Session.agent == copy.agent_id)
        assert ep.session_id == sess.id and sess.log == "user: hi\nassistant: hello"
        # the copy is searchable (embedded on import, no vectors in this archive)
        assert copy.search("package manager", mode="semantic", touch=False)
        # and exports to the same lines once ids are taken out
        again = tmp_path / "copy.jsonl"
        export_archive(copy, again)

        def strip(ls):
            out = []
            for l in ls[2:]:
                l = {
                    k: v
                    for k, v in l.items()
                    if k
                    not in (
                        "id",
                        "superseded_by_id",
                        "fact_id",
                        "session_id",
                        "before",
                        "after",
                        "provenance",
                    )
                }
                out.append(l)
            return out

        assert strip(lines(out)) == strip(lines(again))
    finally:
        eng.close()


def test_forget_rules_apply_to_an_imported_archive(tmp_path, keyword_engram):
    from services.ingest.forget_rules import add_rule

    eng = keyword_engram
    m = eng.agent("a", create=True)
    m.remember("My bank PIN hint is the cat's birthday")
    m.remember("Prefers dark mode")
    out = tmp_path / "a.jsonl"
    export_archive(m, out)
    eng.remove_agent("a")
    add_rule(eng.forget_key(), None, "pin", ["bank PIN hint"])
    rep = import_archive(eng, out)
    assert rep.blocked == 1
    assert [f.content for f in eng.agent("a").list()] == ["Prefers dark mode"]


def test_not_an_archive_is_refused_clearly(tmp_path, keyword_engram):
    p = tmp_path / "x.jsonl"
    p.write_text('{"role": "user", "content": "hi"}\n')
    with pytest.raises(InvalidInput, match="not an Engram agent archive"):
        import_archive(keyword_engram, p)
    assert keyword_engram.agents() == []

"""Each forget scope on a real store (SQLite + FTS5 + Chroma with its HNSW files on disk + the
real model), checked with the raw-bytes verifier: the purge is done only when nothing remains
in any file, and nothing outside the scope was touched."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from forget_data import (
    ALLERGY,
    EPISODE,
    FILLERS,
    MEMORY_MD,
    OLD_EPISODE,
    OLD_FACT,
    ONE_FACT,
    SECRET,
    SESSION_LOG,
    SHARED,
    UNRELATED_PEANUT,
    hnsw_hits,
    raw_hits,
)

from models import AuditEvent, CompiledLayer, Episode, Fact, Session
from services.forget.service import ForgetScope, ForgetService

pytestmark = pytest.mark.slow  # processes, kills and full purges: left out of make test-fast


def _fact_id(mem, text):
    return next(f.id for f in mem.list() if f.content == text)


def test_forget_one_fact_leaves_no_bytes_and_nothing_else_changes(store):
    a = store.agent("alice")
    fid = _fact_id(a, ONE_FACT)
    before = a.facts.count()
    # precondition: the text and its vector are on disk (HNSW flushed) before the forget
    assert raw_hits(store, [ONE_FACT]) and hnsw_hits(store, [ONE_FACT])
    memory_md = store.root / "ws_alice" / "memories" / "MEMORY.md"
    mem_before = memory_md.read_text("utf-8")
    svc = ForgetService(store)
    pv = svc.preview(ForgetScope(agent="alice", fact_ids=(fid,)))
    c = pv.counts()
    assert c["facts"] == 1 and c["vectors"] == 1 and c["history_events"] >= 1
    assert c["workspace_entries"] == mem_before.count(ONE_FACT)  # MEMORY.md entries
    # the preview changed nothing
    assert a.facts.count() == before and raw_hits(store, [ONE_FACT])

    receipt = svc.execute(ForgetScope(agent="alice", fact_ids=(fid,)))
    assert receipt["counts"]["remaining_after_verify"] == 0
    assert svc.verify([ONE_FACT], agent="alice").ok
    assert raw_hits(store, [ONE_FACT], [store.root / "ws_alice"]) == []
    assert hnsw_hits(store, [ONE_FACT]) == []
    assert a.facts.count() == before - 1
    # the rest of the agent still works: keyword and semantic search, every other vector
    assert a.search("Quetzalcoatlus", mode="keyword")[0].fact.content == SECRET
    assert a.search("name of my pet iguana", mode="semantic", k=3)[0].fact.content == SECRET
    assert store.index.count(a.agent_id) == before - 1
    assert store.verify().ok
    # the workspace file lost exactly that entry; every other byte is as it was
    kept = [e for e in mem_before.split("\n§\n") if ONE_FACT not in e]
    assert memory_md.read_text("utf-8") == "\n§\n".join(kept)
    assert MEMORY_MD.replace(f"[2026-04-14][fact] {ONE_FACT}\n§\n", "") in memory_md.read_text(
        "utf-8"
    )


def test_forget_matching_lists_keyword_and_semantic_candidates_then_purges_every_place(store):
    a = store.agent("alice")
    svc = ForgetService(store)
    pv = svc.preview(ForgetScope(agent="alice", matching="Borogove"))
    ap = pv.agents[0]
    assert [f["content"] for f in ap.facts] == [SECRET]
    assert ap.facts[0]["why"] == "keyword"
    assert [e["summary"] for e in ap.episodes] == [EPISODE]
    assert len(ap.sessions) == 1
    assert {Path(e.path).name for e in ap.workspace} == {"MEMORY.md", "USER.md", "2026-04-13.md"}
    has_layers = CompiledLayer.select().where(CompiledLayer.agent == a.agent_id).exists()
    assert has_layers
    assert ap.layers and ap.layer_files

    receipt = svc.execute(ForgetScope(agent="alice", matching="Borogove", label="my pet"))
    assert receipt["counts"]["facts"] == 1 and receipt["counts"]["episodes"] == 1
    texts = ["Borogove", SECRET, EPISODE]
    assert svc.verify(texts, agent="alice").ok
    assert raw_hits(store, texts, [store.root / "ws_alice"]) == []
    assert hnsw_hits(store, [SECRET]) == []
    # no audit event keeps a snapshot of it
    assert not any(
        "Borogove" in json.dumps([e.before, e.after, e.reason]) for e in AuditEvent.select()
    )
    # the session keeps its other lines
    log = Session.get(Session.external_id == "s-1").log
    assert log == "".join(
        ln for ln in SESSION_LOG.splitlines(keepends=True) if "Borogove" not in ln
    )
    # workspace: only the entries and the episode block that mention it went
    ws = store.root / "ws_alice"
    assert (ws / "memories" / "USER.md").read_text("utf-8") == "# USER.md\n\n§\n- **Name:** Sam\n"
    ep = (ws / "episodes" / "2026-04-13.md").read_text("utf-8")
    assert "Set up CI pipeline" in ep and "Borogove" not in ep
    assert Episode.select().where(Episode.agent == a.agent_id).count() == 2
    if has_layers:
        # recompiled without it, and the new layers still hold the other facts
        layers = list(CompiledLayer.select().where(CompiledLayer.agent == a.agent_id))
        assert layers and not any("Borogove" in L.markdown for L in layers)


def test_forget_matching_semantic_candidates_are_shown_and_can_be_excluded(store):
    a = store.agent("alice")
    svc = ForgetService(store)
    pv = svc.preview(ForgetScope(agent="alice", matching="I am allergic to peanuts"))
    found = {f["content"]: f for f in pv.agents[0].facts}
    assert set(found) == set(ALLERGY)  # paraphrases, no shared phrase
    assert all(f["why"] == "semantic" and f["score"] >= 0.8 for f in found.values())
    assert UNRELATED_PEANUT not in found  # related but not the same thing
    keep = found[ALLERGY[1]]["id"]
    svc.execute(
        ForgetScope(agent="alice", matching="I am allergic to peanuts", exclude_ids=(keep,))
    )
    left = {f.content for f in a.list()}
    assert ALLERGY[0] not in left and ALLERGY[1] in left and UNRELATED_PEANUT in left
    assert svc.verify([ALLERGY[0]], agent="alice").ok
    assert raw_hits(store, [ALLERGY[0]]) == [] and hnsw_hits(store, [ALLERGY[0]]) == []


def test_forget_before_a_date(store):
    a = store.agent("alice")
    svc = ForgetService(store)
    n = a.facts.count()
    pv = svc.preview(ForgetScope(agent="alice", before=date(2026, 1, 1)))
    assert [f["content"] for f in pv.agents[0].facts] == [OLD_FACT]
    assert [e["summary"] for e in pv.agents[0].episodes] == [OLD_EPISODE]
    svc.execute(ForgetScope(agent="alice", before=date(2026, 1, 1)))
    assert a.facts.count() == n - 1
    assert svc.verify([OLD_FACT, OLD_EPISODE], agent="alice").ok
    assert raw_hits(store, [OLD_FACT, "Zyxwvut"]) == []
    assert hnsw_hits(store, [OLD_FACT]) == []
    assert Episode.select().where(Episode.agent == a.agent_id).count() == 2


def test_forget_one_agent_never_touches_the_other(store):
    a, b = store.agent("alice"), store.agent("bob")
    b_before = [(f.id, f.content) for f in b.list(order="id")]
    b_vectors = store.index.vectors(b.agent_id)
    n = a.facts.count()
    assert n >= FILLERS + 7
    svc = ForgetService(store)
    receipt = svc.execute(ForgetScope(agent="alice", all=True))
    assert receipt["counts"]["facts"] == n
    assert a.facts.count() == 0
    assert Episode.select().where(Episode.agent == a.agent_id).count() == 0
    # the processed-once claim stays (so a hook cannot re-ingest the transcript); the log goes
    assert [s.log for s in Session.select().where(Session.agent == a.agent_id)] == [None]
    assert not (Path(store.config.data_dir) / "agents" / "alice").exists()
    # alice's own text is nowhere (bob never had it); the shared text is only bob's now
    assert raw_hits(store, [SECRET, ONE_FACT, EPISODE], [store.root / "ws_alice"]) == []
    assert hnsw_hits(store, [SECRET, ONE_FACT]) == []
    rep = svc.verify([SHARED], agent="alice")
    assert rep.ok and rep.shared  # bytes in the shared db are bob's, and said so
    # bob: same rows, same vectors, search finds the shared text
    assert [(f.id, f.content) for f in b.list(order="id")] == b_before
    after = store.index.vectors(b.agent_id)
    assert set(after) == set(b_vectors)
    assert all((after[i] == b_vectors[i]).all() for i in after)
    assert b.search("Kraken Protocol", mode="semantic", k=1)[0].fact.content == SHARED
    assert b.episodes.search("Kraken")


def test_two_agents_sharing_text_forget_in_one_then_the_other(store):
    a, b = store.agent("alice"), store.agent("bob")
    svc = ForgetService(store)
    svc.execute(ForgetScope(agent="alice", matching="Kraken Protocol"))
    assert SHARED not in {f.content for f in a.list()}
    assert SHARED in {f.content for f in b.list()}
    assert b.search("Kraken Protocol", mode="hybrid", k=1)[0].fact.content == SHARED
    assert svc.verify([SHARED], agent="alice").ok
    assert not svc.verify([SHARED]).ok  # bob still has it
    assert b.episodes.search("Kraken")  # bob's episode untouched
    svc.execute(ForgetScope(agent="bob", matching="Kraken Protocol"))
    assert svc.verify([SHARED, "Kraken Protocol"]).ok
    assert raw_hits(store, ["Kraken Protocol"]) == []
    assert hnsw_hits(store, [SHARED]) == []


def test_forget_everything_backs_up_first_and_purges_the_backup(store):
    svc = ForgetService(store)
    backups = Path(store.config.data_dir) / "backups"
    seen = []

    def progress(done, total, msg):
        if msg == "files":  # the backup exists while the purge runs
            seen.extend(p.name for p in backups.iterdir())

    receipt = svc.execute(ForgetScope(all_agents=True), progress=progress)
    assert seen and seen[0].startswith("engram.before-forget-everything.")
    assert not any(backups.iterdir())
    assert receipt["agent"] is None and receipt["scope"]["kind"] == "everything"
    texts = [SECRET, ONE_FACT, SHARED, OLD_FACT, EPISODE, "Bob prefers tabs", "Routine note 17"]
    assert svc.verify(texts).ok
    assert raw_hits(store, texts, [store.root / "ws_alice"]) == []
    assert hnsw_hits(store, [SECRET, SHARED]) == []
    assert Fact.select().count() == 0
    assert {a.slug for a in store.agents()} == {"alice", "bob"}  # the agents stay, empty
    assert store.verify().ok


def test_exports_and_archives_engram_wrote_are_purged(store, tmp_path):
    from services.interop.archive import export_archive
    from services.interop.export import export_agent

    a = store.agent("alice")
    out = tmp_path / "exports"
    out.mkdir()  # an export never creates a missing directory
    export_agent(a, out / "alice.json", "json")
    export_agent(a, out / "alice.md", "markdown")
    export_archive(a, out / "alice.jsonl", vectors=True)
    sizes = {p.name: p.stat().st_size for p in out.iterdir()}
    svc = ForgetService(store)
    pv = svc.preview(ForgetScope(agent="alice", matching="Borogove"))
    assert {Path(e.path).name for e in pv.agents[0].exports} == set(sizes)
    svc.execute(ForgetScope(agent="alice", matching="Borogove"))
    assert raw_hits(store, ["Borogove", SECRET], [out]) == []
    # the rest of each export is still there and still readable
    data = json.loads((out / "alice.json").read_text("utf-8"))
    assert len(data["facts"]) == a.facts.count()
    assert "Prefers pnpm" in (out / "alice.md").read_text("utf-8") or "Routine note" in (
        out / "alice.md"
    ).read_text("utf-8")
    lines = [json.loads(ln) for ln in (out / "alice.jsonl").read_text("utf-8").splitlines()]
    vec_ids = {ln["fact"] for ln in lines if ln.get("type") == "vector"}
    assert vec_ids == set(a.facts.ids())  # the forgotten fact's archived vector went too


def test_a_migration_backup_holding_it_is_destroyed(store, monkeypatch):
    """models/schema.py copies the store before a migration; that copy holds the text."""
    from models import schema

    db = Path(store.config.data_dir) / "engram.db"
    store.close()
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS + [(999, lambda db: None)])
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(StoreConfig(data_dir=store.config.data_dir))
    baks = list(db.parent.glob("engram.v*.bak"))
    assert len(baks) == 1 and raw_hits(e, [SECRET])
    svc = ForgetService(e)
    pv = svc.preview(ForgetScope(agent="alice", matching="Borogove"))
    assert pv.backups == [str(baks[0])]
    svc.execute(ForgetScope(agent="alice", matching="Borogove"))
    assert not baks[0].exists()
    assert raw_hits(e, [SECRET, "Borogove"]) == []
    e.close()


def test_forgotten_text_in_another_agents_vector_segment_is_found_and_cleared(template, tmp_path):
    """Chroma writes an empty segment's slots from memory it never initialised; in a process
    that had handled alice's text, bob's segment file could carry it (seen in this suite
    before the allocator was hardened, see services/vectors/memory_hygiene.py). Forgetting alice must
    find text in bob's segment too and rewrite bob's index without changing bob's vectors."""
    from forget_data import open_copy

    from services.forget.isolated import segment_owners

    root = tmp_path / "t"
    e = open_copy(template, root)
    try:
        b = e.agent("bob")
        before = e.index.vectors(b.agent_id)  # Chroma has loaded (and re-written) bob's segment
        chroma = root / "store" / "chroma"
        seg = next(
            chroma / s / "data_level0.bin"
            for s, aid in segment_owners(str(chroma)).items()
            if aid == b.agent_id and (chroma / s / "data_level0.bin").is_file()
        )
        data = bytearray(seg.read_bytes())
        assert len(data) > 2000
        data[1000 : 1000 + len(SECRET)] = SECRET.encode()  # where stale heap bytes would lie
        seg.write_bytes(bytes(data))
        receipt = ForgetService(e).execute(ForgetScope(agent="alice", all=True))
        assert receipt["counts"]["remaining_after_verify"] == 0, receipt["notes"]
        assert any("bob: vector index rewritten" in n for n in receipt["notes"])
        assert raw_hits(e, [SECRET]) == []
        after = e.index.vectors(b.agent_id)
        assert set(after) == set(before) and all((after[i] == before[i]).all() for i in after)
        assert b.search("Kraken Protocol", mode="semantic", k=1)[0].fact.content == SHARED
    finally:
        e.close()


def test_a_forget_in_one_copy_of_the_template_leaves_the_template_alone(store, template):
    """The fixture's own promise: forgetting all of alice in a copy erases her workspace
    entries there, never in the template (CI once ran a test on a copy whose workspace file
    an earlier test's forget had emptied through the template's path)."""
    src = template / "ws_alice" / "memories" / "MEMORY.md"
    before = src.read_bytes()
    assert ONE_FACT.encode() in before
    receipt = ForgetService(store).execute(ForgetScope(agent="alice", all=True))
    assert receipt["counts"]["remaining_after_verify"] == 0, receipt["notes"]
    copy = store.root / "ws_alice" / "memories" / "MEMORY.md"
    assert ONE_FACT.encode() not in copy.read_bytes()
    assert src.read_bytes() == before

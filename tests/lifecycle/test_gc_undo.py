"""Issue 15: a GC run is one undoable step, archived facts can be restored (app and CLI)."""

from __future__ import annotations

from datetime import timedelta

from services.lifecycle.gc import archived_facts, redo_gc, restore_archived, run_gc, undo_gc

from .test_gc import DAY0, add


def test_undo_gc_brings_archived_and_decayed_facts_back_and_redo_repeats_it(agent, lc_config):
    old = add(agent, "Temporary note about the build server", "tmp", 0.5)
    hot = add(agent, "Prefers dark roast coffee", "pref", 0.6, tier="short")
    keep = add(agent, "Lives in Lisbon", "fact", 0.9, pinned=True)
    preview = run_gc(agent, now=DAY0 + timedelta(days=20), config=lc_config, dry_run=True)
    assert [a.fact_id for a in preview.actions if a.kind == "expire"] == [old]
    assert agent.get(old).status == "active" and not preview.changes  # a dry run writes nothing

    r = run_gc(agent, now=DAY0 + timedelta(days=20), config=lc_config)
    assert agent.get(old).status == "archived" and agent.get(hot).importance < 0.6
    assert [f[0] for f in archived_facts(agent)] == [old]
    assert "live" in archived_facts(agent)[0][2]  # the reason shown in the Archived view

    undo_gc(agent, r)
    assert agent.get(old).status == "active" and agent.get(hot).importance == 0.6
    assert agent.get(keep).status == "active"
    assert agent.facts.history(old)[-1]["action"] == "gc.undo"
    redo_gc(agent, r)
    assert agent.get(old).status == "archived"


def test_restore_archived_makes_the_fact_active_and_drops_the_reason(agent, lc_config):
    old = add(agent, "Temporary note about the build server", "tmp", 0.5)
    run_gc(agent, now=DAY0 + timedelta(days=20), config=lc_config)
    assert restore_archived(agent, [old]) == [old]
    f = agent.get(old)
    assert f.status == "active" and "archived_reason" not in f.metadata
    assert restore_archived(agent, [old]) == []  # not archived any more: left alone


def test_cli_restore(cli, tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram

    assert cli("agent", "add", "claude")[0] == 0
    assert cli("remember", "--agent", "claude", "Old build note")[0] == 0
    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store", semantic=False)) as e:
        fid = e.agent("claude").list()[0].id
        e.agent("claude").edit(fid, status="archived")
    rc, out, _ = cli("restore", str(fid))
    assert rc == 0 and out.startswith("restored 1 fact(s)")
    rc, out, _ = cli("restore", str(fid))
    assert rc == 1 and "not archived" in out
    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store", semantic=False)) as e:
        assert e.agent("claude").get(fid).status == "active"

"""Forget rules block the same content on a later import or remember, without keeping the
text; receipts say what went where without content. Real store, model and Memory Setup
importer."""

from __future__ import annotations

import json

import pytest

from models import ForgetReceipt, ForgetRule
from services.forget.service import ForgetScope, ForgetService

# out of make test-fast (forget, re-import and verify per test): make test runs it
pytestmark = pytest.mark.slow

PET = "My secret pet is named Quetzalcoatlus Borogove"


def _workspace(tmp_path, entries):
    mem = tmp_path / "ws" / "memories"
    mem.mkdir(parents=True)
    body = "".join(f"§\n[2026-04-1{i}][fact] {e}\n" for i, e in enumerate(entries))
    (mem / "MEMORY.md").write_text("# MEMORY.md\n\n> Durable facts.\n\n" + body, encoding="utf-8")
    return tmp_path / "ws"


def test_rule_blocks_reimport_and_keeps_no_text(engram, agent, tmp_path):
    ws = _workspace(tmp_path, [PET, "Prefers pnpm over npm", "Works on the Atlas project"])
    rep = agent.import_path(ws)
    assert rep.added == 3 and rep.blocked == 0
    svc = ForgetService(engram)
    receipt = svc.execute(ForgetScope(agent="claude", matching="Borogove", label="the pet"))
    assert receipt["counts"]["rules"] == 1

    # the same file again: the forgotten entry is blocked, the others are duplicates
    rep = agent.import_path(ws)
    assert rep.blocked == 1 and rep.added == 0
    assert not [f for f in agent.list() if "Borogove" in f.content]
    # other wording that contains the forgotten term is blocked too; unrelated text is not
    assert agent.remember("Reminder: feed borogove on Sunday").status == "blocked"
    assert agent.remember("Feed the cat on Sunday").status == "added"

    # the rule holds keyed hashes and the user's label, never the words
    rows = [(r.label, r.hashes) for r in ForgetRule.select()]
    dump = json.dumps(rows).lower()
    assert "borogove" not in dump and "quetzalcoatlus" not in dump and "the pet" in dump
    assert svc.verify(["Borogove", PET]).ok

    rules = svc.rules()
    assert [(r.label, r.agent) for r in rules] == [("the pet", "claude")]
    svc.remove_rule(rules[0].id)
    assert svc.rules() == []
    rep = agent.import_path(ws)
    assert rep.added == 1 and rep.blocked == 0


def test_rule_is_per_agent_unless_forgotten_for_all(engram):
    a = engram.agent("a", create=True)
    b = engram.agent("b", create=True)
    for m in (a, b):
        m.remember("The vault code word is Xylophonic Marmalade")
    svc = ForgetService(engram)
    svc.execute(ForgetScope(agent="a", matching="Xylophonic Marmalade"))
    assert a.remember("vault code word Xylophonic Marmalade").status == "blocked"
    assert b.remember("again: Xylophonic Marmalade").status in (
        "added",
        "duplicate",
        "near-duplicate",
    )
    svc.execute(ForgetScope(all_agents=True, matching="Xylophonic Marmalade"))
    c = engram.agent("c", create=True)
    assert c.remember("Xylophonic Marmalade").status == "blocked"  # a rule for every agent
    assert svc.verify(["Xylophonic Marmalade"]).ok


def test_receipt_counts_places_and_holds_no_content(engram, agent):
    agent.remember(PET)
    agent.remember("Prefers pnpm over npm")
    svc = ForgetService(engram)
    svc.execute(ForgetScope(agent="claude", matching="Borogove"))
    svc.execute(ForgetScope(agent="claude", matching="pnpm", semantic=False))
    recs = svc.receipts()
    assert len(recs) == 2 and recs[0]["id"] > recs[1]["id"]  # newest first
    r = recs[1]
    assert r["agent"] == "claude" and r["scope"]["kind"] == "matching"
    assert r["counts"]["facts"] == 1 and r["counts"]["vectors"] == 1
    assert r["counts"]["history_events"] >= 1 and r["counts"]["remaining_after_verify"] == 0
    assert r["hashes"] and all(len(h) == 64 for h in r["hashes"])
    raw = json.dumps([list(x) for x in ForgetReceipt.select().tuples()], default=str).lower()
    for word in ("borogove", "quetzalcoatlus", "pnpm", "secret pet"):
        assert word not in raw


def test_preview_changes_nothing(engram, agent):
    agent.remember(PET)
    svc = ForgetService(engram)
    pv = svc.preview(ForgetScope(agent="claude", matching="Borogove"))
    assert pv.counts()["facts"] == 1
    assert agent.facts.count() == 1 and ForgetRule.select().count() == 0
    assert ForgetReceipt.select().count() == 0
    assert not svc.verify([PET]).ok


def test_verify_sees_a_queued_vector_until_the_purge(engram, agent):
    """Below Chroma's sync threshold the vector sits in chroma.sqlite3's write queue as raw
    float32 bytes; the verifier finds those bytes, and the purge removes them."""
    agent.remember(PET)
    svc = ForgetService(engram)
    before = svc.verify([PET])
    assert any(place == "vector" and "float32" in d for place, d in before.remaining)
    svc.execute(ForgetScope(agent="claude", matching="Borogove"))
    after = svc.verify([PET])
    assert after.ok, after.remaining

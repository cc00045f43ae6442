"""Forget a person: every linked fact, every mention of the name and aliases in episodes,
layers, files, history; then not one byte of them anywhere in the store or the files."""

from __future__ import annotations

from datetime import date

from services.forget.entity_scope import expand_entity
from services.forget.isolated import raw_hits
from services.forget.service import ForgetScope, ForgetService
from services.ingest.pipeline import NewFact
from services.lifecycle.compile import CompileService

SECRET_BYTES = ["Maria Lopez", "Lopez", "mlopez"]


def test_forget_by_entity_leaves_no_byte_of_the_name_or_aliases(engram, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text(
        "- Maria Lopez approves budgets over 5k\n",
        encoding="utf-8",
    )
    engram.add_agent("work", workspace=str(ws))
    mem = engram.agent("work")
    mem.remember("Maria Lopez is my manager at Acme Corp.")
    mem.remember("Maria Lopez works on Phoenix.")
    # an imported observation that does not spell the name: linked by the import
    mem.remember_many(
        [
            NewFact(
                "Prefers async updates over meetings",
                source="import",
                metadata={"entity": {"name": "Maria Lopez", "type": "person"}},
            )
        ]
    )
    mem.entities.alias("Maria Lopez", add=["@mlopez"])
    mem.remember("Ask @mlopez before changing the budget.")
    keep = mem.remember("Deploys go through GitHub Actions.").fact_id
    mem.add_episode(date(2026, 11, 20), "Met Maria Lopez about the Phoenix budget")
    mem.add_episode(date(2026, 11, 21), "Tuned the CI cache")
    CompileService(mem).compile()
    assert raw_hits([engram.config.data_dir], ["Maria Lopez"])  # it is there to begin with

    svc = ForgetService(engram)
    scope = expand_entity(engram, ForgetScope(agent="work"), "maria lopez")
    pv = svc.preview(scope)
    (ap,) = pv.agents
    assert len(ap.facts) == 4 and keep not in [f["id"] for f in ap.facts]
    assert [e["summary"] for e in ap.episodes] == ["Met Maria Lopez about the Phoenix budget"]
    assert ap.workspace and ap.layers
    receipt = svc.execute(scope, preview=pv)
    assert receipt["counts"]["remaining_after_verify"] == 0

    assert raw_hits([engram.config.data_dir, ws], SECRET_BYTES) == []
    assert svc.verify(["Maria Lopez", "@mlopez"], agent="work").ok
    assert "Maria Lopez" not in {e.name for e in mem.entities.list()}
    assert [f.id for f in mem.list()] == [keep]
    assert [e.summary for e in mem.episodes.list()] == ["Tuned the CI cache"]


def test_forget_entity_cli_previews_then_erases(cli):
    assert cli("agent", "add", "work")[0] == 0
    cli("remember", "--agent", "work", "Priya Shah reviews every release.")
    cli("remember", "--agent", "work", "Deploys go through GitHub Actions.")
    rc, out, _ = cli("forget", "--agent", "work", "--entity", "Priya Shah")
    assert rc == 0 and "Priya Shah reviews every release" in out and "--yes" in out
    rc, out, err = cli("forget", "--agent", "work", "--entity", "Priya Shah", "--yes")
    assert rc == 0, err
    rc, out, _ = cli("entities", "--agent", "work", "--json")
    assert "Priya" not in out
    rc, out, _ = cli("forget", "--agent", "work", "--verify", "Priya Shah")
    assert rc == 0 and "nothing remains" in out
    rc, _, err = cli("forget", "--agent", "work", "--entity", "Nobody")
    assert rc == 1 and "no entity called 'Nobody'" in err

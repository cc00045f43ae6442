"""An undone delete brings back the same fact, uid included: write-back links key on uids
(issue #30), so a fact deleted in the app and brought back with Undo keeps its block in the
agent's own memory file. The app's undo restores from ``ui.undo.snapshot_of`` (a FactView's
fields), as DeleteFactsCommand does."""

from __future__ import annotations

import shutil
from pathlib import Path

from services.interop.writeback import write_back
from services.store.facts import FactFilters
from ui.undo import snapshot_of

NATIVE = Path(__file__).resolve().parents[1] / "importers" / "fixtures" / "native"


def test_undo_of_a_delete_keeps_the_facts_block_in_the_agents_file(keyword_engram, tmp_path):
    mem = keyword_engram.agent("cc", create=True, kind="claude-code")
    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    mem.import_path(folder)
    topic = folder / "project_release.md"
    before = topic.read_bytes()
    fact = next(
        f for f in mem.list(FactFilters(status="active")) if f.content.startswith("The release")
    )

    snap = snapshot_of(mem.get(fact.id))  # what the app's Delete keeps for its Undo
    mem.delete([fact.id])
    mem.restore(snap)  # Undo

    rep = write_back(mem)
    assert rep.conflicts == [] and rep.pushed == 0
    assert topic.read_bytes() == before

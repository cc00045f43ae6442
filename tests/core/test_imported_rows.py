"""Facts found by the file an import took them from (re-import, discovery and forget use
these), on a real local store."""

from __future__ import annotations

from services.store import imported_rows


def _imported(mem, text, path, fmt="hermes", **meta):
    return mem.remember(
        text,
        source="import",
        metadata={"source_file": path, "source_format": fmt, **meta},
    ).fact_id


def test_sources_and_live_facts_by_file(keyword_engram, tmp_path):
    mem = keyword_engram.agent("hermes", create=True)
    a = _imported(mem, "Prefers tabs over spaces", str(tmp_path / "MEMORY.md"))
    b = _imported(mem, "Lives in Lisbon", str(tmp_path / "USER.md"))
    mem.remember("Typed by hand, not imported")
    mem.edit(b, status="archived", metadata={"source_file": str(tmp_path / "USER.md"), "gone": 1})

    want = {(str(tmp_path / "MEMORY.md"), "hermes"), (str(tmp_path / "USER.md"), "")}
    assert set(imported_rows.sources(mem.agent_id, postgres=False)) == want
    assert set(imported_rows.sources(mem.agent_id, postgres=True)) == want  # the decoding path
    assert ("hermes", str(tmp_path / "MEMORY.md")) in imported_rows.sources_by_agent()
    live = list(imported_rows.live_from_files(mem.agent_id, [str(tmp_path / "MEMORY.md")]))
    assert [(fid, meta["source_format"]) for fid, meta, _h in live] == [(a, "hermes")]
    assert [fid for fid, _h, _m in imported_rows.archived_with_flag(mem.agent_id, "gone")] == [b]
    assert {fid for fid, _m in imported_rows.metadata_of_imported(mem.agent_id)} == {a, b}

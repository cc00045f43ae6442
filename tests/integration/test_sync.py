"""Two-way sync with a Memory Setup workspace (real store, real files): entries flow both
ways, the file's layout survives byte for byte, and a conflicting edit is reported, never
silently overwritten. The store is keyword-only here: sync does not need the model."""

from __future__ import annotations

import json

import pytest

from services.interop.sync import sync_workspace

HEADER = (
    "# MEMORY.md\n\n> Durable facts and context. Loaded every session.\n"
    "> Entry format: [YYYY-MM-DD][category] content\n"
)
ENTRIES = [
    "[2026-04-12][pref] Prefers pnpm over npm",
    "Scratch note the agent wrote without a prefix\nspanning two lines",  # unknown: kept
    "[2026-04-13][proj:alpha] Alpha API runs on port 8080",
    "[2026-04-14][rule] Never push to main without a PR",
]


@pytest.fixture
def ws(tmp_path, keyword_engram):
    root = tmp_path / "workspace"
    (root / "memories").mkdir(parents=True)
    (root / "memories" / "MEMORY.md").write_text(HEADER + "\n§\n" + "\n§\n".join(ENTRIES) + "\n")
    keyword_engram.add_agent("hermes", kind="hermes", workspace=root)
    return root / "memories" / "MEMORY.md"


@pytest.fixture
def mem(keyword_engram, ws):
    return keyword_engram.agent("hermes")


def by_content(mem, text):
    [f] = [f for f in mem.list() if f.content == text]
    return f


def test_first_sync_pulls_entries_and_leaves_the_file_alone(mem, ws):
    before = ws.read_bytes()
    rep = sync_workspace(mem)
    assert rep.pulled == 3 and rep.pushed == 0 and rep.conflicts == []
    assert ws.read_bytes() == before
    f = by_content(mem, "Alpha API runs on port 8080")
    assert f.category == "proj:alpha" and f.event_date.isoformat() == "2026-04-13"
    again = sync_workspace(mem)
    assert (again.pulled, again.pushed, again.conflicts) == (0, 0, [])
    assert ws.read_bytes() == before
    state = json.loads((mem.data_dir / "sync-state.json").read_text())
    assert "pnpm" not in json.dumps(state), "the sync state holds hashes, not memory text"


def test_engram_edits_are_written_back_in_place(mem, ws):
    sync_workspace(mem)
    f = by_content(mem, "Alpha API runs on port 8080")
    mem.edit(f.id, content="Alpha API runs on port 9090")
    mem.remember("Deploys happen on Tuesdays", category="fact")
    gone = by_content(mem, "Never push to main without a PR")
    mem.delete(gone.id)

    rep = sync_workspace(mem)
    assert rep.pushed == 3 and rep.pulled == 0
    text = ws.read_text()
    new_entry = [e for e in text.split("\n§\n") if "Deploys happen on Tuesdays" in e][0]
    expected = (
        HEADER
        + "\n§\n"
        + "\n§\n".join(
            [
                ENTRIES[0],
                ENTRIES[1],
                "[2026-04-13][proj:alpha] Alpha API runs on port 9090",
                new_entry.strip(),
            ]
        )
        + "\n"
    )
    assert text == expected  # header, unknown block, order and separators all kept
    assert new_entry.strip().endswith("][fact] Deploys happen on Tuesdays")


def test_agent_edits_to_the_file_are_picked_up(mem, ws):
    sync_workspace(mem)
    text = ws.read_text()
    text = text.replace("Prefers pnpm over npm", "Prefers bun over npm")
    text = text.replace("\n§\n[2026-04-14][rule] Never push to main without a PR", "")
    text += "§\n[2026-05-01][env] CI runs on GitHub Actions\n"
    ws.write_text(text)

    rep = sync_workspace(mem)
    assert rep.pulled == 3 and rep.conflicts == []
    assert by_content(mem, "Prefers bun over npm").category == "pref"
    assert by_content(mem, "Never push to main without a PR").status == "archived"
    assert by_content(mem, "CI runs on GitHub Actions").event_date.isoformat() == "2026-05-01"
    assert [f.content for f in mem.list() if "pnpm" in f.content] == []
    assert ws.read_text() == text, "picking up the agent's edits writes nothing back"


def test_conflicting_edit_is_reported_and_nothing_is_overwritten(mem, ws):
    sync_workspace(mem)
    f = by_content(mem, "Prefers pnpm over npm")
    mem.edit(f.id, content="Prefers yarn over npm")
    ws.write_text(ws.read_text().replace("Prefers pnpm over npm", "Prefers bun over npm"))
    file_before = ws.read_bytes()

    rep = sync_workspace(mem)
    assert len(rep.conflicts) == 1
    c = rep.conflicts[0]
    assert c.fact_id == f.id
    assert c.file_text == "[2026-04-12][pref] Prefers bun over npm"
    assert c.engram_text == "[2026-04-12][pref] Prefers yarn over npm"
    assert ws.read_bytes() == file_before
    assert mem.get(f.id).content == "Prefers yarn over npm"
    # still a conflict next time: it does not resolve itself by whoever syncs last
    assert len(sync_workspace(mem).conflicts) == 1
    assert mem.get(f.id).content == "Prefers yarn over npm" and ws.read_bytes() == file_before

    rep = sync_workspace(mem, prefer="file")
    assert rep.conflicts == [] and mem.get(f.id).content == "Prefers bun over npm"
    assert sync_workspace(mem).conflicts == []


def test_prefer_engram_writes_the_fact_over_the_entry(mem, ws):
    sync_workspace(mem)
    f = by_content(mem, "Alpha API runs on port 8080")
    mem.edit(f.id, content="Alpha API runs on port 7000")
    ws.write_text(ws.read_text().replace("port 8080", "port 6000"))
    assert len(sync_workspace(mem).conflicts) == 1
    sync_workspace(mem, prefer="engram")
    assert "[2026-04-13][proj:alpha] Alpha API runs on port 7000" in ws.read_text()
    assert "6000" not in ws.read_text()


def test_an_agent_writing_to_a_fresh_workspace_gets_engrams_facts(keyword_engram, tmp_path):
    root = tmp_path / "new-ws"
    keyword_engram.add_agent("fresh", workspace=root)
    mem = keyword_engram.agent("fresh")
    mem.remember("Prefers tabs over spaces in Go code", category="pref")
    rep = sync_workspace(mem)
    text = (root / "memories" / "MEMORY.md").read_text()
    assert rep.pushed == 1
    assert text.startswith("# MEMORY.md\n")
    assert text.rstrip().endswith("[pref] Prefers tabs over spaces in Go code")
    assert not (root / "memories" / "USER.md").exists()


def test_missing_file_with_synced_entries_archives_nothing(mem, ws):
    sync_workspace(mem)
    ws.rename(ws.with_suffix(".moved"))
    rep = sync_workspace(mem)
    assert rep.pulled == rep.pushed == 0
    assert all(f.status == "active" for f in mem.list())


def test_cli_sync_exit_code_flags_conflicts(tmp_path, ws, keyword_engram, capsys):
    from app.cli import main as cli

    data = str(keyword_engram.config.data_dir)
    keyword_engram.close()
    assert cli(["--data-dir", data, "sync", "--agent", "hermes"]) == 0
    out = capsys.readouterr().out
    assert "pulled 3, pushed 0, conflicts 0" in out
    assert cli(["--data-dir", data, "list", "--agent", "hermes", "--json"]) == 0
    [fid] = [f["id"] for f in json.loads(capsys.readouterr().out) if "pnpm" in f["content"]]
    assert cli(["--data-dir", data, "edit", str(fid), "--content", "Prefers yarn over npm"]) == 0
    ws.write_text(ws.read_text().replace("pnpm", "bun"))
    capsys.readouterr()
    assert cli(["--data-dir", data, "sync", "--agent", "hermes"]) == 4
    out = capsys.readouterr().out
    assert f"CONFLICT MEMORY.md fact {fid}" in out and "conflicts 1" in out


def test_entries_are_read_like_the_importer_reads_them(mem, ws):
    """Category spellings the Memory Setup importer normalises mean the same after a sync."""
    ws.write_text(ws.read_text() + "§\n[2026-04-15][preferences] Likes short answers\n")
    sync_workspace(mem)
    assert by_content(mem, "Likes short answers").category == "pref"


def test_sync_after_import_changes_nothing(mem, ws):
    """A workspace imported with `engram import` (USER.md profile, a block holding two
    entries) and then synced: no entry is pulled twice or written back a second time."""
    ws.write_text(
        ws.read_text() + "§\n[2026-04-20][env] Node 22 on the laptop\n"
        "[2026-04-21][env] Python 3.11 on the server\n"
    )
    (ws.parent / "USER.md").write_text(
        "# USER.md\n\n- **Name:** Sam\n- **Timezone:** Europe/Berlin\n"
    )
    before = {p.name: p.read_bytes() for p in ws.parent.iterdir()}
    rep = mem.import_path(ws.parent.parent)
    assert rep.added >= 7  # (the importer may also take the unprefixed note)
    n = mem.facts.count()
    rep = sync_workspace(mem)
    assert (rep.pulled, rep.pushed, rep.conflicts) == (0, 0, [])
    assert {p.name: p.read_bytes() for p in ws.parent.iterdir()} == before
    assert mem.facts.count() == n


def test_signature_tells_a_poller_when_to_sync(mem, ws):
    from services.interop.sync import workspace_signature

    sync_workspace(mem)
    sig = workspace_signature(mem)
    assert workspace_signature(mem) == sig
    ws.write_text(ws.read_text() + "§\n[2026-06-01][task] Rotate the API keys\n")
    assert workspace_signature(mem) != sig
    assert sync_workspace(mem).pulled == 1


def test_moving_the_workspace_does_not_read_as_every_entry_removed(
    mem, ws, keyword_engram, tmp_path
):
    sync_workspace(mem)
    other = tmp_path / "other"
    (other / "memories").mkdir(parents=True)
    (other / "memories" / "MEMORY.md").write_text(
        HEADER + "\n§\n[2026-06-02][fact] Office moved to the third floor\n"
    )
    keyword_engram.update_agent("hermes", workspace=other)
    moved = keyword_engram.agent("hermes")
    rep = sync_workspace(moved)
    assert rep.pulled == 1 and rep.pushed == 3 and rep.conflicts == []
    assert [f.status for f in moved.list()] == ["active"] * 4
    text = (other / "memories" / "MEMORY.md").read_text()
    assert "Office moved to the third floor" in text and "Prefers pnpm over npm" in text


def test_reordering_entries_changes_no_fact(mem, ws):
    sync_workspace(mem)
    blocks = ws.read_text().split("\n§\n")
    blocks[1], blocks[4] = blocks[4].rstrip("\n"), blocks[1] + "\n"  # swap first and last
    ws.write_text("\n§\n".join(blocks))
    rep = sync_workspace(mem)
    assert (rep.pulled, rep.pushed, rep.conflicts) == (0, 0, [])
    assert [f.status for f in mem.list()] == ["active"] * 3
    # and an edit after the move is still an edit of the right fact
    ws.write_text(
        ws.read_text().replace(
            "Never push to main without a PR", "Never push to main without two approvals"
        )
    )
    assert sync_workspace(mem).pulled == 1
    assert by_content(mem, "Never push to main without two approvals").category == "rule"
    assert len(mem.list()) == 3

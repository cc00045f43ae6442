"""Write-back keys on facts' uids and refuses a store older than its links (issue #30,
finding 4): restoring an older ``engram.db`` (as the "store is damaged" message advises) and
writing back must not rewrite or remove a single block of the agent's own memory files.
Driven through the CLI on a real store with a Claude Code auto-memory folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.file_tree import folder_files as _snapshot

# out of make test-fast (a store restored from a backup, then write-back): make test runs it
pytestmark = pytest.mark.slow

NATIVE = Path(__file__).resolve().parents[1] / "importers" / "fixtures" / "native"
HAND_WRITTEN = "- Ask Dana before any Friday release (written by hand).\n"


def _db_files(data: Path) -> list[Path]:
    return [p for p in data.iterdir() if p.name.startswith("engram.db") and p.is_file()]


def _fact_id(cli, start: str) -> int:
    rc, out, err = cli("list", "--agent", "cc", "--json")
    assert rc == 0, err
    hits = [f["id"] for f in json.loads(out) if f["content"].startswith(start)]
    assert len(hits) == 1, start
    return hits[0]


def _imported(cli, tmp_path) -> tuple[Path, Path]:
    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    rc, _, err = cli("import", "--agent", "cc", str(folder))
    assert rc == 0, err
    return folder, tmp_path / "cli-store"  # the folder the `cli` fixture runs on


def test_writeback_from_a_restored_older_store_refuses_and_touches_nothing(tmp_path, cli):
    folder, data = _imported(cli, tmp_path)
    aside = tmp_path / "backup"
    aside.mkdir()
    for p in _db_files(data):  # the user's backup of the store, taken with Engram closed
        if not p.name.endswith((".identity", ".open-lock")):
            shutil.copy2(p, aside / p.name)

    # later: an edit and a delete, written back into the agent's files
    fid = _fact_id(cli, "API latency graphs")
    rc, _, err = cli("edit", str(fid), "--content", "API latency graphs live in Datadog.")
    assert rc == 0, err
    assert cli("delete", str(_fact_id(cli, "The release manager rotates weekly")), "--yes")[0] == 0
    rc, out, err = cli("writeback", "--agent", "cc")
    assert rc == 0 and "written back 2" in out, (out, err)
    topic = folder / "project_release.md"
    topic.write_text(topic.read_text() + HAND_WRITTEN)  # the user's own line

    # the store is restored from the older copy (cp over the damaged one)
    for p in _db_files(data):
        if p.name in ("engram.db-wal", "engram.db-shm"):
            p.unlink()
    for p in aside.iterdir():
        shutil.copy(p, data / p.name)

    before = _snapshot(folder)
    links = (data / "agents" / "cc" / "writeback.json").read_bytes()
    for args in (("writeback", "--agent", "cc"), ("sync", "--agent", "cc")):
        rc, out, err = cli(*args)
        assert rc == 4, (args, rc, out, err)
        said = out + err
        assert "older than" in said and "nothing was written" in said, said
        assert _snapshot(folder) == before  # every byte of every file, the hand-written line too
        assert HAND_WRITTEN in topic.read_text()
        assert (data / "agents" / "cc" / "writeback.json").read_bytes() == links

    rc, out, _ = cli("writeback", "--agent", "cc", "--json")
    assert rc == 4 and "older than" in json.loads(out)["refused"]
    assert _snapshot(folder) == before

    # the way out the message names: importing the files again links them to this store
    rc, _, err = cli("import", "--agent", "cc", str(folder))
    assert rc == 0, err
    rc, out, err = cli("writeback", "--agent", "cc")
    assert rc == 0 and "written back 0" in out, (out, err)
    assert _snapshot(folder) == before


def test_old_links_keyed_by_row_ids_are_rekeyed_only_when_the_fact_still_matches(tmp_path, cli):
    """A links file from before uids: a link whose id names a fact with the linked text is
    kept (under the fact's uid); one whose id now names other text is dropped, never acted on."""
    folder, data = _imported(cli, tmp_path)
    state_path = data / "agents" / "cc" / "writeback.json"
    state = json.loads(state_path.read_text())
    keep_id = _fact_id(cli, "API latency graphs")
    stale_id = _fact_id(cli, "The release manager rotates weekly")
    old_links = {
        str(v["id"]): {k: x for k, x in v.items() if k != "id"} for v in state["links"].values()
    }
    # the id of the stale link now belongs to a fact with other text (a reused row id)
    old_links[str(stale_id)]["fact"] = "0" * 32
    state_path.write_text(json.dumps({"version": 1, "links": old_links}))

    # written before the upgrade read the file: its link no longer matches, so it is dropped
    merges = _fact_id(cli, "Merges freeze every Thursday")
    rc, _, err = cli("edit", str(merges), "--content", "Merges freeze on Wednesdays.")
    assert rc == 0, err
    release_before = (folder / "project_release.md").read_bytes()
    rc, out, err = cli("writeback", "--agent", "cc")
    assert rc == 0 and "written back 0" in out, (out, err)
    migrated = json.loads(state_path.read_text())
    assert migrated["version"] == 2 and migrated["mark"]
    assert all(len(k) == 32 and not k.isdigit() for k in migrated["links"])
    assert {v["id"] for v in migrated["links"].values()} == {int(k) for k in old_links} - {
        stale_id,
        merges,
    }

    rc, _, err = cli("edit", str(keep_id), "--content", "API latency graphs live in Datadog.")
    assert rc == 0, err
    assert cli("delete", str(stale_id), "--yes")[0] == 0
    rc, out, err = cli("writeback", "--agent", "cc")
    assert rc == 0 and "written back 1" in out, (out, err)
    assert "Datadog" in (folder / "reference_dashboards.md").read_text()
    assert (folder / "project_release.md").read_bytes() == release_before  # dropped links

"""One rule for every destructive command (issue 35): `delete`, `review reject`, `agent trash
--empty`, `entity merge` and `gc` only show what they would do unless `--yes`, as `forget`
does. Each is run without `--yes` (the store's rows and compiled files must not change, and the
output says what would happen and to add --yes), with `--json` (a preview says so), then with
`--yes` (the change happens)."""

from __future__ import annotations

import json
import shlex
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from services.config import StoreConfig
from services.consequences import EMPTY_TRASH, REJECT
from services.engram import Engram


def _state(tmp_path) -> tuple[list[str], dict[str, bytes]]:
    """Every row of the store and the bytes of every compiled memory file."""
    store = tmp_path / "cli-store"
    con = sqlite3.connect(f"file:{store / 'engram.db'}?mode=ro", uri=True)
    try:
        rows = list(con.iterdump())
    finally:
        con.close()
    files = {str(p.relative_to(store)): p.read_bytes() for p in (store / "agents").rglob("*.md")}
    return rows, files


def _preview_changes_nothing(cli, tmp_path, *args) -> str:
    before = _state(tmp_path)
    rc, out, err = cli(*args)
    assert rc == 0, err
    assert "Run again with --yes" in out, out
    rc, js, err = cli(*args, "--json")
    assert rc == 0, err
    assert json.loads(js)["preview"] is True
    assert _state(tmp_path) == before, f"`{' '.join(args)}` without --yes changed the store"
    return out


def _remember(cli, agent: str, text: str, *extra: str) -> str:
    rc, out, err = cli("remember", "--agent", agent, text, *extra)
    assert rc == 0, err
    return out.strip()


def test_delete_previews_then_deletes(cli, tmp_path):
    assert cli("agent", "add", "a")[0] == 0
    fid = _remember(cli, "a", "Uses zsh on the work laptop")
    out = _preview_changes_nothing(cli, tmp_path, "delete", fid)
    assert f"Would delete fact {fid}: Uses zsh on the work laptop" in out
    assert cli("show", fid)[0] == 0

    rc, out, err = cli("delete", fid, "--yes")
    assert rc == 0 and out.strip() == fid, err
    assert cli("show", fid)[0] != 0
    assert "Uses zsh" not in cli("list", "--agent", "a")[1]


def test_review_reject_previews_then_erases(cli, tmp_path):
    phone = "+44 20 7946 0958"
    assert cli("agent", "add", "me")[0] == 0
    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store", semantic=False)) as e:
        e.update_agent("me", settings={"pii": "ask"})  # phone numbers wait for review
    fid = str(
        json.loads(_remember(cli, "me", f"Dr Quillfeather's mobile is {phone}", "--json"))["id"]
    )
    assert phone in cli("review", "--agent", "me")[1]

    out = _preview_changes_nothing(cli, tmp_path, "review", "reject", fid, "--agent", "me")
    assert f"Would reject and erase {fid}" in out and "cannot be undone" in out
    assert " ".join(REJECT.what.split()) in " ".join(out.split())  # the dialog's words
    assert phone in cli("review", "--agent", "me")[1]

    rc, out, err = cli("review", "reject", fid, "--agent", "me", "--yes")
    assert rc == 0 and "rejected and erased 1" in out, out + err
    assert "nothing to review" in cli("review", "--agent", "me")[1]
    rc, out, _ = cli("forget", "--verify", phone, "--agent", "me")
    assert rc == 0 and "nothing remains" in out


def test_emptying_the_trash_previews_then_deletes_for_good(cli, tmp_path):
    assert cli("agent", "add", "bot")[0] == 0
    _remember(cli, "bot", "Deploys from the main branch")
    assert cli("agent", "remove", "bot")[0] == 0

    out = _preview_changes_nothing(cli, tmp_path, "agent", "trash", "--empty")
    assert "Would delete for good: bot and its 1 facts" in out and "cannot be undone" in out
    assert EMPTY_TRASH.what in out  # the words Delete for good's dialog uses
    assert [t["slug"] for t in json.loads(cli("agent", "trash", "--json")[1])] == ["bot"]

    rc, out, err = cli("agent", "trash", "--empty", "--yes")
    assert rc == 0 and "Deleted for good: bot" in out, out + err
    assert json.loads(cli("agent", "trash", "--json")[1]) == []
    assert cli("agent", "restore", "bot")[0] != 0


def test_entity_merge_previews_then_merges_and_says_how_to_undo(cli, tmp_path):
    assert cli("agent", "add", "work")[0] == 0
    for text in (
        "Maria Lopez is my manager at Acme Corp.",
        "Maria said the roadmap is due Friday.",
    ):
        _remember(cli, "work", text)
    merge = ("entity", "merge", "--agent", "work", "Maria Lopez", "Maria")

    out = _preview_changes_nothing(cli, tmp_path, *merge)
    assert "Would merge Maria (id" in out and "into Maria Lopez" in out
    rc, out, _ = cli("entity", "show", "--agent", "work", "Maria", "--json")
    assert json.loads(out)["name"] == "Maria"

    rc, merged, err = cli(*merge, "--yes")
    assert rc == 0 and "undo: engram entity undo" in merged, merged + err
    rc, out, _ = cli("entity", "show", "--agent", "work", "Maria", "--json")
    assert json.loads(out)["name"] == "Maria Lopez"
    # the undo it prints works as printed (the entity commands need --agent)
    undo = shlex.split(merged.split("undo: ")[1].rstrip(")\n"))
    assert undo[:3] == ["engram", "entity", "undo"]
    rc, _, err = cli(*undo[1:])
    assert rc == 0, err
    rc, out, _ = cli("entity", "show", "--agent", "work", "Maria", "--json")
    assert json.loads(out)["name"] == "Maria"


@pytest.mark.parametrize("old_flag", [False, True])
def test_gc_previews_by_default_and_dry_run_still_previews(cli, tmp_path, old_flag):
    assert cli("agent", "add", "a")[0] == 0
    fid = _remember(cli, "a", "Rotate the staging certificates", "--category", "task")
    later = (datetime.now(UTC) + timedelta(days=400)).date().isoformat()
    gc = ("gc", "--agent", "a", "--now", later)
    if old_flag:  # the old spelling: a preview even with --yes, as `forget --dry-run` is
        gc = (*gc, "--dry-run", "--yes")

    out = _preview_changes_nothing(cli, tmp_path, *gc)
    assert "gc would change (preview)" in out and "1 expired" in out, out
    assert json.loads(cli("show", fid, "--json")[1])["status"] == "active"
    if old_flag:
        return

    rc, out, err = cli(*gc, "--yes")
    assert rc == 0 and "gc done" in out and "1 expired" in out, out + err
    assert json.loads(cli("show", fid, "--json")[1])["status"] != "active"

"""`engram backup` / `engram restore NAME`: whole-store copies, previewed restores, the daily
backup, and the damaged-store message that points at them. Real store, real Chroma."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest


def _store(tmp_path) -> Path:
    return tmp_path / "cli-store"  # where the `cli` fixture keeps its store


def _contents(cli, agent="a") -> list[str]:
    rc, out, err = cli("list", "--agent", agent, "--json")
    assert rc == 0, err
    return sorted(f["content"] for f in json.loads(out))


def test_backup_then_restore_with_preview_and_undo(cli, tmp_path):
    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "Deploys go out on Tuesdays")
    rc, out, err = cli("backup", "--json")
    assert rc == 0, err
    made = json.loads(out)
    folder = _store(tmp_path) / "backups" / made["name"]
    assert (folder / "engram.db").is_file() and (folder / "chroma").is_dir()
    assert made["facts"] == 1 and made["agents"] == 1

    cli("remember", "--agent", "a", "The staging database is called ember")
    assert len(_contents(cli)) == 2

    # no --yes: says what would happen, changes nothing
    rc, out, err = cli("restore", made["name"])
    assert rc == 0, err
    assert "would replace" in out and "--yes" in out
    assert len(_contents(cli)) == 2

    rc, out, err = cli("restore", made["name"], "--yes")
    assert rc == 0, err
    assert _contents(cli) == ["Deploys go out on Tuesdays"]
    # search (the restored vector index) agrees with the restored rows
    rc, out, _ = cli("recall", "--agent", "a", "when do deploys happen", "--json")
    assert [h["content"] for h in json.loads(out)] == ["Deploys go out on Tuesdays"]
    undo = out_name = None
    rc, out, _ = cli("backup", "--list", "--json")
    listed = json.loads(out)
    assert [b["reason"] for b in listed] == ["manual", "before-restore"]
    undo = listed[1]["name"]
    out_name = listed[0]["name"]
    assert out_name == made["name"]

    # the restore is undone by restoring the copy it took
    assert cli("restore", undo, "--yes")[0] == 0
    assert len(_contents(cli)) == 2


def test_restore_of_an_unknown_backup_is_an_error(cli):
    cli("agent", "add", "a")
    rc, out, err = cli("restore", "20990101-000000", "--yes")
    assert rc == 1 and "no backup named '20990101-000000'" in err


def test_restore_without_a_name_lists_backups(cli):
    cli("agent", "add", "a")
    rc, out, _ = cli("restore")
    assert rc == 0 and "no backups yet" in out
    name = json.loads(cli("backup", "--json")[1])["name"]
    rc, out, _ = cli("restore")
    assert rc == 0 and out.startswith(name)


def test_archived_fact_ids_still_restore_facts(cli):
    cli("agent", "add", "a")
    rc, out, err = cli("restore", "999", "--json")
    assert rc == 1 and "no fact 999" in err  # ids are still facts, not a backup's name


def test_a_damaged_store_points_at_engram_restore_and_comes_back(cli, tmp_path):
    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "Prefers dark roast coffee")
    name = json.loads(cli("backup", "--json")[1])["name"]
    db = _store(tmp_path) / "engram.db"
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database, it was overwritten" * 100)

    rc, out, err = cli("list", "--agent", "a")
    assert rc == 1
    assert "damaged" in err and "restore" in err and "backups/" not in err

    rc, out, err = cli("restore")
    assert rc == 0 and name in out
    rc, out, err = cli("restore", name, "--yes")
    assert rc == 0, err
    assert _contents(cli) == ["Prefers dark roast coffee"]
    # the damaged bytes it replaced are kept, for a rescue
    kept = [b for b in json.loads(cli("backup", "--list", "--json")[1]) if b["name"] != name]
    assert [b["reason"] for b in kept] == ["before-restore"]
    assert (Path(kept[0]["path"]) / "engram.db").read_bytes().startswith(b"this is not a database")


def _set_since(store: Path, day: date) -> None:
    (store / ".engram-since").write_text(day.isoformat() + "\n")


def test_daily_backup_once_a_day_and_old_ones_pruned(cli, tmp_path):
    cli("agent", "add", "a")
    store = _store(tmp_path)
    # the day the store was made: no automatic backup
    cli("agents")
    assert not (store / "backups").exists()

    _set_since(store, date.today() - timedelta(days=3))
    cli("agents")
    rc, out, _ = cli("backup", "--list", "--json")
    daily = [b for b in json.loads(out) if b["reason"] == "daily"]
    assert len(daily) == 1
    cli("agents")  # the same day again: no second one
    assert len([b for b in json.loads(cli("backup", "--list", "--json")[1])]) == 1

    # a daily backup older than the kept days goes
    folder = store / "backups" / daily[0]["name"]
    old = (datetime.now() - timedelta(days=10)).isoformat(timespec="seconds")
    (folder / "backup.json").write_text(json.dumps({"created": old, "reason": "daily"}))
    rc, out, _ = cli("backup", "--keep-days", "7")
    assert rc == 0 and "7 day(s)" in out
    cli("agents")
    listed = json.loads(cli("backup", "--list", "--json")[1])
    # the old one went and today's was taken again (it may reuse the name within a second)
    assert [(b["reason"], b["created"][:10]) for b in listed] == [
        ("daily", date.today().isoformat())
    ]


def test_keep_days_zero_turns_daily_backups_off(cli, tmp_path, capsys):
    cli("agent", "add", "a")
    store = _store(tmp_path)
    assert cli("backup", "--keep-days", "0")[0] == 0
    _set_since(store, date.today() - timedelta(days=3))
    cli("agents")
    assert json.loads(cli("backup", "--list", "--json")[1]) == []
    with pytest.raises(SystemExit) as exit_:
        cli("backup", "--keep-days", "-1")
    assert exit_.value.code == 2 and "0 or more" in capsys.readouterr().err

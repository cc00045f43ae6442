"""An older Engram never writes into a store a newer one migrated (issue #30, finding 15): it
refuses with its own exit code and one line saying why, and every byte of the data folder
stays as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from models.schema import CURRENT_VERSION


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".open-lock")  # the opener's lock file
    }


def test_a_store_from_a_newer_engram_is_refused_and_left_untouched(tmp_path, cli):
    data = tmp_path / "cli-store"  # the folder the `cli` fixture runs on
    assert cli("agent", "add", "notes")[0] == 0
    rc, _, err = cli("remember", "--agent", "notes", "The staging database is rebuilt nightly")
    assert rc == 0, err
    con = sqlite3.connect(data / "engram.db")
    con.execute(
        "INSERT INTO schema_version(version, applied_at) VALUES (?, '2027-01-01')",
        (CURRENT_VERSION + 3,),
    )
    con.commit()
    con.close()
    before = _files(data)

    for args in (
        ("remember", "--agent", "notes", "The release train leaves on Tuesdays"),
        ("list", "--agent", "notes"),
        ("writeback", "--agent", "notes"),
    ):
        rc, out, err = cli(*args)
        assert rc == 5, (args, rc, out, err)
        assert "newer Engram" in err and f"schema version {CURRENT_VERSION + 3}" in err, err
        assert "Update Engram" in err
        assert _files(data) == before, args

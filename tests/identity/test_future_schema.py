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


def test_the_app_says_why_it_does_not_open_a_store_from_a_newer_engram(tmp_path):
    """The desktop app, started as a user starts it: the window says it, the store stays."""
    from tests.gui.test_window_first import one_fact_store, run_app

    data = one_fact_store(tmp_path)
    con = sqlite3.connect(data / "engram.db")
    con.execute(
        "INSERT INTO schema_version(version, applied_at) VALUES (?, '2027-01-01')",
        (CURRENT_VERSION + 1,),
    )
    con.commit()
    con.close()
    before = _files(data)
    p, lines, _ = run_app(tmp_path, "fail", data)
    log = (data / "logs" / "engram.log").read_text()
    assert "SchemaTooNew" in log  # the app's log says it, the store is left as it was
    assert p.returncode == 1, p.stdout + p.stderr
    shown = next(ln for ln in lines if "page" in ln)
    assert shown["box_visible"] and "newer Engram" in shown["box"], shown
    assert f"schema version {CURRENT_VERSION + 1}" in shown["box"]
    assert lines[-1] == {"rc": 1, "attached": False}
    store = lambda files: {k: v for k, v in files.items() if not k.startswith("logs/")}  # noqa: E731
    assert store(_files(data)) == store(before)

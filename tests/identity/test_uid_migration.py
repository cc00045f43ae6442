"""Schema v10 on a store made before it: every fact and agent it holds gets a uid (UUID4,
hex), no two alike, and the store an instance id named in the marker beside the database.
New rows get theirs at creation. Through the CLI on a real SQLite store."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

UUID4_HEX = re.compile(r"^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$")


def _as_v9(db: Path) -> None:
    """The store as an Engram before v10 left it (no uid columns, no instance)."""
    con = sqlite3.connect(db)
    for table in ("fact", "agent"):
        con.execute(f"DROP INDEX {table}_uid")
        con.execute(f"ALTER TABLE {table} DROP COLUMN uid")
    con.execute("DROP TABLE store_identity")
    con.execute("DELETE FROM schema_version WHERE version = 10")
    con.commit()
    con.close()
    Path(str(db) + ".identity").unlink()


def _uids(db: Path, table: str) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return [u for (u,) in con.execute(f"SELECT uid FROM {table} ORDER BY id")]
    finally:
        con.close()


def test_an_older_store_gets_uids_for_every_row_and_an_instance(tmp_path, cli):
    data = tmp_path / "cli-store"
    for slug in ("notes", "work"):
        assert cli("agent", "add", slug)[0] == 0
    for i in range(5):
        rc, _, err = cli("remember", "--agent", "notes", f"Standup room number {i} is booked")
        assert rc == 0, err
    db = data / "engram.db"
    _as_v9(db)

    rc, out, err = cli("list", "--agent", "notes", "--json")
    assert rc == 0 and len(json.loads(out)) == 5, err
    facts, agents = _uids(db, "fact"), _uids(db, "agent")
    assert len(facts) == 5 and len(agents) == 2
    assert all(UUID4_HEX.match(u) for u in facts + agents), facts + agents
    assert len(set(facts + agents)) == 7
    marker = json.loads((data / "engram.db.identity").read_text())
    con = sqlite3.connect(db)
    (inst,) = con.execute("SELECT value FROM store_identity WHERE key = 'instance'").fetchone()
    con.close()
    assert marker["instance"] == inst and len(inst) == 32
    assert list(data.glob("engram.v9.*.bak"))  # the copy taken before migrating

    # a uid never changes, and a new fact gets its own at creation
    assert cli("remember", "--agent", "notes", "The fire drill is on Friday")[0] == 0
    now = _uids(db, "fact")
    assert now[:5] == facts and UUID4_HEX.match(now[5]) and now[5] not in facts

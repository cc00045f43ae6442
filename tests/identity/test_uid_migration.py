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
        con.execute(f"DROP TRIGGER {table}_uid_ai")
        con.execute(f"DROP INDEX {table}_uid")
        con.execute(f"ALTER TABLE {table} DROP COLUMN uid")
    con.execute("DROP TABLE store_identity")
    con.execute("DELETE FROM schema_version WHERE version >= 10")  # what came after v9
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


def test_rows_inserted_without_a_uid_get_one(keyword_engram):
    """The bulk path (services.bulk_remember, one prepared INSERT for every column) and a raw
    INSERT of an older client leave the uid out or NULL: the store fills it in."""
    from services import bulk_remember
    from services.ingest.pipeline import NewFact

    mem = keyword_engram.agent("bulk", create=True)
    texts = [f"Build agent number {i} runs on the rack in room B" for i in range(50)]
    counts = bulk_remember(mem, [NewFact(content=t) for t in texts])
    assert counts["added"] == 50
    db = keyword_engram.db
    db.execute_sql(
        "INSERT INTO agent (slug, name, kind, settings, created_at, visibility) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        ("raw", "raw", "generic", "{}", "2026-01-01 00:00:00", "shared"),
    )
    facts = [
        u for (u,) in db.execute_sql("SELECT uid FROM fact WHERE agent_id = ?", (mem.agent_id,))
    ]
    agents = [u for (u,) in db.execute_sql("SELECT uid FROM agent")]
    assert len(facts) == 50 and len(agents) == 2
    assert all(UUID4_HEX.match(u or "") for u in facts + agents), facts + agents
    assert len(set(facts + agents)) == 52

"""Every team operation finishes or fails with one clear line: a writer lock another client
holds ends in "lock wait", a server that is down in "refused", a wrong password in
"unauthorised"; every team connection carries statement and lock timeouts."""

from __future__ import annotations

from services.config import StoreConfig
from services.engram import Engram
from tests.teamstore.servers import free_port
from tests.teamstore.servers import member_cli as _cli


def test_every_team_connection_is_bounded(team_store, tmp_path):
    e = Engram.open(StoreConfig(data_dir=tmp_path / "s", db_url=team_store.db_url, semantic=False))
    try:
        got = {
            k: e.db.execute_sql(f"SHOW {k}").fetchone()[0]
            for k in ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout")
        }
    finally:
        e.close()
    assert got == {
        "statement_timeout": "2min",
        "lock_timeout": "20s",
        "idle_in_transaction_session_timeout": "2min",
    }


def test_a_writer_lock_held_elsewhere_ends_in_a_lock_wait_message(
    team_store, pg_server, tmp_path, monkeypatch, capsys
):
    def engram(*args: str) -> tuple[int, str, str]:
        return _cli(capsys, monkeypatch, team_store.db_url, tmp_path / "c", *args)

    assert engram("agent", "add", "team")[0] == 0
    e = Engram.open(StoreConfig(data_dir=tmp_path / "s", db_url=team_store.db_url, semantic=False))
    aid = e.agent("team").agent_id
    e.close()
    holder = pg_server.admin(team_store.dbname)  # another client, mid-write, never finishing
    holder.autocommit = False  # the writer lock is a row lock, held to the end of its transaction
    holder.cursor().execute("SELECT engram_lock_agent(%s, 1000)", (aid,))
    try:
        monkeypatch.setenv("ENGRAM_PG_LOCK_TIMEOUT", "1")
        rc, out, err = engram("remember", "--agent", "team", "Deploys need two approvals")
    finally:
        holder.close()
    assert rc == 1 and err.startswith("engram: lock wait:"), err
    assert len(err.strip().splitlines()) == 1
    # the lock gone, the same write goes through
    rc, out, err = engram("remember", "--agent", "team", "Deploys need two approvals")
    assert rc == 0, err


def test_a_stopped_server_and_a_wrong_password_say_so_in_one_line(
    members, tmp_path, monkeypatch, capsys
):
    down = f"postgresql://bob@127.0.0.1:{free_port()}/engram"
    rc, out, err = _cli(capsys, monkeypatch, down, tmp_path / "c", "agents")
    assert rc == 1 and err.startswith("engram: refused: nothing listens on 127.0.0.1:"), err
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    wrong = members("bob").replace("bob@", "bob:wrong-password@")
    rc, out, err = _cli(capsys, monkeypatch, wrong, tmp_path / "c", "agents")
    assert rc == 1 and err.startswith("engram: unauthorised:"), err

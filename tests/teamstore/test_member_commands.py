"""What a member does from the CLI on a team store: share or privatise an agent, the admin
adds a member, and `migrate --from` as a member works beside another member's hidden rows
and recovers from a run that was killed half way."""

from __future__ import annotations

import io
import json
import sys

import psycopg2

from services.config import StoreConfig
from services.engram import Engram
from services.ingest.pipeline import NewFact
from tests.teamstore.servers import member_cli as _cli


def test_share_private_and_add_member_from_the_cli(
    members, team_store, pg_server, tmp_path, monkeypatch, capsys
):
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    alice, bob = members("alice"), members("bob")
    assert _cli(capsys, monkeypatch, alice, a_dir, "agent", "add", "notes")[0] == 0
    assert (
        _cli(capsys, monkeypatch, alice, a_dir, "remember", "--agent", "notes", "Lunch at 12")[0]
        == 0
    )
    rc, out, err = _cli(capsys, monkeypatch, alice, a_dir, "agent", "private", "notes")
    assert rc == 0 and "notes: private" in out, err
    rc, out, _ = _cli(capsys, monkeypatch, bob, b_dir, "agents", "--json")
    assert json.loads(out) == []
    rc, out, err = _cli(capsys, monkeypatch, alice, a_dir, "agent", "share", "notes")
    assert rc == 0, err
    rc, out, _ = _cli(capsys, monkeypatch, bob, b_dir, "agents", "--json")
    assert [a["slug"] for a in json.loads(out)] == ["notes"]
    # only its owner decides
    rc, out, err = _cli(capsys, monkeypatch, bob, b_dir, "agent", "private", "notes")
    assert rc == 1 and "only its owner (alice)" in err, err

    # a member cannot add members; the admin can, and the new role logs in
    monkeypatch.setattr(sys, "stdin", io.StringIO("carol-secret-3\n"))
    rc, out, err = _cli(
        capsys, monkeypatch, bob, b_dir, "team", "add-member", "carol", "--password-stdin"
    )
    assert rc == 1 and "admin" in err, err
    monkeypatch.setattr(sys, "stdin", io.StringIO("carol-secret-3\n"))
    rc, out, err = _cli(
        capsys,
        monkeypatch,
        team_store.db_url,
        tmp_path / "adm",
        "team",
        "add-member",
        "carol",
        "--password-stdin",
    )
    assert rc == 0, err
    con = psycopg2.connect(
        host="127.0.0.1",
        port=pg_server.port,
        user="carol",
        password="carol-secret-3",
        dbname=team_store.dbname,
    )
    with con.cursor() as cur:
        cur.execute("SELECT slug FROM agent")
        assert cur.fetchall() == [("notes",)]
    con.close()


def _local(path, n=30):
    e = Engram.open(StoreConfig(data_dir=path, semantic=False))
    e.agent("laptop", create=True).remember_many(
        [NewFact(f"Laptop note number {i} about the {i}th sprint") for i in range(n)]
    )
    e.close()


def test_migrate_as_a_member_never_collides_with_hidden_rows_and_resumes_after_a_kill(
    members, team_store, tmp_path, monkeypatch, capsys
):
    # alice holds private rows with the low ids a fresh local store also uses
    alice = Engram.open(
        StoreConfig(data_dir=tmp_path / "a", db_url=members("alice"), semantic=False)
    )
    alice.agent("secret", create=True)
    alice.set_visibility("secret", "private")
    alice.agent("secret").remember_many([NewFact(f"Alice private {i}") for i in range(40)])
    alice.close()
    src = tmp_path / "bob-local"
    _local(src, 300)

    # what a run killed after creating the agent and before its rows committed leaves
    bob = Engram.open(StoreConfig(data_dir=tmp_path / "b", db_url=members("bob"), semantic=False))
    bob.agent("laptop", create=True)
    bob.close()

    rc, out, err = _cli(
        capsys, monkeypatch, members("bob"), tmp_path / "b", "migrate", "--from", str(src)
    )
    assert rc == 0, err
    rc, out, err = _cli(
        capsys, monkeypatch, members("bob"), tmp_path / "b", "migrate", "--from", str(src)
    )
    assert rc == 0 and "laptop: already there, unchanged" in out, (out, err)
    rc, out, _ = _cli(
        capsys, monkeypatch, members("bob"), tmp_path / "b", "list", "--agent", "laptop", "--json"
    )
    assert len(json.loads(out)) == 300
    alice = Engram.open(
        StoreConfig(data_dir=tmp_path / "a", db_url=members("alice"), semantic=False)
    )
    assert len(alice.agent("secret").list()) == 40
    alice.close()

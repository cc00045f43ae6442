"""Many clients at once on one team store: two members writing to one shared agent at the
same time, each in their own process and role. Every write lands once, with its writer's
name, and the memories both say merge into one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from models import AuditEvent, Fact
from services.config import StoreConfig
from services.engram import Engram

ROOT = Path(__file__).resolve().parents[2]
WRITER = """
import sys
from models.identity import set_origin
from services.config import StoreConfig
from services.engram import Engram
from services.ingest.pipeline import NewFact

url, data, who = sys.argv[1:4]
set_origin("mcp:" + who + "-desktop")
e = Engram.open(StoreConfig(data_dir=data, db_url=url, semantic=False))
mem = e.agent("team")
for i in range(30):
    mem.remember(f"{who} noted build step {i} of the pipeline")
    if i % 3 == 0:
        mem.remember(f"Shared convention number {i // 3}: review before merge")
e.close()
"""


def test_two_members_writing_at_once_lose_nothing_and_merge_duplicates(members, tmp_path):
    admin_view = Engram.open(
        StoreConfig(data_dir=tmp_path / "alice0", db_url=members("alice"), semantic=False)
    )
    admin_view.agent("team", create=True)
    admin_view.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANONYMIZED_TELEMETRY": "False"}
    procs = []
    for who in ("alice", "bob"):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WRITER, members(who), str(tmp_path / who), who],
                env={**env, "ENGRAM_USER": f"{who}@team"},
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    for p in procs:
        _, err = p.communicate(timeout=240)
        assert p.returncode == 0, err

    e = Engram.open(StoreConfig(data_dir=tmp_path / "check", db_url=members("bob"), semantic=False))
    try:
        mem = e.agent("team")
        contents = [f.content for f in mem.list()]
        assert len(contents) == len(set(contents)) == 60 + 10
        for who in ("alice", "bob"):
            mine = {
                f.id
                for f in Fact.select(Fact.id).where(
                    Fact.content.startswith(f"{who} noted"), Fact.agent == mem.agent_id
                )
            }
            assert len(mine) == 30
            creators = {
                (ev.by_user, ev.origin)
                for ev in AuditEvent.select().where(
                    AuditEvent.fact_id.in_(list(mine)), AuditEvent.action == "create"
                )
            }
            assert creators == {(f"{who}@team", f"mcp:{who}-desktop")}
        # each shared convention: one fact, created by one member, restated by the other
        for n in range(10):
            text = f"Shared convention number {n}: review before merge"
            (fact,) = [f for f in mem.list() if f.content == text]
            assert fact.provenance is None  # lists stay light; get() fills it
            prov = mem.get(fact.id).provenance
            assert prov["created_by"] in {"alice@team", "bob@team"}
    finally:
        e.close()

"""`engram migrate --from DIR` copies a local store into the team store (rows, history,
episodes, layers, audit, vectors as numbers), idempotently; `--to DIR` brings it back.
The round trip keeps the same facts and the same search results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from models import AuditEvent, Episode
from services.config import StoreConfig
from services.engram import Engram
from services.ingest.pipeline import NewFact

QUERIES = ["which database runs in production", "release schedule", "pet", '"golden retriever"']


def _build_local(path):
    e = Engram.open(StoreConfig(data_dir=path))
    mem = e.agent("claude", create=True, kind="claude-code")
    mem.remember_many(
        [
            NewFact("Production database is PostgreSQL 16 on a dedicated host", category="env"),
            NewFact("The team ships releases every second Tuesday", category="proj:release"),
            NewFact("The user adopted a golden retriever puppy named Biscuit"),
            NewFact("Runs the test suite with pytest -x before each commit", category="rule"),
        ]
    )
    fid = mem.remember("The staging server is called heron", subject="staging server").fact_id
    mem.remember("The staging server is called osprey now", subject="staging server")
    mem.edit(fid, importance=0.9)
    mem.add_episode(
        __import__("datetime").date(2026, 3, 2), "Paired on the billing webhook retry bug"
    )
    other = e.agent("cursor", create=True)
    other.remember("Cursor prefers tabs in the Makefile")
    e.close()


def _state(config: StoreConfig):
    e = Engram.open(config)
    try:
        out = {}
        for slug in ("claude", "cursor"):
            mem = e.agent(slug)
            facts = sorted(
                (f.content, f.status, f.category, f.importance, f.superseded_by is not None)
                for f in mem.list()
            )
            results = {
                q: [h.fact.content for h in mem.search(q, k=3, touch=False)] for q in QUERIES
            }
            vecs = e.index.vectors(mem.agent_id)
            by_text = {f.content: vecs.get(f.id) for f in mem.list()}
            audit = AuditEvent.select().where(AuditEvent.agent == mem.agent_id).count()
            eps = [x.summary for x in Episode.select().where(Episode.agent == mem.agent_id)]
            out[slug] = (facts, results, by_text, audit, eps)
        return out
    finally:
        e.close()


def _same(a, b):
    for slug in a:
        fa, ra, va, aa, ea = a[slug]
        fb, rb, vb, ab, eb = b[slug]
        assert fa == fb and ra == rb and aa == ab and ea == eb, slug
        assert va.keys() == vb.keys()
        for t in va:  # vectors travelled as numbers (float32 rounding at most)
            assert np.allclose(va[t], vb[t], atol=1e-5), t


def test_migrate_to_the_team_store_and_back_keeps_facts_vectors_and_search_results(
    team_store, tmp_path, monkeypatch, capsys
):
    local, back, here = tmp_path / "local", tmp_path / "back", tmp_path / "team-client"
    _build_local(local)
    before = _state(StoreConfig(data_dir=local))

    monkeypatch.setenv("ENGRAM_DB_URL", team_store.db_url)
    monkeypatch.setenv("ENGRAM_CHROMA_URL", team_store.chroma_url)
    assert main(["--data-dir", str(here), "migrate", "--from", str(local), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert set(first["copied"]) == {"claude", "cursor"}
    assert first["copied"]["claude"]["vectors"] == 6 and first["copied"]["claude"]["embedded"] == 0
    team = StoreConfig(data_dir=here, db_url=team_store.db_url, vector_url=team_store.chroma_url)
    _same(before, _state(team))

    # again: nothing doubles
    assert main(["--data-dir", str(here), "migrate", "--from", str(local)]) == 0
    out = capsys.readouterr().out
    assert "claude: already there, unchanged" in out and "cursor: already there" in out
    _same(before, _state(team))
    # the team store keeps taking writes after rows came in with their ids
    e = Engram.open(StoreConfig(data_dir=here, db_url=team_store.db_url, semantic=False))
    assert e.agent("claude").remember("Deploys need two approvals").status == "added"
    e.close()

    # and back to a directory of its own
    assert main(["--data-dir", str(here), "migrate", "--to", str(back), "--agent", "cursor"]) == 0
    assert "cursor: copied" in capsys.readouterr().out
    b = _state_one(StoreConfig(data_dir=back), "cursor")
    assert b[0] == before["cursor"][0] and b[1] == before["cursor"][1]


def _state_one(config, slug):
    e = Engram.open(config)
    try:
        mem = e.agent(slug)
        facts = sorted(
            (f.content, f.status, f.category, f.importance, f.superseded_by is not None)
            for f in mem.list()
        )
        return facts, {
            q: [h.fact.content for h in mem.search(q, k=3, touch=False)] for q in QUERIES
        }
    finally:
        e.close()


def test_migrate_from_a_directory_without_a_store_says_so(
    team_store, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("ENGRAM_DB_URL", team_store.db_url)
    rc = main(["--data-dir", str(tmp_path / "c"), "migrate", "--from", str(tmp_path / "nothing")])
    assert rc != 0
    assert "holds no Engram store" in capsys.readouterr().err


ROOT = Path(__file__).resolve().parents[2]
TOOLS = ["pytest", "ruff", "mypy", "pnpm", "docker", "make", "tox", "poetry", "uv", "nox"]


@pytest.mark.slow
def test_a_migrate_killed_while_copying_vectors_is_finished_by_the_next_run(
    team_store, tmp_path, monkeypatch, capsys
):
    """Finding 12: a `migrate` killed after the rows went up left the agent with no vectors,
    and the next run called it "already there, unchanged". Now the vectors travel in batches
    that commit, and a rerun copies the ones missing (counted on the server, pgvector)."""
    local, here = tmp_path / "local", tmp_path / "team-client"
    e = Engram.open(StoreConfig(data_dir=local))
    texts = [f"The {t} job on runner {n} takes {n + 2} minutes" for t in TOOLS for n in range(15)]
    e.agent("claude", create=True).remember_many([NewFact(t) for t in texts])
    e.close()
    monkeypatch.delenv("ENGRAM_CHROMA_URL", raising=False)  # vectors in PostgreSQL
    env = dict(os.environ, PYTHONPATH=str(ROOT), ENGRAM_DB_URL=team_store.db_url)
    env.update(ENGRAM_TEST_KILL_AT="migrate.vectors", ANONYMIZED_TELEMETRY="False")
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(here), "migrate", "--from",
         str(local)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr

    def on_server() -> tuple[int, int]:
        import psycopg2

        con = psycopg2.connect(team_store.db_url)
        with con.cursor() as c:
            c.execute("SELECT count(*) FROM fact")
            facts = c.fetchone()[0]
            c.execute("SELECT count(*) FROM fact_vector")
            vectors = c.fetchone()[0]
        con.close()
        return facts, vectors

    facts, vectors = on_server()
    assert facts == len(texts) and 0 < vectors < len(texts), (facts, vectors)
    monkeypatch.setenv("ENGRAM_DB_URL", team_store.db_url)
    assert main(["--data-dir", str(here), "migrate", "--from", str(local)]) == 0
    out = capsys.readouterr().out
    assert f"claude: already there, its vectors finished ({len(texts) - vectors} vectors)" in out
    assert on_server() == (len(texts), len(texts))
    # the vectors on the server are the local ones, each beside its own fact's text
    team = _by_text(StoreConfig(data_dir=here, db_url=team_store.db_url))
    mine = _by_text(StoreConfig(data_dir=local))
    assert team.keys() == mine.keys() == set(texts)
    assert all(np.allclose(team[t], mine[t], atol=1e-5) for t in texts)
    assert main(["--data-dir", str(here), "migrate", "--from", str(local)]) == 0
    assert "claude: already there, unchanged" in capsys.readouterr().out
    assert on_server() == (len(texts), len(texts))


def _by_text(config: StoreConfig) -> dict:
    e = Engram.open(config)
    try:
        mem = e.agent("claude")
        vecs = e.index.vectors(mem.agent_id)
        return {f.content: vecs[f.id] for f in mem.list(limit=1000) if f.id in vecs}
    finally:
        e.close()

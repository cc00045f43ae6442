"""`engram agent trash --empty` (issue 30, finding 3): deleting a trashed agent for good
erases it from every place it lived, as `forget --agent X --all` does, and then its row:
fact rows, FTS, history, episodes, session logs, vectors and its Chroma collection,
compiled layers and the layer files (memory.md, today/week/longterm.md), the agents/<slug>
dir, with the store compacted so no free page keeps the text. A Claude Code install wired
to its memory.md is removed too, so no agent keeps loading what was deleted.

On a copy of the forget template (real SQLite + FTS5, Chroma with its HNSW files on disk,
the real model), through the real CLI; $HOME is a temp dir (conftest)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from forget_data import (
    ALLERGY,
    EPISODE,
    OLD_EPISODE,
    OLD_FACT,
    ONE_FACT,
    SECRET,
    SHARED,
    UNRELATED_PEANUT,
    hnsw_hits,
    open_copy,
)

from app.cli import main

pytestmark = pytest.mark.slow  # a full purge of a 1,100-fact agent

# alice's own texts (bob holds SHARED too, so it is not one of them)
ALICE = [
    SECRET,
    ONE_FACT,
    OLD_FACT,
    UNRELATED_PEANUT,
    *ALLERGY,
    EPISODE,
    OLD_EPISODE,
    "Routine note 517: the build number 3619 passed on runner 10",
    "booked the dentist for Monday",  # her session log
]
LAYERS = ("memory.md", "today.md", "week.md", "longterm.md")


def raw_scan(root: Path, texts: list[str]) -> list[tuple[str, int]]:
    """Every file under root (engram.db, its WAL, chroma.sqlite3, HNSW segments, layer
    files...), raw bytes, case-insensitive, read in a child process like the verifier."""
    from services.forget import isolated

    return isolated.raw_hits([root], texts)


@pytest.fixture
def data(template, tmp_path) -> Path:
    e = open_copy(template, tmp_path / "t")
    d = Path(e.config.data_dir)
    e.close()
    return d


@pytest.fixture
def cli(data, capsys):
    def run(*argv: str) -> tuple[int, str, str]:
        rc = main(["--data-dir", str(data), *argv])
        out, err = capsys.readouterr()
        return rc, out, err

    return run


@pytest.fixture
def home() -> Path:
    h = Path(os.environ["HOME"])  # the temp home of conftest's _private_home
    (h / ".claude").mkdir(parents=True, exist_ok=True)
    (h / ".claude" / "CLAUDE.md").write_bytes(b"# Me\n\n- Answer briefly.\n")
    (h / ".claude" / "settings.json").write_bytes(b'{"model": "opus"}\n')
    return h


def test_trash_empty_erases_the_agent_everywhere(data, cli, home):
    adir = data / "agents" / "alice"
    assert all((adir / name).is_file() for name in LAYERS), "the template compiled alice"
    assert raw_scan(data, [SECRET, EPISODE]), "the texts are in the store before"
    user_files = {p: p.read_bytes() for p in (home / ".claude").iterdir()}
    rc, _, err = cli("hooks", "install", "claude-code", "--agent", "alice",
                     "--home", str(home), "--yes")  # fmt: skip
    assert rc == 0, err
    assert b"agents/alice/memory.md" in (home / ".claude" / "CLAUDE.md").read_bytes()

    assert cli("agent", "remove", "alice")[0] == 0
    rc, out, err = cli("agent", "trash", "--empty", "--yes")
    assert rc == 0, err
    assert "Deleted for good: alice" in out
    assert f"removed Engram's integration for alice from {home / '.claude' / 'CLAUDE.md'}" in out

    assert raw_scan(data, ALICE) == []
    assert not adir.exists()
    assert not [p for p in data.rglob("*") if p.name in LAYERS and "alice" in str(p)]
    # the agent Claude Code was wired to loads nothing of hers: the import, the hook and the
    # MCP server entry are gone, the user's files as they were
    assert {p: p.read_bytes() for p in (home / ".claude").iterdir()} == user_files
    assert not (home / ".claude.json").exists()
    assert cli("hooks", "status")[1].strip() == "no integrations installed"
    # gone as an agent, bob untouched
    assert cli("agent", "trash", "--json")[1].strip() == "[]"
    rc, _, err = cli("list", "--agent", "alice")
    assert rc == 1 and "no agent 'alice'" in err
    rc, out, _ = cli("recall", "--agent", "bob", "Kraken Protocol", "--json")
    assert rc == 0 and SHARED in out
    rc, out, _ = cli("receipts", "--json")
    [receipt] = json.loads(out)
    assert receipt["agent"] == "alice" and receipt["counts"]["remaining_after_verify"] == 0
    assert not any(t.lower() in out.lower() for t in ALICE), "a receipt holds no content"


def test_no_vector_of_the_deleted_agent_is_left_in_chroma(data, cli):
    from services.config import StoreConfig
    from services.engram import Engram

    assert cli("agent", "remove", "alice")[0] == 0
    assert cli("agent", "trash", "--empty", "--agent", "alice", "--yes")[0] == 0
    e = Engram.open(StoreConfig(data_dir=data))
    try:
        assert [a.slug for a in e.agents()] == ["bob"]
        assert hnsw_hits(e, [SECRET, ONE_FACT, OLD_FACT]) == []
        assert raw_scan(data, ALICE) == []
        rep = e.verify()
        assert rep.ok, rep
    finally:
        e.close()

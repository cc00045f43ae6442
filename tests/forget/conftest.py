"""Fixtures for the forget tests: a real store (SQLite + Chroma + the real model) built once
per session with enough facts that Chroma has flushed its HNSW segment to disk, then copied
for each test so every test purges its own store."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib mode: make forget_data importable

from forget_data import _build


@pytest.fixture(scope="session")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("forget-template")
    _build(root)
    return root


def open_copy(template: Path, root: Path):
    """A copy of the template store, opened, every absolute path in it rewritten to the copy.
    A path left at the template would let a forget here edit the template's files (alice's
    workspace, the files her facts came from), and every later copy would start without
    what it erased (CI once failed that way)."""
    from models import CompiledLayer
    from services.config import StoreConfig
    from services.engram import Engram

    shutil.copytree(template, root)
    e = Engram.open(StoreConfig(data_dir=root / "store"))
    e.update_agent("alice", workspace=str(root / "ws_alice"))
    old, new = str(template), str(root)
    for L in CompiledLayer.select():
        if L.path and L.path.startswith(old):
            L.path = new + L.path[len(old) :]
            L.save()
    for col in ("source_ref", "metadata"):
        e.db.execute_sql(
            f"UPDATE fact SET {col} = replace({col}, ?, ?) WHERE instr({col}, ?) > 0",
            (old, new, old),
        )
    for state in (root / "store").rglob("*.json"):
        text = state.read_text("utf-8")
        if old in text:
            state.write_text(text.replace(old, new), "utf-8")
    e.root = root
    return e


@pytest.fixture
def store(template, tmp_path):
    """A fresh copy of the template store, opened, with paths rewritten to the copy."""
    e = open_copy(template, tmp_path / "t")
    yield e
    e.close()


@pytest.fixture(autouse=True)
def _private_home(tmp_path_factory, monkeypatch):
    """A forget also reaches the agents' files it discovers under $HOME and the current
    project: these tests must find only their own, never the machine's."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(home)

"""Fixtures for the forget tests: a real store (SQLite + Chroma + the real model) built once
per session with enough facts that Chroma has flushed its HNSW segment to disk, then copied
for each test so every test purges its own store."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib mode: make forget_data importable

from forget_data import _build, open_copy


@pytest.fixture(scope="session")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("forget-template")
    _build(root)
    return root


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


@pytest.fixture
def project(home_and_project):
    """The project of ``home_and_project``: the forget discovers agents' files only there
    and under its home."""
    return home_and_project[1]

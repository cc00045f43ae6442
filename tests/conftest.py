"""Shared fixtures: real SQLite store, real Chroma client, real embedding model, temp dirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture
def engram(tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(StoreConfig(data_dir=tmp_path / "store"))
    assert e.semantic_enabled, e.semantic_error
    yield e
    e.close()


@pytest.fixture
def keyword_engram(tmp_path):
    """A store opened without the model (what a user without it gets)."""
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(StoreConfig(data_dir=tmp_path / "kstore", semantic=False))
    yield e
    e.close()


@pytest.fixture
def agent(engram):
    return engram.agent("claude", create=True, kind="claude-code")


@pytest.fixture
def shared_dir():
    if not SHARED.exists():
        pytest.skip("../shared is not beside the checkout")
    return SHARED


@pytest.fixture
def cli(tmp_path, capsys):
    """Run the `engram` CLI in-process on a temp store: (exit code, stdout, stderr)."""
    from app.cli import main

    data = str(tmp_path / "cli-store")

    def run(*args):
        rc = main(["--data-dir", data, *args])
        out, err = capsys.readouterr()
        return rc, out, err

    return run


def pytest_collection_modifyitems(config, items):
    """Everything under tests/gui is a `gui` test (left out of `make test-fast`)."""
    gui_dir = Path(__file__).resolve().parent / "gui"
    for item in items:
        if gui_dir in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.gui)

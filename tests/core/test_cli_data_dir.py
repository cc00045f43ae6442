"""A mistyped --data-dir is an error, not a new empty store; --init creates one; the default
data dir is still made on a first run."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def engram(capsys, monkeypatch):
    from app.cli import main

    monkeypatch.delenv("ENGRAM_INIT", raising=False)  # a person's shell, not the test suite's

    def run(*args):
        rc = main(list(args))
        out, err = capsys.readouterr()
        return rc, out, err

    return run


def test_a_missing_data_dir_is_an_error_and_nothing_is_created(engram, tmp_path):
    typo = tmp_path / "engarm"
    rc, out, err = engram("--data-dir", str(typo), "agents")
    assert rc == 2
    assert err.strip() == f"engram: no Engram store at {typo}; pass --init to create one"
    assert not typo.exists()


def test_init_creates_it_and_then_it_is_used(engram, tmp_path):
    store = tmp_path / "new-store"
    assert engram("--data-dir", str(store), "--init", "agent", "add", "a")[0] == 0
    assert (store / "engram.db").is_file()
    rc, out, _ = engram("--data-dir", str(store), "agents", "--json")
    assert rc == 0 and [a["slug"] for a in json.loads(out)] == ["a"]


def test_the_default_data_dir_is_created_on_first_run(engram, tmp_path, monkeypatch):
    home = tmp_path / "fresh-home" / "engram"
    monkeypatch.setenv("ENGRAM_HOME", str(home))
    rc, out, err = engram("agents", "--json")
    assert rc == 0, err
    assert json.loads(out) == [] and (home / "engram.db").is_file()

"""`engram demo` seeds the demo agents once: a second run adds nothing."""

from __future__ import annotations

import json

import pytest

# out of make test-fast (the demo builds whole agents with the real model): make test runs it
pytestmark = pytest.mark.slow


def _counts(cli) -> dict[str, int]:
    rc, out, err = cli("agents", "--json")
    assert rc == 0, err
    return {a["slug"]: a["facts"] for a in json.loads(out)}


def test_demo_twice_adds_nothing_the_second_time(cli):
    rc, out, err = cli("demo")
    assert rc == 0, err
    first = _counts(cli)
    assert sorted(first) == ["demo-claude-code", "demo-cursor", "demo-hermes", "demo-lynn"]
    assert sum(first.values()) >= 250
    rc, episodes_before, _ = cli("episodes", "--agent", "demo-cursor", "--json")

    rc, out, err = cli("demo")
    assert rc == 0, err
    assert "already here: nothing added" in out
    assert _counts(cli) == first
    assert cli("episodes", "--agent", "demo-cursor", "--json")[1] == episodes_before


def test_demo_after_a_missing_agent_adds_only_that_agent(cli, tmp_path):
    """What an interrupted `engram demo` leaves (whole agents, some missing) is completed
    by running it again, and nothing is added twice."""
    from app.settings import store_config
    from services.engram import Engram

    assert cli("demo")[0] == 0
    first = _counts(cli)
    eng = Engram.open(store_config(tmp_path / "cli-store", semantic=False))
    try:
        eng.remove_agent("demo-hermes")  # as if Ctrl+C came before it
    finally:
        eng.close()
    assert "demo-hermes" not in _counts(cli)
    rc, out, err = cli("demo")
    assert rc == 0, err
    assert _counts(cli) == first

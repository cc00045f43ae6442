"""`engram demo` seeds the demo agents once: a second run adds nothing."""

from __future__ import annotations

import json


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

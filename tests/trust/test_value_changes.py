"""Value changes supersede the older value with the reason shown, and opposites wait in the
review inbox (issue 32), through `engram remember`, `list` and `review` on a real store with
the embedding model."""

from __future__ import annotations

import json

import pytest

CHANGES = [
    ("Standup is at 9:30 every morning.", "Standup moved to 10:00."),
    ("CI runs on Jenkins.", "CI now runs on GitHub Actions."),
    ("We run Postgres 15 in production.", "We upgraded Postgres to version 16."),
    ("We track issues in Jira.", "We moved from Jira to Linear."),
    ("The deploy window is Tuesday afternoon.", "The deploy window changed to Thursday."),
    ("The on-call lead is Bob.", "The on-call lead is now Judy."),
    ("The default branch is master.", "The default branch was renamed to main."),
    ("Feature flags are managed in LaunchDarkly.", "Feature flags are no longer managed in LaunchDarkly; we use Unleash."),
]  # fmt: skip
OPPOSITES = [
    ("Always use tabs in Go files.", "Never use tabs in Go files."),
    ("The user is married.", "The user is divorced."),
    ("The user prefers dark mode.", "The user prefers light mode."),
    ("The main build is green.", "The main build is red."),
    ("Force-pushing to shared branches is allowed.", "Force-pushing to shared branches is not allowed."),
]  # fmt: skip


def _facts(cli, agent: str) -> dict[str, str]:
    rc, out, _ = cli("list", "--agent", agent, "--json", "--status", "all")
    if rc != 0:  # older spelling: no "all" status
        rc, out, _ = cli("list", "--agent", agent, "--json")
    return {f["content"]: f["status"] for f in json.loads(out)}


@pytest.mark.parametrize("old,new", CHANGES)
def test_a_value_change_supersedes_the_old_value_and_says_why(cli, old, new):
    assert cli("agent", "add", "team")[0] == 0
    rc, _, _ = cli("remember", "--agent", "team", old)
    assert rc == 0
    rc, out, err = cli("remember", "--agent", "team", new)
    assert rc == 0, err
    assert "supersedes fact" in err and "a value change" in err, err
    rc, out, _ = cli("list", "--agent", "team", "--status", "superseded", "--json")
    assert [f["content"] for f in json.loads(out)] == [old]
    rc, out, _ = cli("list", "--agent", "team", "--status", "active", "--json")
    assert [f["content"] for f in json.loads(out)] == [new]


def test_opposites_wait_in_review_and_keep_both(cli):
    for n, (first, second) in enumerate(OPPOSITES):
        agent = f"op{n}"
        assert cli("agent", "add", agent)[0] == 0
        assert cli("remember", "--agent", agent, first)[0] == 0
        rc, _, err = cli("remember", "--agent", agent, second)
        assert rc == 0 and "both kept" in err, (second, err)
        rc, out, _ = cli("review", "list", "--agent", agent, "--json")
        waiting = json.loads(out)
        rows = waiting if isinstance(waiting, list) else waiting.get("items", waiting)
        assert second in json.dumps(rows), (second, rows)
        rc, out, _ = cli("list", "--agent", agent, "--status", "active", "--json")
        assert [f["content"] for f in json.loads(out)] == [first]  # nothing lost


def test_a_change_leaves_facts_about_other_things_alone(cli):
    assert cli("agent", "add", "team")[0] == 0
    keep = (
        "Releases are documented in the README.",
        "The staging cluster runs Kubernetes 1.27.",
        "The user prefers remote work.",
    )
    for text in keep:
        assert cli("remember", "--agent", "team", text)[0] == 0
    for text in (
        "I updated the README to mention the new flag.",
        "Staging moved to stage.internal.example.com.",
        "The user now works at Globex.",
    ):
        rc, _, err = cli("remember", "--agent", "team", text)
        assert rc == 0 and "supersedes" not in err, (text, err)
    rc, out, _ = cli("list", "--agent", "team", "--status", "active", "--json")
    assert set(keep) <= {f["content"] for f in json.loads(out)}

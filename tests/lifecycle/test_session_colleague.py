"""What `engram ingest-session` keeps from a Claude Code 2.1 session, as a careful colleague
would (issue 32): the user's correction and decision, with provenance; the assistant's
unconfirmed finding waits in the review inbox with the reason; a one-off fix log is no fact."""

from __future__ import annotations

import json

from cc_builder import Session


def _session(tmp_path):
    s = Session("99999999-2222-4333-8444-000000000001")
    s.user("the login test is flaky, can you look?")
    s.say("Let me check the test.")
    s.tool("Bash", {"command": "uv run pytest tests/test_login.py -q"}, "1 failed, 3 passed")
    s.say(
        "I found the cause: the session cookie expires after 15 minutes in the test settings, "
        "so the slow CI run times out."
    )
    said = s.user("no, don't raise the timeout. Use freezegun to pin the clock instead.")
    s.say("Understood.")
    s.tool("Bash", {"command": "uv add --dev freezegun"}, "Resolved 12 packages")
    s.tool("Bash", {"command": "uv run pytest tests/test_login.py -q"}, "4 passed")
    s.say("Fixed: the login test pins the clock with freezegun. I also removed an unused import.")
    s.user("we decided to keep all auth tests clock-pinned from now on.")
    s.say("Noted.")
    return s.write(tmp_path / "projects" / "-home-dev-projects-shop"), said


def test_session_keeps_corrections_and_decisions_and_asks_about_the_rest(cli, tmp_path):
    path, said = _session(tmp_path)
    rc, out, err = cli("ingest-session", "--agent", "claude", str(path), "--json")
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "claude", "--status", "active", "--json")
    active = {f["content"]: f for f in json.loads(out)}
    rule = active["Don't raise the timeout. Use freezegun to pin the clock instead."]
    assert rule["category"] == "rule"
    assert "We decided to keep all auth tests clock-pinned from now on." in active
    rc, out, _ = cli("show", str(rule["id"]), "--json")
    prov = json.loads(out)["metadata"]["provenance"]
    assert prov["session"] == "99999999-2222-4333-8444-000000000001"
    assert prov["line"] == said["uuid"]
    # the finding is about a test: kept, but a person decides, and is told why
    rc, out, _ = cli("review", "list", "--agent", "claude")
    assert "The session cookie expires after 15 minutes in the test settings" in out
    assert "why: about a test or a merge" in out
    rc, out, _ = cli("list", "--agent", "claude", "--json")
    assert not [f for f in json.loads(out) if "unused import" in f["content"]]


def test_rules_the_user_asks_to_write_down_or_lays_out_are_kept(cli, tmp_path):
    s = Session("99999999-2222-4333-8444-000000000002")
    s.user("can you update CLAUDE.md that we should always run `mise run fmt` with `mise run lint`")
    s.say("Done.")
    s.user("we don't have `Entire-Session` anymore so this is obsolete. let's remove this too")
    s.say("Removed.")
    s.user(
        "Error handling should be: 1. if the error is a cli.SilentError, do not print anything "
        "2. always exit with os.Exit(1) 3. keep the message short"
    )
    s.say("Done, all tests pass.")
    path = s.write(tmp_path / "projects" / "-home-dev-projects-shop")
    rc, _, err = cli("ingest-session", "--agent", "claude", str(path))
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "claude", "--status", "active", "--json")
    active = {f["content"] for f in json.loads(out)}
    assert "Always run `mise run fmt` with `mise run lint`" in active
    assert "We don't have `Entire-Session` anymore" in active
    assert "If the error is a cli.SilentError, do not print anything" in active
    assert "Always exit with os.Exit(1)" in active
    assert not [f for f in active if "message short" in f]  # no value of its own: not a rule

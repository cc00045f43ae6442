"""`engram forget`, `rules`, `receipts` and `pii` as a user runs them (the real CLI entry point,
in-process, on a real store with the real model)."""

from __future__ import annotations

import json

import pytest

from app.cli import main

# out of make test-fast (preview, forget and verify through the CLI per test): make test runs it
pytestmark = pytest.mark.slow

PET = "My secret pet is named Quetzalcoatlus Borogove"


@pytest.fixture
def cli(tmp_path, capsys):
    d = str(tmp_path / "store")

    def run(*argv):
        rc = main(["--data-dir", d, *argv])
        out = capsys.readouterr()
        return rc, out.out, out.err

    assert run("remember", "--agent", "claude", "--create-agent", PET)[0] == 0
    assert run("remember", "--agent", "claude", "Prefers pnpm over npm")[0] == 0
    return run


def test_forget_preview_then_yes_then_verify(cli):
    rc, out, _ = cli("forget", "--agent", "claude", "--matching", "Borogove")
    assert rc == 0 and "1 fact(s)" in out and PET in out and "--yes" in out
    rc, out, _ = cli("forget", "--verify", "Borogove")
    assert rc == 1 and "remains" in out  # the preview removed nothing
    rc, out, _ = cli("forget", "--agent", "claude", "--matching", "Borogove", "--yes", "--dry-run")
    assert rc == 0 and "--yes" in out
    rc, out, _ = cli("forget", "--agent", "claude", "--matching", "Borogove", "--yes", "--json")
    assert rc == 0
    receipt = json.loads(out)
    assert receipt["counts"]["facts"] == 1 and receipt["counts"]["remaining_after_verify"] == 0
    assert "Borogove" not in out
    rc, out, _ = cli("forget", "--verify", "Borogove", "--verify", PET)
    assert rc == 0 and "nothing remains" in out
    rc, out, _ = cli("list", "--agent", "claude")
    assert "pnpm" in out and "Borogove" not in out


def test_forget_one_fact_by_id_and_bad_scopes(cli):
    rc, out, _ = cli("list", "--agent", "claude", "--json")
    fid = next(f["id"] for f in json.loads(out) if f["content"] == PET)
    rc, out, err = cli("forget", "--agent", "claude", "--fact", str(fid), "--yes")
    assert rc == 0 and "receipt" in out
    rc, _, err = cli("forget", "--agent", "claude", "--fact", "99999", "--yes")
    assert rc == 1 and "no fact 99999" in err
    rc, _, err = cli("forget", "--matching", "x", "--yes")
    assert rc == 1 and "--agent" in err
    rc, _, err = cli("forget", "--agent", "nobody", "--all", "--yes")
    assert rc == 1 and "no agent 'nobody'" in err
    with pytest.raises(SystemExit) as exc:  # argparse: usage error, exit 2
        cli("forget", "--agent", "claude", "--before", "31/12/2025")
    assert exc.value.code == 2


def test_rules_and_receipts_commands(cli):
    assert (
        cli(
            "forget", "--agent", "claude", "--matching", "Borogove", "--yes", "--label", "pet name"
        )[0]
        == 0
    )
    rc, out, _ = cli("rules", "list")
    assert rc == 0 and "pet name" in out and "claude" in out
    rc, out, _ = cli("rules", "list", "--json")
    rule_id = json.loads(out)[0]["id"]
    rc, _, err = cli("remember", "--agent", "claude", "Borogove is my iguana")
    assert rc == 3 and "forget rule: pet name" in err
    rc, out, _ = cli("receipts", "--json")
    recs = json.loads(out)
    assert len(recs) == 1 and recs[0]["counts"]["facts"] == 1 and "Borogove" not in out
    rc, out, _ = cli("receipts")
    assert "receipt 1" in out
    assert cli("rules", "remove", str(rule_id))[0] == 0
    rc, _, err = cli("rules", "remove", str(rule_id))
    assert rc == 1 and "no forget rule" in err
    assert cli("remember", "--agent", "claude", "Borogove is my iguana")[0] == 0


def test_forget_all_agents_needs_no_agent_and_verify_is_global(cli):
    assert cli("remember", "--agent", "codex", "--create-agent", PET)[0] == 0
    rc, out, _ = cli("forget", "--all-agents", "--matching", "Quetzalcoatlus")
    assert "agent claude" in out and "agent codex" in out
    assert cli("forget", "--all-agents", "--matching", "Quetzalcoatlus", "--yes")[0] == 0
    rc, out, _ = cli("forget", "--verify", "Quetzalcoatlus")
    assert rc == 0


def test_pii_command_sets_policy(cli):
    assert cli("pii", "--agent", "claude", "deny")[0] == 0
    assert cli("pii", "--agent", "claude", "ask", "--kind", "phone")[0] == 0
    rc, out, _ = cli("pii", "--agent", "claude")
    assert "email: deny" in out and "phone: ask" in out
    rc, out, _ = cli(
        "remember", "--agent", "claude", "--json", "Write to sam.jones@example.org about the lease"
    )
    fid = json.loads(out)["id"]
    rc, out, _ = cli("show", str(fid), "--json")
    shown = json.loads(out)
    assert (
        "sam.jones@example.org" not in shown["content"] and "[REDACTED:email]" in shown["content"]
    )
    assert any(h["action"] == "redact" for h in shown["history"])

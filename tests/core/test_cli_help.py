"""One spelling per idea, help on every option, `--json` where it was still missing.

The old spellings (`-k`, `--keyword`, `--create`, `--lines`, `--facts-only`) keep working for
a release but are hidden from `--help`; docs/cli.md lists the one spelling of each idea."""

from __future__ import annotations

import json

from app.cli import build_parser
from app.commands.help_text import without_help


def test_every_command_and_option_has_help():
    assert without_help(build_parser()) == []


def _help(capsys, *words) -> str:
    import pytest

    with pytest.raises(SystemExit):
        build_parser().parse_args([*words, "--help"])
    return capsys.readouterr().out


def test_old_spellings_are_hidden_from_help(capsys):
    recall = _help(capsys, "recall")
    assert "-n N, --limit N" in recall and " -k " not in recall
    assert "--facts-only" not in recall and "--keyword-only" not in recall
    mcp = _help(capsys, "mcp")
    assert "--create-agent" in mcp and "--keyword-only" in mcp
    assert "--create " not in mcp and "--keyword " not in mcp
    serve = _help(capsys, "serve")
    assert "--keyword-only" in serve and "--keyword " not in serve
    log = _help(capsys, "log")
    assert "-n LINES, --limit LINES" in log and "--lines" not in log


def _ids(out: str) -> list[int]:
    return [h["id"] for h in json.loads(out)]


def test_old_and_new_spellings_give_the_same_answer(cli):
    cli("agent", "add", "a")
    for text in ("Deploys go out on Tuesday", "Deploys need two approvals", "Deploys use Argo"):
        cli("remember", "--agent", "a", text)
    rc, new, err = cli(
        "recall", "--agent", "a", "deploys", "-n", "2", "--mode", "keyword", "--json"
    )
    assert rc == 0, err
    rc, old, err = cli("recall", "--agent", "a", "deploys", "-k", "2", "--keyword-only", "--json")
    assert rc == 0, err
    assert len(_ids(new)) == 2 and _ids(new) == _ids(old)
    rc, facts, _ = cli("recall", "--agent", "a", "deploys", "--facts-only", "--json")
    rc, scoped, _ = cli("recall", "--agent", "a", "deploys", "--scope", "facts", "--json")
    assert _ids(facts) == _ids(scoped) and len(_ids(facts)) == 3
    rc, out, _ = cli("log", "--limit", "3", "--json")
    rc2, out2, _ = cli("log", "--lines", "3", "--json")
    assert len(json.loads(out)["lines"]) == 3 == len(json.loads(out2)["lines"])


def test_json_on_mcp_token_rules_remove_and_archive_export(cli, tmp_path):
    rc, out, err = cli("mcp", "token", "--json")
    assert rc == 0, err
    token = json.loads(out)["token"]
    rc, plain, _ = cli("mcp", "token")
    assert plain.strip() == token and len(token) >= 32

    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "The staging host is kestrel-7")
    rc, out, err = cli("archive", "export", "--agent", "a", str(tmp_path / "a.jsonl"), "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["counts"]["fact"] == 1 and (tmp_path / "a.jsonl").is_file()
    assert "kestrel-7" in (tmp_path / "a.jsonl").read_text()

    rc, _, err = cli("forget", "--agent", "a", "--matching", "kestrel-7", "--yes")
    assert rc == 0, err
    rc, out, _ = cli("rules", "list", "--json")
    (rule,) = json.loads(out)
    rc, out, err = cli("rules", "remove", str(rule["id"]), "--json")
    assert rc == 0, err
    assert json.loads(out) == {"removed_rule": rule["id"]}
    rc, out, _ = cli("rules", "list", "--json")
    assert json.loads(out) == []


NO_JSON = {"gui", "completion", "serve"}  # a window, a shell script, a resident process


def test_every_command_takes_json():
    import argparse

    lacking: list[str] = []

    def walk(p: argparse.ArgumentParser, path: list[str]) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        for action in subs:
            for name, sub in action.choices.items():
                walk(sub, [*path, name])
        if not subs and path[0] not in NO_JSON and not any(a.dest == "json" for a in p._actions):
            lacking.append(" ".join(path))

    walk(build_parser(), [])
    assert lacking == []


def test_json_answers_of_agent_pii_entity_and_hooks_commands(cli, tmp_path):
    cli("agent", "add", "a")
    cli("remember", "--agent", "a", "Maria Chen leads the payments team at Stripe")
    rc, out, err = cli("pii", "--agent", "a", "ask", "--json")
    assert rc == 0, err
    assert set(json.loads(out)["pii"].values()) == {"ask"}
    rc, out, _ = cli("entities", "--agent", "a", "--json")
    maria = next(e for e in json.loads(out) if e["name"] == "Maria Chen")
    rc, out, err = cli(
        "entity", "rename", "--agent", "a", str(maria["id"]), "Maria Chen-Lee", "--json"
    )
    assert rc == 0, err
    assert json.loads(out)["undo"].startswith("engram entity undo")
    rc, out, _ = cli("entities", "--agent", "a", "--json")
    assert "Maria Chen-Lee" in {e["name"] for e in json.loads(out)}

    home = tmp_path / "home"
    home.mkdir()
    rc, out, err = cli(
        "hooks", "install", "claude-code", "--agent", "a", "--home", str(home), "--json"
    )
    assert rc == 0, err
    plan = json.loads(out)
    assert plan["preview"] is True and plan["changes"] and plan["backups"] == []
    assert list(home.iterdir()) == []  # a preview writes nothing

    rc, out, err = cli("agent", "remove", "a", "--json")
    assert rc == 0, err
    assert json.loads(out) == {"trashed": "a", "facts": 1, "undo": "engram agent restore a"}
    rc, out, _ = cli("agent", "restore", "a", "--json")
    assert json.loads(out) == {"restored": "a"}

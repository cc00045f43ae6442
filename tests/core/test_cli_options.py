"""What a person typing `engram` meets: `stats`, `--json` everywhere it was missing, the
exit-code table, and usage errors that name the mistake (choices, ranges, typos)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def usage_error(cli, capsys, *args) -> str:
    with pytest.raises(SystemExit) as exit_:
        cli(*args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_stats_per_agent_with_json(cli):
    cli("agent", "add", "a")
    cli("agent", "add", "b")
    texts = ("Uses zsh", "Likes tea", "Reads Le Monde")
    ids = [cli("remember", "--agent", "a", t)[1].strip() for t in texts]
    cli("pin", ids[0])
    cli("delete", ids[1], "--yes")  # gone for good: not counted
    cli("edit", ids[2], "--importance", "0.3")
    cli("compile", "--agent", "a")
    rc, out, err = cli("stats", "--json")
    assert rc == 0, err
    rows = {r["agent"]: r for r in json.loads(out)}
    a = rows["a"]
    assert a["facts"] == 2 and a["by_status"] == {"active": 2}
    assert a["pinned"] == 1 and a["episodes"] == 0
    assert a["memory_md_tokens"] > 0 and a["last_compile"] is not None
    assert rows["b"]["facts"] == 0 and rows["b"]["last_compile"] is None
    rc, out, _ = cli("stats", "--agent", "a")
    assert rc == 0 and out.startswith("a: 2 facts (2 active), 1 pinned, 0 episodes, memory.md ")


def test_json_on_agent_add_rename_edit_pin_unpin_delete_log_model(cli):
    rc, out, _ = cli("agent", "add", "a", "--kind", "codex", "--json")
    assert json.loads(out) == {"slug": "a", "name": "a", "kind": "codex", "workspace": None}
    rc, out, _ = cli("agent", "rename", "a", "Alpha", "--json")
    assert json.loads(out) == {"slug": "a", "name": "Alpha"}
    fid = int(cli("remember", "--agent", "a", "Uses Emacs")[1])
    rc, out, _ = cli("edit", str(fid), "--content", "Uses Helix", "--json")
    assert json.loads(out)["content"] == "Uses Helix"
    for action in ("pin", "unpin", "delete"):
        yes = ("--yes",) if action == "delete" else ()
        rc, out, _ = cli(action, str(fid), "--json", *yes)
        assert rc == 0 and json.loads(out) == {"action": action, "ids": [fid]}
    rc, out, _ = cli("log", "--json", "-n", "5")
    log = json.loads(out)
    assert log["path"].endswith("engram.log") and len(log["lines"]) == 5
    rc, out, _ = cli("model", "status", "--json")
    model = json.loads(out)
    assert rc == 0 and model["hashes_ok"] is True and Path(model["onnx"]).is_file()


def test_help_and_readme_carry_the_same_exit_codes(cli, capsys):
    with pytest.raises(SystemExit):
        cli("--help")
    help_text = capsys.readouterr().out
    in_help = dict(re.findall(r"^  (\d+)\s+(\S[^\n]*)", help_text.split("exit codes:")[1], re.M))
    readme = (ROOT / "README.md").read_text()
    in_readme = dict(re.findall(r"^\| (\d+) \| ([^|]+?) \|$", readme, re.M))
    assert sorted(in_help, key=int) == ["0", "1", "2", "3", "4", "5", "130"]
    assert set(in_readme) == set(in_help)
    for code, first_line in in_help.items():  # the help wraps lines; the README does not
        assert in_readme[code].startswith(first_line.strip().rstrip(",")), code


def test_unknown_agent_kind_is_rejected_with_the_choices(cli, capsys):
    err = usage_error(cli, capsys, "agent", "add", "x", "--kind", "nonsense")
    assert "invalid choice: 'nonsense'" in err and "'claude-code'" in err and "'generic'" in err
    assert cli("agents", "--json")[1].strip() == "[]"


def test_importance_out_of_range_says_the_rule(cli, capsys):
    cli("agent", "add", "a")
    err = usage_error(cli, capsys, "remember", "--agent", "a", "x", "--importance", "5")
    assert "importance must be between 0 and 1" in err and "_float01" not in err
    err = usage_error(cli, capsys, "remember", "--agent", "a", "x", "--importance", "lots")
    assert "importance must be between 0 and 1" in err


@pytest.mark.parametrize(
    "args,typo,meant",
    [
        (["list", "--agnet", "a"], "--agnet", "--agent"),  # was: "required: --agent"
        (["recall", "--agnet", "a", "tea"], "--agnet", "--agent"),
        (["list", "--agent", "a", "--sotr", "id"], "--sotr", "--sort"),
    ],
)
def test_a_mistyped_option_suggests_the_right_one(cli, capsys, args, typo, meant):
    err = usage_error(cli, capsys, *args)
    assert f"unknown option {typo}: did you mean {meant}?" in err

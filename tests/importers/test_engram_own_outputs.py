"""Engram never reads its own output back in as memory, and its block inside a user's file
does not hide the user's lines (issue 32). Driven through `engram hooks install`, `import`
and `discover` on a fake $HOME."""

from __future__ import annotations

import json


def _setup(cli, tmp_path, monkeypatch):
    home = tmp_path / "home"
    shop = home / "code" / "shop"
    shop.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    # a short user CLAUDE.md: Engram's import block lands within its first lines
    (shop / "CLAUDE.md").write_text("# Shop\n\n- Use pnpm, never npm, in this repo.\n")
    assert cli("agent", "add", "cursor")[0] == 0
    assert cli("remember", "--agent", "cursor", "Deploys go out on Thursdays.")[0] == 0
    assert cli("compile", "--agent", "cursor")[0] == 0
    for target in ("cursor", "claude-code"):
        rc, _, err = cli(
            "hooks", "install", target, "--agent", "cursor", "--home", str(home),
            "--project", str(shop), "--yes", "--no-mcp",
        )  # fmt: skip
        assert rc == 0, err
    assert "engram: compiled memory" in (shop / "CLAUDE.md").read_text()
    return home, shop


def test_the_cursor_rule_engram_wrote_is_refused_by_import(cli, tmp_path, monkeypatch):
    _, shop = _setup(cli, tmp_path, monkeypatch)
    rule = shop / ".cursor" / "rules" / "engram-memory.mdc"
    rc, _, err = cli("import", "--agent", "other", str(rule))
    assert rc == 1 and "Engram wrote this file" in err and "Nothing was imported" in err
    rc, out, _ = cli("agents")
    assert "other" not in out.split()  # no empty agent left behind
    # the project as a whole: the user's line, not Engram's compiled memory nor its block
    rc, out, err = cli("import", "--agent", "shop", str(shop), "--json")
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "shop", "--json")
    texts = [f["content"] for f in json.loads(out)]
    assert texts == ["Use pnpm, never npm, in this repo."]


def test_discover_lists_the_users_claude_md_but_not_engrams_files(cli, tmp_path, monkeypatch):
    home, shop = _setup(cli, tmp_path, monkeypatch)
    rc, out, err = cli("discover", "--json", "--home", str(home), "--project", str(shop))
    assert rc == 0, err
    found = {s["path"]: s for s in json.loads(out)["sources"]}
    assert found[str(shop / "CLAUDE.md")]["entries"] == 1
    assert not [p for p in found if "engram-memory" in p or "/.claude/engram/" in p]

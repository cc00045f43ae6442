"""Issue #30, one effect plan: what the preview lists is what the forget does. A candidate
left out after review (``--exclude``) is no longer a term for any file, layer, episode or
native file edit, so its line in an instruction file the agent imported stays byte for byte,
and the preview stops naming that file when nothing else in it goes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

INSTRUCTIONS = """# Project

- Always run the linter before committing.
- Lunch orders go to Quokka Bakery on Tuesdays.
- Team dinner at Quokka Bakery on Fridays.
- Prefer small pull requests.
"""
GONE = "- Lunch orders go to Quokka Bakery on Tuesdays.\n"
KEPT = "Team dinner at Quokka Bakery on Fridays."


def _ids(cli, agent: str) -> dict[str, int]:
    rc, out, _ = cli("list", "--agent", agent, "--json")
    assert rc == 0
    return {f["content"]: f["id"] for f in json.loads(out)}


def test_cli_excluded_fact_keeps_its_line_in_the_imported_claude_md(project, cli):
    f = project / "CLAUDE.md"
    f.write_bytes(INSTRUCTIONS.encode())
    assert cli("import", "--agent", "p", str(f))[0] == 0
    ids = _ids(cli, "p")
    keep = next(i for c, i in ids.items() if "Team dinner" in c)
    args = ("forget", "--agent", "p", "--matching", "Quokka Bakery", "--keyword-only")
    rc, out, _ = cli(*args, "--exclude", str(keep))
    assert rc == 0 and f"#{keep}" not in out
    # the plan names the file for the one line that goes, and only that line
    assert "Lunch orders" in out and KEPT not in out, out
    rc, out, err = cli(*args, "--exclude", str(keep), "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert f.read_bytes() == INSTRUCTIONS.replace(GONE, "").encode(), out + err
    assert any(KEPT in c for c in _ids(cli, "p"))
    backup = next(ln for ln in out.splitlines() if "backup (forgotten" in ln).rsplit(": ", 1)[1]
    assert KEPT in Path(backup).read_text(), "the backup must keep the line that was kept"


def test_cli_a_file_only_the_kept_fact_is_in_leaves_the_plan(project, cli):
    f = project / "CLAUDE.md"
    only_kept = INSTRUCTIONS.replace(GONE, "")
    f.write_bytes(only_kept.encode())
    assert cli("import", "--agent", "p", str(f))[0] == 0
    assert cli("remember", "--agent", "p", GONE[2:].strip())[0] == 0
    keep = next(i for c, i in _ids(cli, "p").items() if "Team dinner" in c)
    args = ("forget", "--agent", "p", "--matching", "Quokka Bakery", "--keyword-only")
    rc, out, _ = cli(*args, "--exclude", str(keep))
    assert rc == 0 and "Lunch orders" in out and str(f) not in out, out
    rc, out, err = cli(*args, "--exclude", str(keep), "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert f.read_bytes() == only_kept.encode()
    assert [c for c in _ids(cli, "p") if "Quokka" in c] == [KEPT]


def test_cli_a_store_backup_holding_only_the_kept_fact_is_not_destroyed(project, cli, tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram
    from services.store.backup import backup_store

    assert cli("remember", "--agent", "p", "--create-agent", KEPT)[0] == 0
    e = Engram.open(StoreConfig(data_dir=tmp_path / "cli-store", semantic=False))
    try:  # a dated copy of the store, as a migration or an earlier forget leaves one
        backup = backup_store(e, "before-migration")
    finally:
        e.close()
    assert backup is not None
    assert cli("remember", "--agent", "p", GONE[2:].strip())[0] == 0
    keep = next(i for c, i in _ids(cli, "p").items() if "Team dinner" in c)
    args = ("forget", "--agent", "p", "--matching", "Quokka Bakery", "--keyword-only")
    rc, out, _ = cli(*args, "--exclude", str(keep))
    assert rc == 0 and str(backup) not in out, out
    before = backup.read_bytes()
    rc, out, err = cli(*args, "--exclude", str(keep), "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert backup.read_bytes() == before, "a copy holding nothing forgotten was destroyed"


CODEX_SUMMARY = """## User preferences

- Prefers pytest over unittest.
- Buys lunch at Quokka Bakery.
- Team dinner at Quokka Bakery on Fridays.
"""


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def test_cli_a_kept_fact_stays_in_the_codex_memories_git_history(project, cli):
    home = Path(os.environ["HOME"])
    repo = home / ".codex" / "memories"
    f = repo / "user" / "memory" / "memory_summary.md"
    f.parent.mkdir(parents=True)
    f.write_bytes(CODEX_SUMMARY.encode())
    _git(repo.parent, "init", "-q", str(repo))
    for k, v in (("user.name", "codex"), ("user.email", "codex@example.invalid")):
        _git(repo, "config", k, v)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "memories")
    assert cli("import", "--agent", "cx", str(f.parent))[0] == 0
    keep = next(i for c, i in _ids(cli, "cx").items() if "Team dinner" in c)
    rc, out, err = cli(
        "forget", "--agent", "cx", "--matching", "Quokka Bakery", "--keyword-only",
        "--exclude", str(keep), "--yes",
    )  # fmt: skip
    assert rc == 0 and "git_histories_rewritten 1" in out, out + err
    assert f.read_bytes() == CODEX_SUMMARY.replace("- Buys lunch at Quokka Bakery.\n", "").encode()
    history = _git(repo, "log", "--all", "-p")
    assert "Buys lunch" not in history
    assert "- Team dinner at Quokka Bakery on Fridays." in history, history


def test_cli_a_second_forget_takes_its_line_out_of_the_first_forgets_backup(project, cli):
    """The first forget's marker copy of CLAUDE.md keeps the lines it did not forget; a
    second forget of one of them must not leave it there (the harness found it: the
    receipt said erased while <data dir>/forget-backups/ still held the line)."""
    f = project / "CLAUDE.md"
    f.write_bytes(INSTRUCTIONS.encode())
    assert cli("import", "--agent", "p", str(f))[0] == 0
    ids = _ids(cli, "p")
    first = next(i for c, i in ids.items() if "Lunch orders" in c)
    second = next(i for c, i in ids.items() if "small pull requests" in c)
    rc, out, err = cli("forget", "--agent", "p", "--fact", str(first), "--yes")
    assert rc == 0, out + err
    backup = next(ln for ln in out.splitlines() if "backup (forgotten" in ln).rsplit(": ", 1)[1]
    assert b"small pull requests" in Path(backup).read_bytes()  # kept by the first forget
    rc, out, err = cli("forget", "--agent", "p", "--fact", str(second), "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert b"small pull requests" not in Path(backup).read_bytes()
    assert b"Always run the linter" in Path(backup).read_bytes()  # never forgotten: stays
    assert b"small pull requests" not in f.read_bytes()

"""Hermes files are two-way in their own syntax: an edit made in Engram reaches the Hermes
file, a delete removes the entry with its separator, and ``sync`` adds a new memory as a
bare ``§`` entry (never ``[date][category] …``, another tool's syntax)."""

from __future__ import annotations

import json
from pathlib import Path

HERMES = (
    "The user works remotely on Fridays.\n§\n"
    "The user prefers tea over coffee.\n§\n"
    "The user's laptop is a ThinkPad X1."
)


def _facts(cli, agent: str) -> dict[str, int]:
    rc, out, _ = cli("list", "--agent", agent, "--json")
    assert rc == 0
    return {f["content"]: f["id"] for f in json.loads(out)}


def test_an_edit_and_a_delete_reach_the_hermes_file(cli, tmp_path):
    f = tmp_path / "home" / ".hermes" / "memories" / "MEMORY.md"
    f.parent.mkdir(parents=True)
    f.write_bytes(HERMES.encode())
    rc, out, err = cli("import", "--agent", "her", str(f.parent.parent))
    assert rc == 0, err
    ids = _facts(cli, "her")
    tea = ids["The user prefers tea over coffee."]
    laptop = ids["The user's laptop is a ThinkPad X1."]
    assert cli("edit", str(tea), "--content", "The user prefers green tea over coffee.")[0] == 0
    assert cli("delete", str(laptop), "--yes")[0] == 0
    rc, out, err = cli("writeback", "--agent", "her")
    assert rc == 0, out + err
    assert f.read_bytes() == (
        b"The user works remotely on Fridays.\n\xc2\xa7\nThe user prefers green tea over coffee."
    )
    # the file now says what Engram says: nothing more to write, nothing archived on import
    assert cli("writeback", "--agent", "her")[1].strip().endswith("written back 0, conflicts 0")
    rc, out, _ = cli("import", "--agent", "her", str(f.parent.parent))
    assert "added 0" in out


def test_sync_writes_additions_and_edits_in_the_files_own_syntax(cli, tmp_path):
    ws = tmp_path / "ws"
    f = ws / "memories" / "MEMORY.md"
    f.parent.mkdir(parents=True)
    f.write_bytes((HERMES + "\n").encode())
    assert cli("agent", "add", "w", "--workspace", str(ws))[0] == 0
    rc, out, err = cli("sync", "--agent", "w")
    assert rc == 0, out + err
    assert f.read_bytes() == (HERMES + "\n").encode()  # reading changes nothing
    assert len(_facts(cli, "w")) == 3

    rc, new_id, _ = cli("remember", "--agent", "w", "The user prefers dark mode in every editor")
    assert cli("sync", "--agent", "w")[0] == 0
    text = f.read_text()
    assert text == HERMES + "\n§\nThe user prefers dark mode in every editor\n"
    assert "[20" not in text

    tea = _facts(cli, "w")["The user prefers tea over coffee."]
    cli("edit", str(tea), "--content", "The user prefers rooibos over coffee.")
    assert cli("sync", "--agent", "w")[0] == 0
    assert Path(f).read_text() == text.replace("tea over coffee", "rooibos over coffee")

    # and the agent's own edit comes back into Engram
    f.write_text(f.read_text().replace("ThinkPad X1", "Framework 13"))
    rc, out, _ = cli("sync", "--agent", "w")
    assert rc == 0 and "updated" in out
    assert "The user's laptop is a Framework 13." in _facts(cli, "w")

"""File → Trash → Delete for good (issue 30, finding 3): the agent is erased from every place
it lived, not only its rows: afterwards a raw byte scan of the whole data dir (engram.db, its
WAL, chroma.sqlite3, every file) finds none of its facts, its memory.md and
today/week/longterm.md are gone, and the Claude Code install that imported its memory.md
is removed (the user's CLAUDE.md and settings as they were). Real store, Chroma and model."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal

LAYERS = ("memory.md", "today.md", "week.md", "longterm.md")


def _texts(agent) -> list[str]:
    return [f.content for f in agent.list(limit=1000)]


def raw_scan(root: Path, texts: list[str]) -> list[tuple[str, int]]:
    from services.forget import isolated  # raw bytes, read in a child process

    return isolated.raw_hits([root], texts)


def test_delete_for_good_erases_every_trace(window, seeded, engram, qtbot, tmp_path):
    from services.integrations import hooks_install as hooks
    from services.lifecycle.compile import CompileService

    data = Path(engram.config.data_dir)
    texts = _texts(seeded)
    assert len(texts) == 42
    CompileService(seeded).compile()
    adir = data / "agents" / "claude"
    assert all((adir / n).is_file() for n in LAYERS)
    # Claude Code wired to its memory.md (what `engram hooks install claude-code` writes)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    claude_md = home / ".claude" / "CLAUDE.md"
    claude_md.write_bytes(b"# Me\n\n- Answer briefly.\n")
    before = {p.name: p.read_bytes() for p in (home / ".claude").iterdir()}
    hooks.apply(hooks.plan_install(seeded, "claude-code", home=home, data_dir=data), data)
    assert b"agents/claude/memory.md" in claude_md.read_bytes()
    assert raw_scan(data, texts[:3])

    engram.trash_agent("claude")
    window.agents_ctl.sync_agents()
    window.act_trash.trigger()
    dlg = window.agents_ctl.trash_dialog
    with qtbot.waitSignal(dlg.changed, timeout=50000):
        answer_modal(
            qtbot,
            lambda: qtbot.mouseClick(dlg.delete_btn, Qt.LeftButton),
            button_text="Delete claude",
        )
    assert dlg.table.rowCount() == 0
    assert engram.trashed_agents() == [] and engram.agents() == []
    bar = window.statusBar()
    said = bar.toolTip() or bar.currentMessage()
    # settings.json, CLAUDE.md, the MCP entry and the daemon's user service (its last agent)
    assert said == "Deleted agent claude for good; Engram's hooks for it removed from 4 file(s).", (
        said
    )

    assert raw_scan(data, texts) == []
    assert not adir.exists()
    assert not [p for p in data.rglob("*") if p.name in LAYERS]
    assert {p.name: p.read_bytes() for p in (home / ".claude").iterdir()} == before
    assert not (home / ".claude.json").exists()
    assert not (home / ".config").exists()  # the unit and the directories made for it
    assert hooks.installed(data) == {}

"""Live two-way sync while the app is open: an agent's edit to MEMORY.md shows up in the
window, and an edit made in the window is written back to the file."""

from __future__ import annotations

from services.store.facts import FactFilters


def _memory_md(entries: list[str]) -> str:
    return (
        "# MEMORY.md\n\n> Durable facts and context. Loaded every session.\n"
        + "".join(f"\n§\n{e}" for e in entries)
        + "\n"
    )


def test_agent_file_edits_are_pulled_and_app_edits_pushed(engram, qtbot, tmp_path):
    from ui.main_window import MainWindow

    ws = tmp_path / "ws"
    (ws / "memories").mkdir(parents=True)
    md = ws / "memories" / "MEMORY.md"
    md.write_text(_memory_md(["[2026-11-01][pref] Prefers pnpm over npm"]), encoding="utf-8")
    engram.add_agent("hermes", kind="hermes", workspace=str(ws))

    w = MainWindow(engram, use_tray=False)
    qtbot.addWidget(w)
    w.show()
    try:
        mem = engram.agent("hermes")
        w.workspaces.poll()  # first look records the files as they are
        # the agent writes a new entry, as Hermes does: a whole new file by rename
        tmp = md.with_suffix(".tmp")
        tmp.write_text(
            _memory_md(
                [
                    "[2026-11-01][pref] Prefers pnpm over npm",
                    "[2026-11-29][env] CI runs on Buildkite",
                ]
            ),
            encoding="utf-8",
        )
        tmp.replace(md)
        with qtbot.waitSignal(w.workspaces.synced, timeout=30000):
            assert w.workspaces.poll() == ["hermes"]
        contents = {f.content for f in mem.list(FactFilters(status="active"))}
        assert "CI runs on Buildkite" in contents

        # an edit in Engram marks the agent dirty and goes back into the file
        fid = next(f.id for f in mem.list() if f.content == "CI runs on Buildkite")
        mem.edit(fid, content="CI runs on GitHub Actions")
        with qtbot.waitSignal(w.workspaces.synced, timeout=30000):
            assert w.workspaces.poll() == ["hermes"]
        text = md.read_text(encoding="utf-8")
        assert "CI runs on GitHub Actions" in text and "Buildkite" not in text
        assert text.startswith("# MEMORY.md\n\n> Durable facts")  # the preamble is kept
        # our own write-back is not mistaken for an agent's edit
        assert w.workspaces.poll() == []
    finally:
        w.shutdown()

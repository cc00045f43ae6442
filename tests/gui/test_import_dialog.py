"""Issue 15, import: folders can be picked, each pick shows its format and counts before
anything is written, a file with siblings says so, and the result stays on screen per file."""

from __future__ import annotations

from tests_gui_helpers import open_tab


def _hermes(tmp_path):
    d = tmp_path / "hermes"
    d.mkdir()
    (d / "MEMORY.md").write_text(
        "User prefers Fish shell\n§\nThe build server is called hopper\n", encoding="utf-8"
    )
    (d / "USER.md").write_text("Name is Dana\n§\nWorks in Lisbon\n", encoding="utf-8")
    return d


def test_import_dialog_previews_files_and_folders_then_reports(window, agent, qtbot, tmp_path):
    from ui.import_dialog import ImportDialog

    d = _hermes(tmp_path)
    bad = tmp_path / "notes.bin"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    open_tab(window, "claude")
    dlg = ImportDialog(window.runner, "claude", parent=window)
    qtbot.addWidget(dlg)
    with qtbot.waitSignal(dlg.previewed, timeout=15000):
        dlg.add_path(str(d / "MEMORY.md"))
    row = dlg.tree.topLevelItem(0)
    assert row.text(2) == "2" and "USER.md beside it" in row.text(4)
    with qtbot.waitSignal(dlg.previewed, timeout=15000):
        dlg.add_path(str(d))
    folder = dlg.tree.topLevelItem(1)
    assert folder.text(1) and folder.text(2) == "4"
    with qtbot.waitSignal(dlg.previewed, timeout=15000):
        dlg.add_path(str(bad))
    assert dlg.tree.topLevelItem(2).text(1) == "not importable"
    assert agent.facts.count() == 0, "the preview wrote something"
    assert dlg.accepted_paths() == [str(d / "MEMORY.md"), str(d)]

    window.imports_ctl.run_import(agent, [str(d)])
    # another job (the agents' re-read, embedding) may finish first: wait for the report
    qtbot.waitUntil(lambda: hasattr(window.imports_ctl, "import_report"), timeout=60000)
    rep = window.imports_ctl.import_report
    assert rep.isVisible() and "4 fact(s) added" in rep.summary.text()
    assert rep.tree.topLevelItem(0).text(1) == "4"
    assert agent.facts.count() == 4
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)

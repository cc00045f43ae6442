"""Issue #30 in the app's forget dialog: the preview is the plan that runs. Unticking a fact
re-plans without it (its line in the project's CLAUDE.md is no longer touched, and the list
stops naming the file), and the receipt shown names the agents' own files rewritten, their
backups and what the check afterwards found. Real store, real model, real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, open_tab

INSTRUCTIONS = """# Project

- Always run the linter before committing.
- Team dinner at Quokka Bakery on Fridays.
- Prefer small pull requests.
"""
KEPT = "Team dinner at Quokka Bakery on Fridays."
GONE = "Lunch orders go to Quokka Bakery on Tuesdays."


@pytest.fixture
def project(home_and_project):
    """A project with a CLAUDE.md; $HOME and the working directory are the test's own (a
    forget also rewrites the agents' files it finds there)."""
    proj = home_and_project[1]
    f = proj / "CLAUDE.md"
    f.write_bytes(INSTRUCTIONS.encode())
    return f


def _forget_dialog(window, qtbot, text):
    open_tab(window, "claude")
    window.tabs.currentWidget().table.clearSelection()
    window.act_forget.trigger()
    dlg = window.privacy_ctl.forget_dialog
    qtbot.keyClicks(dlg.matching, text)
    with qtbot.waitSignal(dlg.previewed, timeout=60000):
        qtbot.mouseClick(dlg.preview_btn, Qt.LeftButton)
    return dlg


def _forget(qtbot, dlg):
    with qtbot.waitSignal(dlg.forgotten, timeout=90000):
        answer_modal(
            qtbot, lambda: qtbot.mouseClick(dlg.execute_btn, Qt.LeftButton), button_text="Yes"
        )


def _fact_items(dlg) -> dict[str, object]:
    top = dlg.items.topLevelItem(0)
    kids = [top.child(i) for i in range(top.childCount())]
    return {k.toolTip(0): k for k in kids if k.data(0, Qt.UserRole) is not None}


@pytest.mark.parametrize("wait", [True, False], ids=["plan-shown", "forget-at-once"])
def test_untick_replans_and_the_kept_facts_claude_md_line_stays(
    project, window, agent, qtbot, wait
):
    agent.import_path(project)
    agent.remember(GONE)
    dlg = _forget_dialog(window, qtbot, "Quokka Bakery")
    assert str(project) in dlg.preview_text.toPlainText()  # the kept line would go
    items = _fact_items(dlg)
    assert set(items) == {KEPT, GONE}
    dlg.items.setFocus()
    dlg.items.setCurrentItem(items[KEPT])
    if wait:
        with qtbot.waitSignal(dlg.replanned, timeout=60000):
            qtbot.keyClick(dlg.items, Qt.Key_Space)  # untick: keep it
        assert str(project) not in dlg.preview_text.toPlainText(), "the file is not touched"
    else:  # Forget pressed before the new plan is back: it waits for it
        qtbot.keyClick(dlg.items, Qt.Key_Space)
    _forget(qtbot, dlg)
    assert project.read_bytes() == INSTRUCTIONS.encode()
    left = [f.content for f in agent.list()]
    assert KEPT in left and GONE not in left
    assert "Checked afterwards: nothing remains" in dlg.preview_text.toPlainText()
    dlg.close()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)


def test_receipt_names_native_files_backups_and_the_check(project, window, agent, qtbot):
    agent.import_path(project)
    dlg = _forget_dialog(window, qtbot, "Quokka Bakery")
    _forget(qtbot, dlg)
    assert project.read_bytes() == INSTRUCTIONS.replace(f"- {KEPT}\n", "").encode()
    receipt = dlg.preview_text.toPlainText()
    lines = receipt.splitlines()
    i = lines.index("Agents' own files rewritten without it: 1")
    assert lines[i + 1].strip() == str(project)
    j = lines.index("Backups kept of them (forgotten lines replaced by a marker):")
    backup = Path(lines[j + 1].strip())
    assert backup.is_file() and "Prefer small pull requests." in backup.read_text("utf-8")
    assert "Quokka" not in backup.read_text("utf-8")
    assert any(ln.startswith("Checked afterwards: nothing remains") for ln in lines), receipt
    dlg.close()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)

"""File → Remove agent (issue 24, item 1): the menu path asks first, naming the agent and its
fact count with No as the default (Enter keeps it), the removal is undoable from the status
bar's notice, and File → Trash restores or deletes for good; the CLI has the same verbs."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from tests_gui_helpers import answer_modal, open_tab


def _trigger_remove(window):
    # the real menu item (its triggered(checked=False) used to land in confirm=False)
    return window.act_remove_agent.trigger()


def test_menu_remove_asks_with_name_and_count_and_enter_keeps_it(window, seeded, qtbot):
    open_tab(window, "claude")
    n = len(seeded.list())

    def check(box):
        assert box.defaultButton() is box.button(QMessageBox.No)

    (title, text, _info), _ = answer_modal(
        qtbot, lambda: _trigger_remove(window), check=check, key=Qt.Key_Return
    )
    assert "claude" in text and f"{n:,} fact" in text
    qtbot.wait(200)
    assert "claude" in window.agent_tabs
    assert [a.slug for a in window.engram.agents()] == ["claude"]
    assert len(seeded.list()) == n


def test_remove_then_notice_undo_restores_every_fact(window, seeded, qtbot):
    open_tab(window, "claude")
    before = sorted((f.id, f.content) for f in seeded.list())
    with qtbot.waitSignal(window.agents_changed, timeout=15000):
        answer_modal(qtbot, lambda: _trigger_remove(window), button_text="Remove claude")
    assert "claude" not in window.agent_tabs
    assert window.engram.agents() == []
    assert [t.slug for t in window.engram.trashed_agents()] == ["claude"]
    assert "Removed agent claude (42 facts)" in window.notice.text()
    # switch to another tab first: the notice still acts on the removal it names
    window.tabs.setCurrentIndex(0)
    with qtbot.waitSignal(window.agents_changed, timeout=15000):
        qtbot.mouseClick(window.notice.action_btn, Qt.LeftButton)
    qtbot.waitUntil(lambda: "claude" in window.agent_tabs, timeout=15000)
    mem = window.engram.agent("claude")
    assert sorted((f.id, f.content) for f in mem.list()) == before
    assert window.engram.trashed_agents() == []


def test_trash_dialog_restores_after_the_undo_step_is_gone(window, seeded, qtbot, engram):
    engram.trash_agent("claude")  # e.g. removed in an earlier session, or from the CLI
    window.sync_agents()
    assert "claude" not in window.agent_tabs
    window.act_trash.trigger()
    dlg = window.trash_dialog
    assert dlg.table.rowCount() == 1 and dlg.table.item(0, 0).text() == "claude"
    assert dlg.table.item(0, 1).text() == "42"
    with qtbot.waitSignal(dlg.changed, timeout=15000):
        qtbot.mouseClick(dlg.restore_btn, Qt.LeftButton)
    assert "claude" in window.agent_tabs
    assert len(engram.agent("claude").list()) == 42


def test_trash_delete_for_good_asks_and_enter_does_not_delete(window, seeded, qtbot, engram):
    engram.trash_agent("claude")
    window.act_trash.trigger()
    dlg = window.trash_dialog
    (_t, text, info), _ = answer_modal(
        qtbot, lambda: qtbot.mouseClick(dlg.delete_btn, Qt.LeftButton), key=Qt.Key_Return
    )
    assert "claude" in text and "42" in text and "cannot be undone" in info
    from services import EMPTY_TRASH

    assert EMPTY_TRASH.what in info  # the words `engram agent trash --empty` prints
    assert [t.slug for t in engram.trashed_agents()] == ["claude"]
    with qtbot.waitSignal(dlg.changed, timeout=15000):
        answer_modal(
            qtbot,
            lambda: qtbot.mouseClick(dlg.delete_btn, Qt.LeftButton),
            button_text="Delete claude",
        )
    assert engram.trashed_agents() == [] and engram.agents() == []


def test_cli_remove_trash_restore(cli):
    assert cli("agent", "add", "bot")[0] == 0
    fid = cli("remember", "--agent", "bot", "Deploys from the main branch")[1].strip()
    rc, out, _ = cli("agent", "remove", "bot")
    assert rc == 0 and "1 facts" in out and "engram agent restore bot" in out
    assert "bot" not in cli("agents")[1]
    rc, out, _ = cli("agent", "trash", "--json")
    assert [(t["slug"], t["fact_count"]) for t in json.loads(out)] == [("bot", 1)]
    rc, _out, err = cli("remember", "--agent", "bot", "another")
    assert rc == 1 and "trash" in err and "Traceback" not in err
    assert cli("agent", "restore", "bot")[0] == 0
    assert json.loads(cli("show", fid, "--json")[1])["content"] == "Deploys from the main branch"
    cli("agent", "remove", "bot")
    rc, out, _ = cli("agent", "trash", "--empty", "--yes")
    assert rc == 0 and "bot" in out
    assert cli("agent", "restore", "bot")[0] == 1
    assert cli("show", fid)[0] == 1

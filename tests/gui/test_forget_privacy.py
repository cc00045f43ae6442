"""Issue 15, forget: the safe button is the default, the receipt is shown in the dialog (it
used to close before it could be read), all-agents and before-date scopes, a Privacy view of
receipts and rules, and the app's own forget is not reported as an outside edit."""

from __future__ import annotations

from datetime import date

from PySide6.QtWidgets import QMessageBox
from tests_gui_helpers import open_tab


def test_forget_defaults_to_safe_and_keeps_the_receipt_on_screen(
    window, seeded, qtbot, monkeypatch
):
    asked = []

    def question(*a):
        asked.append(a)
        return QMessageBox.Yes

    monkeypatch.setattr(QMessageBox, "question", question)
    tab = open_tab(window, "claude")
    fid = next(f.id for f in seeded.list() if f.content.startswith("Prefers PostgreSQL"))
    tab.select_ids([fid], current=fid)
    window.act_forget.trigger()
    dlg = window.privacy_ctl.forget_dialog
    assert dlg.close_btn.isDefault() and not dlg.execute_btn.isDefault()
    with qtbot.waitSignal(dlg.previewed, timeout=30000):
        dlg.preview_btn.click()
    with qtbot.waitSignal(dlg.forgotten, timeout=60000):
        dlg.execute_btn.click()
    assert asked[0][-1] == QMessageBox.No, "the confirmation must default to No"
    assert dlg.isVisible(), "the dialog closed before its receipt could be read"
    assert dlg.preview_text.toPlainText().startswith("Receipt #")
    assert seeded.facts.rows([fid]) == {}

    privacy = window.privacy_ctl.open_privacy()
    assert privacy.receipts.rowCount() == 1 and privacy.rules.rowCount() == 1
    privacy.rules.selectRow(0)
    privacy.remove_selected(confirm=False)
    assert privacy.rules.rowCount() == 0
    assert seeded.remember("Prefers PostgreSQL over MySQL for new services").status == "added"
    dlg.close()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)


def test_forget_scopes_all_agents_and_before_a_date(window, seeded, qtbot):
    from ui.forget_dialog import ForgetDialog

    dlg = ForgetDialog(window.engram, window.runner, "claude", [], window)
    qtbot.addWidget(dlg)
    dlg.matching.setText("PostgreSQL")
    dlg.all_agents.setChecked(True)
    s = dlg.scope()
    assert s.all_agents and s.agent is None and s.matching == "PostgreSQL"
    dlg.before.setDate(dlg.before.date().fromString("2026-10-10", "yyyy-MM-dd"))
    s = dlg.scope()
    assert s.before == date(2026, 10, 10) and s.agent == "claude" and not s.matching


def test_the_apps_own_forget_is_not_an_outside_edit(engram, qtbot, tmp_path, monkeypatch):
    from ui.main_window import MainWindow

    ws = tmp_path / "ws"
    (ws / "memories").mkdir(parents=True)
    md = ws / "memories" / "MEMORY.md"
    md.write_text(
        "# MEMORY.md\n\n§\n[2026-11-01][pref] Prefers pnpm over npm\n§\n"
        "[2026-11-02][env] Deploys with Kamal\n",
        encoding="utf-8",
    )
    engram.add_agent("hermes", kind="hermes", workspace=str(ws))
    w = MainWindow(engram, use_tray=False)
    qtbot.addWidget(w)
    w.show()
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.Yes)
    try:
        mem = engram.agent("hermes")
        with qtbot.waitSignal(w.workspaces.synced, timeout=30000):
            w.workspaces.poll()  # the first look imports the file
            w.workspaces._signatures.pop("hermes", None)
            w.workspaces._sync("hermes")
        w.statusBar().clearMessage()  # the first import said "2 change(s)": that is fine
        tab = open_tab(w, "hermes")
        fid = next(f.id for f in mem.list() if "Kamal" in f.content)
        tab.select_ids([fid], current=fid)
        w.privacy_ctl.forget()
        dlg = w.privacy_ctl.forget_dialog
        with qtbot.waitSignal(dlg.previewed, timeout=30000):
            dlg.preview_btn.click()
        dlg.started.connect(lambda: w.workspaces.poll())  # a tick while the forget runs
        with qtbot.waitSignal(dlg.forgotten, timeout=60000):
            dlg.execute_btn.click()
        assert "Kamal" not in md.read_text(encoding="utf-8")
        assert w.workspaces.poll() == [], "the app's own forget was taken for an agent's edit"
        assert "from the workspace" not in w.statusBar().currentMessage()
        dlg.close()
        qtbot.waitUntil(lambda: not w.runner.is_busy(), timeout=15000)
    finally:
        w.shutdown()

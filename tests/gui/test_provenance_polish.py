"""Issue 15: provenance in the editor, readable history, an Add fact action, compiled lines
that open their facts."""

from __future__ import annotations

from tests_gui_helpers import open_tab, wait_write

from services import CompileService, NewFact


def test_the_editor_says_who_wrote_the_fact_and_history_reads_as_text(window, agent, qtbot):
    (r,) = agent.remember_many(
        [NewFact("Deploys go through Kamal", category="env")], actor="mcp:cursor"
    )
    agent.edit(r.fact_id, importance=0.9)
    tab = open_tab(window, "claude")
    tab.show_fact(r.fact_id)
    text = tab.editor.provenance.text()
    assert "Written by</b> the MCP client cursor" in text and "last edited by you" in text
    tips = [tab.editor.history.topLevelItem(i).toolTip(1) for i in range(2)]
    assert "importance: 0.5 → 0.9" in tips[0]
    assert not any(t.lstrip().startswith("{") for t in tips), "history tooltip is raw JSON"


def test_add_fact_action_is_undoable(window, agent, qtbot):
    tab = open_tab(window, "claude")
    assert window.act_add_fact.isEnabled()
    with wait_write(qtbot, tab):
        tab.add_fact("Prefers tabs over spaces in Go")
    (f,) = agent.list()
    assert f.content == "Prefers tabs over spaces in Go" and f.source == "manual"
    assert tab.selected_ids() == [f.id] and tab.editor.fact.id == f.id
    assert window.notice.text().startswith("Added fact")
    assert "Written by</b> you" in tab.editor.provenance.text()
    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    assert agent.list() == []
    with wait_write(qtbot, tab):
        window.act_redo.trigger()
    assert agent.get(f.id).content == f.content


def test_a_compiled_line_opens_its_facts(window, seeded, qtbot):
    CompileService(seeded).compile()
    tab = open_tab(window, "claude")
    tab.show_view("Compiled")
    pane = tab.compiled.panes["memory"]
    row = next(i for i in range(pane.lines.count()) if pane.facts_of_line(i))
    ids = pane.facts_of_line(row)
    pane.lines.setCurrentRow(row)
    pane._open_line(pane.lines.item(row))
    assert tab.views.currentIndex() == 0
    assert sorted(tab.selected_ids()) == sorted(i for i in ids if tab.model.row_of(i) is not None)
    assert tab.editor.fact is not None and tab.editor.fact.id in ids


def test_settings_speak_plainly_and_the_wheel_does_not_change_values(engram, qtbot):
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication, QLabel

    from ui.settings_dialog import SettingsDialog

    class NoKeyring:
        def status(self):
            return True, "test", "A test keyring (the OS one is outside the product)."

        def get(self, _k):
            return None

    dlg = SettingsDialog(engram, secrets=NoKeyring())
    qtbot.addWidget(dlg)
    dlg.show()
    labels = [w.text() for w in dlg.findChildren(QLabel)]
    assert "Archive below importance" in labels and "min_importance" not in " ".join(labels)
    assert any(t.startswith("A memory whose importance falls below") for t in labels)
    spin = dlg.editors["short_term_cap"]
    before = spin.value()
    dlg.buttons.setFocus()
    ev = QWheelEvent(
        QPointF(5, 5),
        QPointF(spin.mapToGlobal(QPoint(5, 5))),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.NoButton,
        Qt.NoModifier,
        Qt.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(spin, ev)
    assert spin.value() == before, "the wheel changed an unfocused setting"


def test_geometry_split_columns_and_palette_are_remembered(engram, seeded, qtbot):
    from PySide6.QtWidgets import QApplication

    from ui.main_window import MainWindow

    app = QApplication.instance()
    palette = app.palette()
    w = MainWindow(engram, use_tray=False)
    qtbot.addWidget(w)
    w.show()
    try:
        w.resize(770, 540)  # the offscreen screen is 800x600: restoreGeometry clamps to it
        tab = open_tab(w, "claude")
        tab.splitter.setSizes([500, 420])
        tab.table.horizontalHeader().resizeSection(1, 141)
        sizes = tab.splitter.sizes()
        w.act_dark.setChecked(True)
        w.shutdown()
        assert MainWindow.remembered_dark() is True
        w2 = MainWindow(engram, use_tray=False)
        qtbot.addWidget(w2)
        w2.show()
        try:
            assert abs(w2.width() - 770) <= 8 and abs(w2.height() - 540) <= 8
            t2 = w2.agent_tabs["claude"]
            assert t2.splitter.sizes() == sizes
            assert t2.table.horizontalHeader().sectionSize(1) == 141
        finally:
            w2.shutdown()
    finally:
        app.setPalette(palette)


def test_the_agent_tab_tooltip_follows_the_count(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    i = window.tabs.indexOf(tab)
    assert window.tabs.tabToolTip(i).startswith("42 active facts")
    seeded.remember("Uses Fedora on the laptop")
    with qtbot.waitSignal(tab.refreshed, timeout=15000):
        window.agents_ctl.on_store_changed()
    assert window.tabs.tabToolTip(i).startswith("43 active facts")


def test_the_window_is_usable_at_900_by_600(window, seeded, qtbot):
    window.resize(900, 600)
    tab = open_tab(window, "claude")
    qtbot.waitUntil(lambda: window.width() <= 900, timeout=2000)
    fb = tab.filter_bar
    assert fb.is_two_rows()  # the dates go under the other filters instead of being cut
    for w in (fb.since, fb.until):
        assert w.width() >= w.sizeHint().width() - 2, "a date field is cut"
    assert tab.editor.save_btn.isVisible() and tab.delete_btn.width() > 0
    assert window.minimumSizeHint().width() <= 900 and window.minimumSizeHint().height() <= 600
    assert window.height() <= 600

"""Issue 24, items 9-12: the smaller trust items, each through the real widget path: Enter
never confirms a bulk delete, Pin/Unpin follow the selection's state, F1 lists the keys that
live in widgets, settings have words not field names, New agent checks the name as it is
typed and keeps it when the store refuses, Find my agents is in the File menu once agents
exist."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, open_tab


def test_enter_never_confirms_a_bulk_delete(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    tab.table.selectAll()
    n = len(tab.selected_ids())
    assert n > 20
    (_t, text, _i), _ = answer_modal(qtbot, window.act_delete.trigger, key=Qt.Key_Return)
    assert f"Delete {n} facts?" in text
    qtbot.wait(200)
    assert len(seeded.list()) == 42


def test_pin_and_unpin_are_on_only_when_they_change_something(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    pinned = next(f.id for f in seeded.list() if f.pinned)
    loose = next(f.id for f in seeded.list() if not f.pinned)
    tab.select_ids([pinned], current=pinned)
    assert not window.act_pin.isEnabled() and window.act_unpin.isEnabled()
    assert not tab.pin_btn.isEnabled() and tab.unpin_btn.isEnabled()
    tab.select_ids([loose], current=loose)
    assert window.act_pin.isEnabled() and not window.act_unpin.isEnabled()
    tab.select_ids([loose, pinned], current=loose)
    assert window.act_pin.isEnabled() and window.act_unpin.isEnabled()


def test_f1_lists_save_compile_gc_and_review_keys(window, qtbot):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    f1 = next(a for a in help_menu.actions() if a.shortcut().toString() == "F1")
    (_t, text, _i), _ = answer_modal(qtbot, f1.trigger, key=Qt.Key_Return)
    for needle in (
        "Ctrl+S",
        "Compile now",
        "Ctrl+Shift+C",
        "Run GC",
        "Ctrl+Shift+G",
        "A / E / N / R",
    ):
        assert needle in text, needle


def test_settings_show_words_not_field_names(window, qtbot):
    from PySide6.QtWidgets import QLabel

    seen = {}

    def read(dlg):
        seen["labels"] = [lab.text() for lab in dlg.findChildren(QLabel)]

    answer_modal(qtbot, window.act_settings.trigger, check=read, button_text="Cancel")
    labels = seen["labels"]
    assert "Ask me when less sure than" in labels and "Check the model's facts first" in labels
    assert not {"Llm review", "Review below"} & set(labels)


def test_new_agent_checks_as_you_type_and_keeps_the_name(window, engram, qtbot):
    engram.add_agent("claude")
    engram.add_agent("old-bot")
    engram.trash_agent("old-bot")
    window.agents_ctl.sync_agents()
    seen = {}

    def type_names(dlg):
        qtbot.keyClicks(dlg.name, "My Bot")
        seen["upper"] = (dlg.problem.text(), dlg.ok_btn.isEnabled())
        dlg.name.clear()
        qtbot.keyClicks(dlg.name, "claude")
        seen["taken"] = (dlg.problem.text(), dlg.ok_btn.isEnabled())
        dlg.name.clear()
        qtbot.keyClicks(dlg.name, "old-bot")  # in the trash: the store refuses it
        qtbot.mouseClick(dlg.ok_btn, Qt.LeftButton)
        seen["refused"] = (dlg.isVisible(), dlg.name.text(), dlg.problem.text())
        dlg.name.clear()
        qtbot.keyClicks(dlg.name, "research-bot")

    answer_modal(qtbot, window.act_add_agent.trigger, check=type_names, button_text="Create")
    assert "space" in seen["upper"][0] and not seen["upper"][1]
    assert "already" in seen["taken"][0] and not seen["taken"][1]
    visible, kept, why = seen["refused"]
    assert visible and kept == "old-bot" and "trash" in why
    assert "research-bot" in window.agent_tabs
    assert window.current_agent_tab() is window.agent_tabs["research-bot"]


def test_find_my_agents_is_in_the_file_menu_once_agents_exist(
    window, engram, qtbot, tmp_path, monkeypatch
):
    home = tmp_path / "home"
    (home / ".hermes" / "memories").mkdir(parents=True)
    (home / ".hermes" / "memories" / "MEMORY.md").write_text("Uses fish\n§\nDeploys with Kamal\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    engram.add_agent("claude")
    window.agents_ctl.sync_agents()
    assert window.startup_ctl.welcome is None
    window.act_find_agents.trigger()
    assert (
        window.startup_ctl.welcome is not None
        and window.tabs.currentWidget() is window.startup_ctl.welcome
    )
    qtbot.waitUntil(
        lambda: window.startup_ctl.welcome.status.text().startswith("Found 1 source(s)"),
        timeout=30000,
    )
    window.agents_ctl.sync_agents()  # a store change meanwhile must not take the page away
    assert window.startup_ctl.welcome is not None


def test_at_900x600_the_content_column_gets_the_room(window, seeded, qtbot):
    window.resize(900, 600)
    tab = open_tab(window, "claude")
    qtbot.waitUntil(lambda: tab.width() < 1000, timeout=5000)
    qtbot.wait(50)
    content = tab.table.columnWidth(0)
    chars = content // tab.table.fontMetrics().horizontalAdvance("x")
    assert chars >= 40, f"Content shows about {chars} characters"
    assert content >= 0.45 * tab.table.viewport().width()
    # a status filter other than "active": the Status column comes back
    with qtbot.waitSignal(tab.model.reloaded, timeout=15000):
        tab.filter_bar.status.setCurrentText("archived")
    assert not tab.table.isColumnHidden(7)


def test_search_says_when_more_match_and_shows_more(window, agent, qtbot, monkeypatch):
    from services import NewFact
    from ui import search_panel

    monkeypatch.setattr(search_panel, "PAGE", 5)
    agent.remember_many(
        [NewFact(f"Deploy note {i}: the deploy of service {i} goes through CI") for i in range(12)],
        near_duplicate=None,
    )
    window.agents_ctl.sync_agents()
    tab = window.agent_tabs["claude"]
    tab.search.page = tab.search.k = 5
    window.tabs.setCurrentWidget(tab)
    with qtbot.waitSignal(tab.search.results_ready, timeout=30000):
        qtbot.keyClicks(tab.search.query, "deploy")
        qtbot.keyClick(tab.search.query, Qt.Key_Return)
    assert tab.search.model.rowCount() == 5
    assert tab.search.status.text() == "Showing the best 5; more match"
    assert tab.search.more_btn.isVisible()
    with qtbot.waitSignal(tab.search.results_ready, timeout=30000):
        qtbot.mouseClick(tab.search.more_btn, Qt.LeftButton)
    assert tab.search.model.rowCount() == 10
    # the "Why it ranked" bars are as long as the score against the best hit's
    from ui.search_results import SHARES_ROLE

    col = tab.search.model.cols.index("Why it ranked")
    lengths = [sum(tab.search.model.index(r, col).data(SHARES_ROLE).values()) for r in range(10)]
    assert abs(lengths[0] - 1.0) < 1e-6 and lengths[-1] < lengths[0]


def test_timeline_says_year_and_whose_time_and_labels_stay_off_the_bars(window, agent, qtbot):
    from datetime import date, timedelta

    from PySide6.QtGui import QColor

    start = date(2026, 9, 20)
    for i in range(30):
        for _ in range(1 + i % 3):
            agent.add_episode(start + timedelta(days=i), f"Worked on thing {i}.", time="9:15 AM")
    tab = open_tab(window, "claude")
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    next(a for a in view_menu.actions() if a.text() == "Timeline").trigger()
    tl = tab.timeline
    assert "2026" in tl.count.text() and "local time" in tl.count.text()
    assert "local time" in tl.tree.headerItem().text(0)
    tl.strip.resize(600, 64)
    img = tl.strip.grab().toImage()
    band = tl.strip.fontMetrics().height() + 2
    green = QColor("#22c55e").rgb()
    in_band = [(x, y) for y in range(band) for x in range(img.width()) if img.pixel(x, y) == green]
    assert in_band == [], "a bar reaches into the month labels"
    assert any(img.pixel(x, img.height() - 5) == green for x in range(img.width()))


def test_transcripts_are_imported_from_the_file_menu(window, agent, qtbot, tmp_path):
    import shutil
    from pathlib import Path

    tree = tmp_path / "codex-sessions"
    shutil.copytree(
        Path(__file__).resolve().parents[1] / "lifecycle" / "fixtures" / "codex" / "sessions", tree
    )
    open_tab(window, "claude")

    def pick(dlg):
        dlg.setDirectory(str(tree))
        dlg.selectFile(str(tree))

    answer_modal(qtbot, window.act_transcripts.trigger, check=pick, button_text="Choose")
    qtbot.waitUntil(lambda: hasattr(window.imports_ctl, "last_transcripts"), timeout=60000)
    assert "read 1 new session(s)" in window.imports_ctl.last_transcripts
    assert "1 episode(s)" in window.imports_ctl.last_transcripts
    assert any("cp1252" in f.content for f in agent.list())


def test_category_filter_lists_counts_and_filters_on_the_bare_name(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    combo = tab.filter_bar.category
    qtbot.waitUntil(lambda: combo.findData("pref") >= 0 and "(" in combo.itemText(1), timeout=15000)
    pref = combo.findData("pref")
    n = len([f for f in seeded.list() if f.category == "pref"])
    assert combo.itemText(pref) == f"pref ({n})"
    with qtbot.waitSignal(tab.model.reloaded, timeout=15000):
        combo.setCurrentIndex(pref)
    assert tab.model.total_count() == n


def test_provenance_says_a_cli_write_came_from_the_engram_command(window, engram, qtbot):
    import subprocess
    import sys

    engram.add_agent("claude")
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(engram.config.data_dir)]
        + ["remember", "--agent", "claude", "Uses Helix as the editor"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    fid = int(out.stdout.strip())
    tab = open_tab(window, "claude")
    r = tab.model.row_of(fid)
    qtbot.mouseClick(
        tab.table.viewport(),
        Qt.LeftButton,
        pos=tab.table.visualRect(tab.model.index(r, 0)).center(),
    )
    text = tab.editor.provenance.text()
    assert "Written by</b> the engram command" in text and "Written by</b> you" not in text


def test_try_the_demo_shows_its_tabs_only_when_complete(keyword_engram, qtbot):
    """Store changes while the demo is written (the watcher's ticks) do not put half-made
    demo tabs up nor take the Welcome page away; no wait for the language model."""
    from PySide6.QtCore import QTimer

    from ui.main_window import MainWindow

    MainWindow.demo_facts = 40
    w = MainWindow(keyword_engram, use_tray=False)
    qtbot.addWidget(w)
    w.show()
    seen = []
    w.agents_changed.connect(lambda: seen.append((len(w.agent_tabs), w.startup_ctl.demo_running)))
    tick = QTimer()
    tick.timeout.connect(w.agents_ctl.on_store_changed)  # what the store watcher does on each write
    try:
        tick.start(20)
        qtbot.mouseClick(w.startup_ctl.welcome.demo_btn, Qt.LeftButton)
        assert w.startup_ctl.demo_running
        qtbot.waitUntil(
            lambda: not w.startup_ctl.demo_running and len(w.agent_tabs) == 4, timeout=120000
        )
        tick.stop()
        assert [n for n, running in seen if running and n] == [], "tabs appeared mid-demo"
        assert not keyword_engram.semantic_enabled, "the demo waited for the language model"
        assert w.tabs.tabText(w.tabs.currentIndex()).startswith("Demo ·")
        qtbot.waitUntil(lambda: not w.runner.is_busy(), timeout=30000)
    finally:
        tick.stop()
        MainWindow.demo_facts = 300
        w.shutdown()

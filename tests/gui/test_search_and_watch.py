"""Search in a worker with signal shares, the All agents tab, and the store watcher picking
up a fact written by another process (the CLI, as an agent's hook would run it)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import open_tab

from tests.processes import run_engram


def _remember_elsewhere(engram, *args: str):
    """`engram remember ARGS…` in a process of its own, as an agent's hook runs it."""
    return run_engram("app.cli", "--data-dir", str(engram.config.data_dir), "remember", *args)


def test_search_runs_in_worker_and_shows_signal_shares(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    window.act_find.trigger()
    assert tab.search.query.hasFocus()
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        qtbot.keyClicks(tab.search.query, "database for new services")
    assert tab.stack.currentIndex() == 1, "results replace the browser while searching"
    hits = tab.search.model.hits
    assert hits[0][1].fact.content == "Prefers PostgreSQL over MySQL for new services"
    why_col = tab.search.model.cols.index("Why it ranked")
    why = tab.search.model.data(tab.search.model.index(0, why_col))
    assert "keyword" in why and "semantic" in why
    shares = tab.search.model.data(tab.search.model.index(0, why_col), Qt.UserRole + 2)
    assert abs(sum(shares.values()) - 1.0) < 1e-6 and shares["keyword"] > 0
    # keyword-only: the semantic signal contributes nothing
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        tab.search.mode_buttons["keyword"].click()
    assert all(h.signals["semantic"] == 0 for _, h in tab.search.model.hits)
    # semantic-only finds it by meaning without the word
    tab.search.query.setText("which relational database engine is favoured")
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        tab.search.mode_buttons["semantic"].click()
    top = tab.search.model.hits[0][1]
    assert top.fact.content.startswith("Prefers PostgreSQL") and top.signals["keyword"] == 0
    # picking a hit opens it in the editor
    tab.search.table.selectRow(0)
    assert tab.editor.fact.id == top.fact.id
    # the filter bar applies to search too
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        tab.filter_bar.category.setCurrentText("env")
    assert {h.fact.category for _, h in tab.search.model.hits} == {"env"}
    tab.search.query.clear()
    assert tab.stack.currentIndex() == 0


def test_all_agents_search_opens_hit_in_its_tab(window, engram, seeded, qtbot):
    other = engram.agent("cursor", create=True)
    fid = other.remember("The frontend uses Vite with React", category="proj:web").fact_id
    window.agents_ctl.sync_agents()
    window.tabs.setCurrentIndex(0)
    panel = window.all_tab.search
    with qtbot.waitSignal(panel.results_ready, timeout=15000):
        panel.query.setText("Vite React frontend")
    slug, hit = panel.model.hits[0]
    assert (slug, hit.fact.id) == ("cursor", fid)
    assert panel.model.data(panel.model.index(0, 0)) == "cursor"
    panel.table.setFocus()
    panel.table.selectRow(0)  # a click previews the hit in place
    assert window.tabs.currentIndex() == 0
    assert window.all_tab.preview.fact.id == fid
    assert window.all_tab.preview.title.text().startswith("<b>cursor</b>")
    qtbot.keyClick(panel.table, Qt.Key_Return)  # Enter opens it in its agent's tab
    assert window.current_agent_tab() is window.agent_tabs["cursor"]
    assert window.agent_tabs["cursor"].editor.fact.id == fid


def test_fact_from_another_process_appears_keeping_selection(window, engram, seeded, qtbot):
    tab = open_tab(window, "claude")
    tab.table.selectRow(3)
    keep = tab.model.id_at(3)
    before = tab.model.rowCount()
    out = _remember_elsewhere(
        engram, "--agent", "claude", "The staging database is restored every Sunday night"
    )
    assert out.returncode == 0, out.stderr
    new_id = int(out.stdout.strip().splitlines()[0])
    qtbot.waitUntil(lambda: tab.model.row_of(new_id) is not None, timeout=10000)
    assert tab.model.rowCount() == before + 1
    assert tab.model.fact_at(tab.model.row_of(new_id)).content.startswith("The staging database")
    assert tab.selected_ids() == [keep], "the user's selection survived the refresh"
    assert tab.editor.fact.id == keep
    assert tab.count_label.text() == f"{before + 1} active facts"


def test_new_agent_from_another_process_gets_a_tab(window, engram, qtbot):
    out = _remember_elsewhere(engram, "--agent", "hermes", "--create-agent", "Standup is at 9:30")
    assert out.returncode == 0, out.stderr
    qtbot.waitUntil(lambda: "hermes" in window.agent_tabs, timeout=10000)
    assert window.agent_tabs["hermes"].model.rowCount() == 1

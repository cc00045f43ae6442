"""The fact browser over a real store: lazy paging, sorting, filters, model invariants."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import open_tab, reloaded

from services.store.facts import FactFilters
from ui import fact_model
from ui.fact_model import FactTableModel


def test_fact_model_passes_qtmodeltester(seeded, qtmodeltester, monkeypatch):
    monkeypatch.setattr(fact_model, "PAGE", 10)  # several fetchMore rounds over 42 facts
    model = FactTableModel(seeded)
    assert model.rowCount() == 10
    qtmodeltester.check(model, force_py=True)  # the tester pages with fetchMore itself
    while model.canFetchMore():  # the tester stays connected and checks every insert
        model.fetchMore()
    assert model.rowCount() == 42
    assert len(set(model._ids)) == 42, "no fact listed twice"


def test_model_loads_pages_lazily_and_sort_requeries(seeded, monkeypatch):
    monkeypatch.setattr(fact_model, "PAGE", 10)
    model = FactTableModel(seeded)
    assert model.rowCount() == 10 and model.canFetchMore()
    # only the first page of rows was read from the store
    assert len(model._cache) == 10
    # newest first by default
    assert model.fact_at(0).content.startswith("The deploy pipeline")
    model.fetchMore()
    assert model.rowCount() == 20
    model.sort(3, Qt.DescendingOrder)  # importance
    assert model.rowCount() == 10, "a re-sort starts over with one page"
    top = model.fact_at(0).importance
    assert top == max(f.importance for f in seeded.list())
    model.sort(3, Qt.AscendingOrder)
    assert model.fact_at(0).importance == min(f.importance for f in seeded.list())


def test_browse_scroll_filter_and_count(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    assert tab.model.rowCount() == 42
    assert tab.count_label.text() == "42 active facts"
    # filter: pinned preferences only
    with reloaded(qtbot, tab):
        tab.filter_bar.category.setCurrentText("pref")
    assert {tab.model.fact_at(r).category for r in range(tab.model.rowCount())} == {"pref"}
    with reloaded(qtbot, tab):
        tab.filter_bar.pinned.setCurrentText("Pinned")
    rows = [tab.model.fact_at(r) for r in range(tab.model.rowCount())]
    assert rows and all(f.pinned and f.category == "pref" for f in rows)
    assert "match the filters" in tab.count_label.text()
    # a prefix category matches every project
    with reloaded(qtbot, tab):
        tab.filter_bar.clear()
    with reloaded(qtbot, tab):
        tab.filter_bar.category.setCurrentText("proj:")
    assert tab.model.rowCount() == seeded.facts.count(FactFilters(category="proj:"))
    assert tab.model.rowCount() > 0
    with reloaded(qtbot, tab):
        tab.filter_bar.clear()
    assert tab.model.rowCount() == 42
    # clicking a header sorts through the store
    with reloaded(qtbot, tab):
        tab.table.horizontalHeader().setSortIndicator(3, Qt.DescendingOrder)
    assert tab.model.fact_at(0).importance == max(f.importance for f in seeded.list())
    # selecting a row shows it in the editor with its history
    tab.table.selectRow(2)
    fact = tab.model.fact_at(2)
    assert tab.editor.fact.id == fact.id
    assert tab.editor.content.toPlainText() == fact.content
    assert tab.editor.history.topLevelItemCount() >= 1


def test_scrolling_reads_ahead_in_a_worker(window, seeded, qtbot, monkeypatch):
    """With small pages, scrolling to the end goes through several background read-aheads
    and shows every fact exactly once, in order."""
    monkeypatch.setattr(fact_model, "PAGE", 5)
    monkeypatch.setattr(fact_model, "CHUNK", 8)
    model = FactTableModel(seeded, runner=window.runner)
    assert model.rowCount() == 5 and len(model._buffer) == 8

    def scroll():
        if model.canFetchMore():
            model.fetchMore()
        return not model.canFetchMore() and not window.runner.is_busy()

    qtbot.waitUntil(scroll, timeout=15000)
    ids = [model.id_at(r) for r in range(model.rowCount())]
    assert ids == seeded.facts.ids(order="-created_at")


def test_tab_order_walks_search_filters_table_editor_actions(window, seeded, qtbot):
    from PySide6.QtWidgets import QApplication

    tab = open_tab(window, "claude")
    tab.table.selectRow(0)
    tab.search.query.setFocus()
    seen = []
    for _ in range(24):
        seen.append(QApplication.focusWidget())
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Tab)
    order = [
        tab.search.query,
        tab.filter_bar.category,
        tab.table,
        tab.editor.content,
        tab.editor.tags,
        tab.pin_btn,
        tab.delete_btn,
    ]
    positions = [seen.index(w) for w in order]
    assert positions == sorted(positions), positions
    assert seen.count(tab.table) == 1, "Tab leaves the table instead of walking its cells"

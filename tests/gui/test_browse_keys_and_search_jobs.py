"""The fact browser from the keyboard in an active window, and search typed key by key: one
search per pause in the typing, and an older query's answer never replaces a newer one's
(bench/gui_scale.py measures the same paths at 100k facts)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import open_tab


def _active(window, qtbot):
    # shortcuts only match in the active window: the bug below showed only there
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)


def test_down_in_the_fact_table_moves_to_the_next_fact(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    _active(window, qtbot)
    tab.table.setFocus()
    tab.table.selectRow(0)
    for row in (1, 2):
        qtbot.keyClick(tab.table, Qt.Key_Down)
        assert tab.table.currentIndex().row() == row
        assert tab.table.hasFocus(), "Down kept the focus in the fact table"
        assert tab.editor.fact.id == tab.model.id_at(row)
        assert tab.editor.history.topLevelItemCount() >= 1
    # from the search field, Down still goes to the results
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        qtbot.keyClicks(tab.search.query, "PostgreSQL")
    qtbot.keyClick(tab.search.query, Qt.Key_Down)
    assert tab.search.table.hasFocus()


def test_a_corrected_fact_shows_both_versions_history(window, seeded, qtbot):
    # the history query reads the events of the fact and of the version it replaced
    first = seeded.remember("The staging server is called kestrel", subject="staging").fact_id
    second = seeded.remember("The staging server is called osprey", subject="staging").fact_id
    assert seeded.get(first).status == "superseded"
    tab = open_tab(window, "claude")
    tab.show_fact(second)
    assert tab.editor.fact.id == second
    actions = [
        tab.editor.history.topLevelItem(i).data(0, Qt.UserRole)
        for i in range(tab.editor.history.topLevelItemCount())
    ]
    assert actions.count("create") == 2, actions  # one per version
    texts = " ".join(
        tab.editor.history.topLevelItem(i).text(1)
        for i in range(tab.editor.history.topLevelItemCount())
    )
    assert "kestrel" in texts


def test_typing_runs_one_search_and_a_stale_answer_never_wins(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    started: list[str] = []
    window.runner.job_started.connect(lambda _i, title: started.append(title))
    tab.search.set_mode("keyword")  # hits are the facts holding the words, nothing else
    tab.search.query.setFocus()
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        qtbot.keyClicks(tab.search.query, "alpha setting")
    assert [t for t in started if t.startswith("Search")] == ["Search “alpha setting”"]
    assert "alpha" in tab.search.model.hits[0][1].fact.content
    # a query changed while the previous one runs: only the newer one's hits are shown,
    # also once every job has ended (the older answer arriving late is dropped)
    tab.search.query.setText("bravo")
    tab.search.run_now()
    tab.search.query.setText("PostgreSQL")
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        tab.search.run_now()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=15000)
    contents = [h.fact.content for _s, h in tab.search.model.hits]
    assert contents == ["Prefers PostgreSQL over MySQL for new services"]
    assert tab.search.status.text() == "1 result"
    # what the results table paints (all of a cell's roles in one multiData call)
    from PySide6.QtWidgets import QStyleOptionViewItem

    model = tab.search.model
    opt = QStyleOptionViewItem()
    tab.search.table.itemDelegate().initStyleOption(
        opt, model.index(0, model.cols.index("Content"))
    )
    assert opt.text == contents[0]


def test_what_a_row_paints_is_its_fact_bold_when_pinned(window, seeded, qtbot):
    # the delegate reads every role of a cell in one multiData call (as it does to paint)
    from PySide6.QtWidgets import QStyleOptionViewItem

    tab = open_tab(window, "claude")
    model, delegate = tab.model, tab.table.itemDelegate()
    rows = {model.id_at(r): r for r in range(model.rowCount())}
    for fact in seeded.list():
        if fact.id not in rows:
            continue
        cells = {}
        for col in (0, 3, 5):
            opt = QStyleOptionViewItem()
            delegate.initStyleOption(opt, model.index(rows[fact.id], col))
            cells[col] = opt
        assert cells[0].text == fact.content
        assert cells[0].font.bold() == fact.pinned
        assert cells[3].text == f"{fact.importance:.2f}"
        assert cells[3].displayAlignment & Qt.AlignHCenter
        assert cells[5].text == fact.created_at.strftime("%Y-%m-%d")

"""The Entities tab of an agent: list with type and counts, entity page, merge, rename, undo."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt
from tests_gui_helpers import answer_modal, open_tab


def _row(view, name):
    return next(i for i, e in enumerate(view.rows) if e.name == name)


def _entity_page(window, agent, facts, name):
    """The agent's Entities view, after remembering FACTS, with NAME's row current."""
    for text in facts:
        agent.remember(text)
    tab = open_tab(window, "claude")
    tab.views.setCurrentWidget(tab.entities)
    view = tab.entities
    view.table.setCurrentCell(_row(view, name), 0)
    return view


def _also_select(view, name):
    view.table.selectionModel().select(
        view.table.model().index(_row(view, name), 0),
        QItemSelectionModel.Select | QItemSelectionModel.Rows,
    )


def test_entities_tab_lists_shows_merges_renames_and_undoes(window, agent, qtbot):
    agent.remember("Maria Lopez is my manager at Acme Corp.")
    agent.remember("Maria Lopez works on Phoenix.")
    agent.remember("Maria said the roadmap is due Friday.")
    agent.remember("Deploys go through GitHub Actions.")
    tab = open_tab(window, "claude")
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert "Entities" in titles
    tab.views.setCurrentIndex(titles.index("Entities"))
    view = tab.entities
    assert view.isVisible()
    listed = {
        (view.table.item(r, 0).text(), view.table.item(r, 1).text(), view.table.item(r, 2).text())
        for r in range(view.table.rowCount())
    }
    assert ("Maria Lopez", "person", "2") in listed and ("GitHub Actions", "tool", "1") in listed
    assert "possible duplicate" in view.candidates.text()

    view.table.setCurrentCell(_row(view, "Maria Lopez"), 0)
    assert view.title.text() == "Maria Lopez  (person)"
    assert view.facts.topLevelItemCount() == 2
    assert [view.relations.item(i).text() for i in range(view.relations.count())] == [
        "Maria Lopez — works on → Phoenix"
    ]
    assert "extracted: 2" in view.details.text()

    # type filter
    view.type_filter.setCurrentText("tool")
    assert [e.name for e in view.rows] == ["GitHub Actions"]
    view.type_filter.setCurrentText("All types")

    # select Maria as well (Ctrl+click) and merge her into Maria Lopez
    view.table.setCurrentCell(_row(view, "Maria Lopez"), 0)
    sel = view.table.selectionModel()
    sel.select(
        view.table.model().index(_row(view, "Maria"), 0),
        QItemSelectionModel.Select | QItemSelectionModel.Rows,
    )
    (_t, text, _i), _ = answer_modal(qtbot, view.merge_btn.click, button_text="Merge")
    assert text == "Merge “Maria” into “Maria Lopez”?"
    assert "Merged “Maria” into “Maria Lopez”" in view.status.text()
    assert "Maria" not in [e.name for e in view.rows]
    assert view.facts.topLevelItemCount() == 3 and "Also known as: Maria" in view.details.text()
    view.undo_btn.click()
    assert "Maria" in [e.name for e in view.rows]

    view.table.setCurrentCell(_row(view, "Phoenix"), 0)
    assert view.rename("Phoenix Billing")
    assert view.title.text() == "Phoenix Billing  (project)"
    assert not view.rename("   ")  # refused, said why
    assert "entity name" in view.status.text()


def test_forget_an_entity_from_its_page(window, agent, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    view = _entity_page(
        window,
        agent,
        [
            "Priya Shah reviews every release.",
            "Priya Shah owns the Atlas roadmap.",
            "Deploys go through GitHub Actions.",
        ],
        "Priya Shah",
    )
    dlg = view.forget_current()
    assert "2 fact(s)" in dlg.use_selection.text()
    with qtbot.waitSignal(dlg.previewed, timeout=30000) as ok:
        dlg.preview_btn.click()
    assert ok.args == [True]
    top = dlg.items.topLevelItem(0)
    listed = [top.child(i).text(0) for i in range(top.childCount())]
    assert any("Priya Shah reviews every release" in t for t in listed)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    with qtbot.waitSignal(dlg.forgotten, timeout=60000):
        dlg.execute_btn.click()
    assert "Priya Shah" not in [e.name for e in view.rows]
    assert "Forgot everything about Priya Shah" in dlg.preview_text.toPlainText()
    assert [f.content for f in agent.list()] == ["Deploys go through GitHub Actions."]


def test_merge_asks_naming_both_enter_keeps_and_ctrl_z_undoes(window, agent, qtbot):
    view = _entity_page(
        window,
        agent,
        ["Maria Lopez is my manager at Acme Corp.", "Maria said the roadmap is due Friday."],
        "Maria Lopez",
    )
    _also_select(view, "Maria")
    click = lambda: qtbot.mouseClick(view.merge_btn, Qt.LeftButton)  # noqa: E731
    (_t, text, _i), _ = answer_modal(qtbot, click, key=Qt.Key_Return)
    assert "“Maria”" in text and "“Maria Lopez”" in text
    assert "Maria" in [e.name for e in view.rows], "Enter must not merge"
    _also_select(view, "Maria")
    answer_modal(qtbot, click, button_text="Merge")
    assert "Maria" not in [e.name for e in view.rows]
    assert window.notice.text() == "Merged “Maria” into “Maria Lopez” — Undo"
    window.act_undo.trigger()  # Edit → Undo (Ctrl+Z)
    assert "Maria" in [e.name for e in view.rows]
    assert window.notice.text().startswith("Undone: Merged “Maria”")


def test_a_reload_with_ctrl_held_selects_only_the_shown_entity(window, agent, qtbot):
    """Ctrl+Z reloads the list while Ctrl is still down: the row shown must replace the
    selection, not be toggled into it, or the next merge names entities nobody picked."""
    from PySide6.QtTest import QTest

    view = _entity_page(
        window,
        agent,
        ["Maria Lopez is my manager at Acme Corp.", "Deploys go through GitHub Actions."],
        "GitHub Actions",
    )
    QTest.keyPress(view.table, Qt.Key_Control, Qt.ControlModifier)
    try:
        view.select(view.rows[_row(view, "Maria Lopez")].id)
        view.reload()
    finally:
        QTest.keyRelease(view.table, Qt.Key_Control, Qt.NoModifier)
    assert [view.rows[_row(view, "Maria Lopez")].id] == view.selected_ids()
    assert view.title.text() == "Maria Lopez  (person)"

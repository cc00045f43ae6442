"""Names in a memory waiting for review, or one turned down in review, are no entities: the
Entities tab lists them only once the memory is accepted, and an undone accept takes them
away again (real store, real ingest and linking)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, open_tab, wait_write

from services import NewFact, review_metadata


def _names(tab):
    tab.views.setCurrentWidget(tab.entities)  # the user clicks the Entities tab
    return {e.name for e in tab.entities.rows}


def _select(rv, fact_id):
    rv.table.setFocus()
    for r in range(rv.table.rowCount()):
        rv.table.selectRow(r)
        if rv.selected_ids() == [fact_id]:
            return
    raise AssertionError(f"#{fact_id} is not in the inbox")


def test_entities_come_from_accepted_memories_only(window, agent, qtbot):
    agent.remember("Prefers pytest over unittest for tests.")
    deploy, manager = (
        r.fact_id
        for r in agent.remember_many(
            [
                NewFact(
                    text,
                    status="pending",
                    metadata=review_metadata("low-confidence", 0.4, source="session"),
                )
                for text in (
                    "Deploys go through GitHub Actions.",
                    "Maria Lopez is my manager at Acme Corp.",
                )
            ],
            near_duplicate=None,
        )
    )
    tab = open_tab(window, "claude")
    names = _names(tab)
    assert names, "the active memory names entities"
    assert not names & {"GitHub Actions", "Maria Lopez", "Acme Corp"}, names

    # Accept (key A) in the inbox: its names become entities
    tab.show_view("Review")
    _select(tab.review, deploy)
    with wait_write(qtbot, tab):
        qtbot.keyClick(tab.review.table, Qt.Key_A)
    assert "GitHub Actions" in _names(tab)
    # the notice's Undo sends it back to the inbox: its names leave the list again
    with wait_write(qtbot, tab):
        qtbot.mouseClick(window.notice.action_btn, Qt.LeftButton)
    assert agent.get(deploy).status == "pending"
    # the fact list reloads after the write; the shown Entities tab with it
    qtbot.waitUntil(lambda: "GitHub Actions" not in _names(tab), timeout=10000)

    # Reject (key R, then Erase in its question): never an entity
    tab.show_view("Review")
    qtbot.waitUntil(lambda: tab.review.table.rowCount() == 2, timeout=10000)
    _select(tab.review, manager)
    with qtbot.waitSignal(tab.review.decided, timeout=30000):
        answer_modal(qtbot, lambda: qtbot.keyClick(tab.review.table, Qt.Key_R), button_text="Erase")
    assert manager not in [i.fact.id for i in agent.review.items()]
    assert not _names(tab) & {"Maria Lopez", "Acme Corp", "GitHub Actions"}

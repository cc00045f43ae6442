"""Issue 24, item 6: Accept, Edit and Not now in the review inbox say what they did and are
undoable (the notice's Undo and Edit → Undo put the memory back in the inbox as it was);
Reject erases (issue 20), so it asks first, naming the memory, and Enter keeps it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit
from tests_gui_helpers import answer_modal, open_tab, wait_write

from services import NewFact, review_metadata


def _pending(agent, words):
    items = [
        NewFact(
            f"Maybe: prefers {w} for scripts",
            status="pending",
            metadata=review_metadata("low-confidence", 0.4, source="session"),
        )
        for w in words
    ]
    return [r.fact_id for r in agent.remember_many(items, near_duplicate=None)]


def _inbox(window, qtbot):
    tab = open_tab(window, "claude")
    tab.show_view("Review")
    rv = tab.review
    rv.table.setFocus()
    rv.table.selectRow(0)
    return tab, rv


def test_accept_says_what_it_did_and_the_notice_undoes_it(window, agent, qtbot):
    _pending(agent, ("bash", "fish"))
    tab, rv = _inbox(window, qtbot)
    first = rv.selected_ids()[0]
    with wait_write(qtbot, tab):
        qtbot.keyClick(rv.table, Qt.Key_A)
    assert agent.get(first).status == "active"
    assert window.notice.text() == f"Accepted memory #{first} — Undo"
    assert "agents can use them now" in window.statusBar().currentMessage()
    with wait_write(qtbot, tab):
        qtbot.mouseClick(window.notice.action_btn, Qt.LeftButton)
    assert agent.get(first).status == "pending"
    assert first in [i.fact.id for i in agent.review.items()]
    qtbot.waitUntil(lambda: rv.table.rowCount() == 2, timeout=10000)


def test_not_now_hides_keeps_the_text_and_is_undone_with_ctrl_z(window, agent, qtbot):
    ids = _pending(agent, ("zsh",))
    tab, rv = _inbox(window, qtbot)
    with wait_write(qtbot, tab):
        qtbot.keyClick(rv.table, Qt.Key_N)
    assert agent.review.items() == []
    assert agent.get(ids[0]).content == "Maybe: prefers zsh for scripts"  # kept
    assert window.notice.text() == f"Hid memory #{ids[0]} — Undo"
    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    assert [i.fact.id for i in agent.review.items()] == ids


def test_reject_asks_naming_it_enter_keeps_and_erase_leaves_no_trace(window, agent, qtbot):
    """Reject erases (a forget): nothing could undo it, so it asks first and Enter keeps."""
    from services import EngramError

    ids = _pending(agent, ("tcsh",))
    tab, rv = _inbox(window, qtbot)
    texts, _ = answer_modal(qtbot, lambda: qtbot.keyClick(rv.table, Qt.Key_R), key=Qt.Key_Return)
    assert "Maybe: prefers tcsh for scripts" in texts[1] and "cannot be undone" in texts[2]
    from services import REJECT

    assert REJECT.what in texts[2]  # the words `engram review reject` prints
    assert [i.fact.id for i in agent.review.items()] == ids  # Enter kept it
    with qtbot.waitSignal(rv.decided, timeout=30000):  # the button this time
        answer_modal(
            qtbot, lambda: qtbot.mouseClick(rv.reject_btn, Qt.LeftButton), button_text="Erase"
        )
    assert agent.review.items() == []
    try:
        agent.get(ids[0])
        raise AssertionError("the rejected memory is still stored")
    except EngramError:
        pass
    from services.forget.verify import verify_forgotten

    rep = verify_forgotten(agent.engram, ["Maybe: prefers tcsh for scripts"])
    assert rep.remaining == [], rep.remaining  # rows, history, layers, raw bytes, vectors


def test_edit_then_undo_puts_back_the_words_and_the_inbox(window, agent, qtbot):
    _pending(agent, ("nushell",))
    tab, rv = _inbox(window, qtbot)

    def type_it(box):
        ed = box.findChild(QPlainTextEdit)
        ed.setPlainText("Prefers nushell for scripts")

    with wait_write(qtbot, tab):
        answer_modal(
            qtbot, lambda: qtbot.keyClick(rv.table, Qt.Key_E), check=type_it, button_text="OK"
        )
    # the correction is a new memory, the original erased (issue #30, finding 10)
    [f] = agent.list()
    assert (f.status, f.content) == ("active", "Prefers nushell for scripts")
    assert "Maybe: prefers" not in str(agent.facts.history(f.id))
    assert window.notice.text() == f"Edited and accepted memory #{f.id} — Undo"
    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    f = agent.get(f.id)
    assert (f.status, f.content) == ("pending", "Maybe: prefers nushell for scripts")

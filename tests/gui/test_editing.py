"""Edit, pin, delete, bulk actions, each undone and redone through the window's actions."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests_gui_helpers import open_tab, wait_write

from services.errors import NotFound


def test_edit_in_editor_then_undo_redo(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    tab.table.selectRow(0)
    fact = tab.editor.fact
    tab.editor.content.setPlainText("The deploy pipeline runs on Forgejo Actions")
    tab.editor.importance.setValue(0.9)
    tab.editor.tags.setText("ci, infra")
    assert tab.editor.save_btn.isEnabled()
    tab.editor.content.setFocus()
    with wait_write(qtbot, tab):
        qtbot.keyClick(tab.editor.content, Qt.Key_S, Qt.ControlModifier)
    after = seeded.get(fact.id)
    assert after.content == "The deploy pipeline runs on Forgejo Actions"
    assert after.importance == 0.9 and after.tags == ("ci", "infra")
    assert tab.model.fact_at(0).content == after.content  # the row shows the new text
    assert any(
        tab.editor.history.topLevelItem(i).text(1).startswith("edited: content")
        for i in range(tab.editor.history.topLevelItemCount())
    )
    # the new text is searchable by meaning and keyword right away (re-embedded)
    assert seeded.search("Forgejo", k=1, mode="keyword", touch=False)[0].fact.id == fact.id

    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    back = seeded.get(fact.id)
    assert back.content == fact.content and back.importance == fact.importance
    assert back.tags == fact.tags
    assert tab.editor.content.toPlainText() == fact.content
    with wait_write(qtbot, tab):
        window.act_redo.trigger()
    assert seeded.get(fact.id).content.endswith("Forgejo Actions")


def test_pin_and_delete_with_undo(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    tab.table.setFocus()
    row = next(r for r in range(tab.model.rowCount()) if not tab.model.fact_at(r).pinned)
    tab.table.selectRow(row)
    fid = tab.model.id_at(row)
    with wait_write(qtbot, tab):
        qtbot.keyClick(tab.table, Qt.Key_P, Qt.ControlModifier)
    assert seeded.get(fid).pinned
    assert tab.model.data(tab.model.index(tab.model.row_of(fid), 4)) == "★"
    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    assert not seeded.get(fid).pinned

    snapshot = seeded.get(fid)
    # (selectRow on the selected row toggles it off: QTest leaves Ctrl as the last modifier)
    tab.select_ids([fid], current=fid)
    with wait_write(qtbot, tab):
        qtbot.keyClick(tab.table, Qt.Key_Delete)
    try:
        seeded.get(fid)
        raise AssertionError("fact still there after delete")
    except NotFound:
        pass
    assert tab.model.row_of(fid) is None
    assert tab.count_label.text() == "41 active facts"
    assert not seeded.search(snapshot.content, k=5, mode="keyword", touch=False) or fid not in [
        h.fact.id for h in seeded.search(snapshot.content, k=5, touch=False)
    ]

    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    restored = seeded.get(fid)
    assert (restored.content, restored.category, restored.importance, restored.created_at) == (
        snapshot.content,
        snapshot.category,
        snapshot.importance,
        snapshot.created_at,
    )
    assert tab.model.row_of(fid) is not None, "the restored fact is back in the list"
    assert tab.editor.fact.id == fid
    # restored vectors: semantic search finds it again
    assert fid in [
        h.fact.id for h in seeded.search(snapshot.content, k=3, mode="semantic", touch=False)
    ]
    with wait_write(qtbot, tab):
        window.act_redo.trigger()
    assert tab.model.row_of(fid) is None


def test_bulk_pin_recategorize_delete(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    ids = [f.id for f in seeded.list() if f.category == "tmp"]
    assert len(ids) >= 3
    tab.select_ids(ids)
    assert tab.delete_btn.text() == f"Delete {len(ids)}"
    with wait_write(qtbot, tab):
        tab.recategorize_selected("task")
    assert {seeded.get(i).category for i in ids} == {"task"}
    assert {tab.model.fact_at(tab.model.row_of(i)).category for i in ids} == {"task"}
    assert sorted(tab.selected_ids()) == sorted(ids), "the selection survives the write"
    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    assert {seeded.get(i).category for i in ids} == {"tmp"}
    with wait_write(qtbot, tab):
        tab.pin_btn.click()
    assert all(seeded.get(i).pinned for i in ids)
    with wait_write(qtbot, tab):
        tab.delete_btn.click()
    assert all(tab.model.row_of(i) is None for i in ids)
    assert seeded.facts.rows(ids) == {}
    with wait_write(qtbot, tab):
        window.act_undo.trigger()
    assert set(seeded.facts.rows(ids)) == set(ids)
    assert all(seeded.get(i).pinned for i in ids)


def test_a_rejected_edit_says_why_and_leaves_nothing_to_undo(window, seeded, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: shown.append(a[2]))
    tab = open_tab(window, "claude")
    tab.table.selectRow(0)
    fact = tab.editor.fact
    tab.editor.content.setPlainText("   ")  # empty after trimming: the store refuses it
    with qtbot.waitSignal(tab.message, timeout=15000) as msg:
        tab.editor.save()
    assert msg.args == ["a fact cannot be empty"] and shown == ["a fact cannot be empty"]
    assert seeded.get(fact.id).content == fact.content
    window.act_undo.trigger()  # drops the failed command without writing anything
    assert tab.undo_stack.count() == 0
    assert seeded.get(fact.id).content == fact.content

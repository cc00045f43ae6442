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

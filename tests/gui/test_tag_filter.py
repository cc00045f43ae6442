"""The fact browser's tag filter: the agent's tags listed with counts, picking one shows only
the facts carrying it, in the list and in search (real store, real ingest)."""

from __future__ import annotations

from tests_gui_helpers import open_tab, reloaded

from services.ingest.pipeline import NewFact


def test_picking_a_tag_shows_only_its_facts_with_counts(window, agent, qtbot):
    res = agent.remember_many(
        [
            NewFact("The web app is built with Vite", tags=["web", "frontend"]),
            NewFact("The web app deploys to Fly.io", tags=["web"]),
            NewFact("The webapp beta has a waitlist", tags=["webapp"]),
            NewFact("Backups run nightly at 02:00", tags=["ops"]),
            NewFact("Prefers tabs over spaces"),
        ],
        near_duplicate=None,
    )
    assert all(r.status == "added" for r in res), [r.status for r in res]
    tab = open_tab(window, "claude")
    combo = tab.filter_bar.tag
    qtbot.waitUntil(lambda: combo.findData("web") >= 0, timeout=15000)
    listed = [combo.itemText(i) for i in range(combo.count())]
    assert listed[:2] == ["Any", "web (2)"], listed
    assert {"frontend (1)", "webapp (1)", "ops (1)"} <= set(listed)
    with reloaded(qtbot, tab):
        combo.setCurrentIndex(combo.findData("web"))
    shown = {tab.model.fact_at(r).content for r in range(tab.model.rowCount())}
    assert shown == {"The web app is built with Vite", "The web app deploys to Fly.io"}
    assert tab.count_label.text() == "2 facts match the filters"
    # the filter applies to search too ("webapp" is another tag, not a match for "web")
    with qtbot.waitSignal(tab.search.results_ready, timeout=15000):
        qtbot.keyClicks(tab.search.query, "web app")
    hits = {h.fact.content for _, h in tab.search.model.hits}
    assert hits and hits <= shown
    tab.search.query.clear()
    # the choice survives a recount, and Clear lists everything again
    with reloaded(qtbot, tab):
        tab.filter_bar.clear_btn.click()
    assert tab.model.rowCount() == 5 and combo.currentText() == "Any"

"""Issue 36, the four pictures, opened from View → Insights and checked against the store:
What agents load (the compiled block, tokens against the budget, what changed, reads), Memory
health (each finding and its action really done), the forget receipt as places, and the
read log with Pause capture. Real store, real Chroma, real model; nothing faked."""

from __future__ import annotations

from datetime import timedelta

from PySide6.QtCore import Qt
from tests_gui_helpers import open_tab

from models.tables import utcnow
from services import FactFilters, ForgetScope, ForgetService, NewFact, latest_layers
from services.integrations.mcp import memory as mcp_tools
from services.search.context import build_context
from services.store.review import review_metadata


def _compile_all(window, qtbot):
    """Engram → Compile all agents, as the user does."""
    with qtbot.waitSignal(window.tray.compiled, timeout=60000):
        window.tray.act_compile_all.trigger()
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=30000)


def _wait(qtbot, view):
    qtbot.waitUntil(lambda: not view.loading, timeout=30000)


def _facts(agent):
    old = utcnow() - timedelta(days=200)
    items = [
        NewFact("Deploys happen on Friday afternoons", category="env"),
        NewFact("On Friday afternoons deploys happen.", category="env"),
        NewFact("The staging database is called orca", category="env", created_at=old),
        NewFact("Prefers pnpm over npm", category="pref", created_at=old),
        NewFact("Uses tabs in Go code", category="pref"),
    ]
    res = agent.remember_many(items, near_duplicate=None)
    ids = [r.fact_id for r in res]
    assert all(ids), [r.status for r in res]
    return ids


def test_load_board_shows_each_agents_block_tokens_and_reads(window, agent, qtbot):
    ids = _facts(agent)
    build_context(agent, "pnpm or npm?", reader="mcp get_context")  # what an agent reads
    _compile_all(window, qtbot)
    window.insights.act_load.trigger()  # View → Insights → What agents load
    board = window.insights.open["load"]
    _wait(qtbot, board)
    card = board.cards["claude"]
    layer = latest_layers(agent)["memory"]
    assert (card.gauge.used, card.gauge.budget) == (layer.tokens, layer.budget)
    assert card.block.toPlainText() == layer.markdown
    provenance = {i for _l, fids in layer.provenance for i in fids}
    assert card.changed.text().startswith(f"Since yesterday: +{len(provenance)} memories")
    facts = agent.list(FactFilters(status="active"))
    week = utcnow() - timedelta(days=7)
    recalled = [f for f in facts if f.last_accessed and f.last_accessed >= week]
    never = [f for f in facts if f.access_count == 0]
    assert recalled and never and len(facts) == len(ids)
    assert card.recall.text().startswith(
        f"Read in the last week: {len(recalled)} of {len(facts)} active · "
        f"never read: {len(never)} · reads this week by channel: mcp get_context "
    )
    listed = {card.recalled.item(i).text().split()[0] for i in range(card.recalled.count())}
    assert listed == {f"#{f.id}" for f in recalled}


def test_memory_health_counts_and_its_actions_really_act(window, agent, qtbot):
    dup_a, dup_b, stale_db, stale_pnpm, _tabs = _facts(agent)
    conflict = agent.remember_many(
        [
            NewFact(
                "Deploys happen on Monday mornings",
                status="pending",
                metadata=review_metadata("conflict", with_fact=dup_b),
            )
        ],
        near_duplicate=None,
    )[0].fact_id
    tab = open_tab(window, "claude")
    window.insights.act_health.trigger()
    view = window.insights.open["health"]
    _wait(qtbot, view)
    texts = {k: view.groups[k].text(0) for k in view.groups}
    assert texts == {
        "duplicates": "Say the same thing (1)",
        "stale": "Stale: not read in 90 days (2)",
        "conflicts": "Conflicts waiting for review (1)",
        "never": "Never read (stored over a week ago) (2)",
    }
    group = view.groups["duplicates"].child(0)
    assert group.data(0, Qt.UserRole) == [dup_b, dup_a]  # the newest kept
    assert view.groups["conflicts"].child(0).text(1) == f"#{conflict}"
    with qtbot.waitSignal(view.acted, timeout=30000):
        qtbot.mouseClick(view.buttons["duplicates"], Qt.LeftButton)
    assert agent.get(dup_b).status == "active"
    copy = agent.get(dup_a)
    assert copy.status == "archived"
    assert copy.metadata["archived_reason"] == f"duplicate of #{dup_b} (merged)"
    _wait(qtbot, view)
    assert view.groups["duplicates"].text(0) == "Say the same thing (0)"
    # uncheck one stale fact: only the checked one is archived
    stale_items = {
        view.groups["stale"].child(i).text(1): view.groups["stale"].child(i) for i in range(2)
    }
    stale_items[f"#{stale_pnpm}"].setCheckState(0, Qt.Unchecked)
    with qtbot.waitSignal(view.acted, timeout=30000):
        qtbot.mouseClick(view.buttons["stale"], Qt.LeftButton)
    assert agent.get(stale_db).status == "archived"
    assert agent.get(stale_pnpm).status == "active"
    _wait(qtbot, view)
    qtbot.mouseClick(view.buttons["conflicts"], Qt.LeftButton)  # Review…
    assert window.current_agent_tab() is tab and tab.views.tabText(
        tab.views.currentIndex()
    ).startswith("Review")


def test_receipt_picture_shows_each_place_and_the_verification(window, agent, qtbot):
    _facts(agent)
    _compile_all(window, qtbot)
    receipt = ForgetService(agent.engram).execute(
        ForgetScope(agent="claude", matching="orca", semantic=False)
    )
    c = receipt["counts"]
    window.insights.act_receipts.trigger()
    view = window.insights.open["receipts"]
    _wait(qtbot, view)
    assert view.list.count() == 1
    assert view.list.item(0).text().startswith(f"✓ receipt {receipt['id']} · ")
    pic = view.picture.pic
    places = {p.name: (p.outcome, p.count) for p in pic.places}
    rows = c["facts"] + c["history_events"] + c["episodes"] + c["session_logs"]
    rows += c["kept_facts_metadata"]
    assert places["Rows"] == ("erased", rows)
    assert places["Full-text index"] == ("erased", c["fts_entries"])
    assert places["Vectors"] == ("erased", c["vectors"]) and c["vectors"] == 1
    assert places["Git history"] == ("nothing there", 0)
    assert pic.verified and c["remaining_after_verify"] == 0
    said = view.picture.accessibleName()
    assert "Vectors: erased (1)" in said and said.endswith(
        f"no copy of {c['strings_verified']} string(s) left"
    )


def test_read_log_lists_reads_and_pause_stops_remember(window, agent, qtbot):
    _facts(agent)
    build_context(agent, "pnpm or npm?", reader="hook context")
    hits = mcp_tools.recall(agent, "staging database")["hits"]  # what `engram mcp` runs
    window.insights.act_reads.trigger()
    view = window.insights.open["reads"]
    _wait(qtbot, view)
    rows = [
        (view.table.item(r, 1).text(), view.table.item(r, 3).text())
        for r in range(view.table.rowCount())
    ]
    n = len(hits)
    assert set(rows[:n]) == {("mcp recall", h["content"]) for h in hits}  # newest first
    assert ("mcp recall", "The staging database is called orca") in rows[:n]
    assert ("hook context", "Prefers pnpm over npm") in rows[n:]
    assert f"mcp recall: {n}" in view.status.text()
    assert not view.pause.isChecked()
    qtbot.mouseClick(view.pause, Qt.LeftButton)  # Pause capture
    qtbot.waitUntil(lambda: "PAUSED" in view.status.text(), timeout=30000)
    out = mcp_tools.remember(agent, "Secret incognito plan for the weekend")
    assert out["id"] is None and "paused" in out["status"]
    assert not agent.list(FactFilters(text="incognito"))
    qtbot.mouseClick(view.pause, Qt.LeftButton)  # Resume
    qtbot.waitUntil(lambda: "PAUSED" not in view.status.text() and not view.loading, timeout=30000)
    assert mcp_tools.remember(agent, "Back to normal capture")["status"] == "added"

"""The fact browser pages lazily; dragging its scrollbar to the bottom must still reach the
oldest fact (the bar used to span only the rows paged in so far)."""

from __future__ import annotations

from tests_gui_helpers import open_tab

from ui import fact_model


def test_dragging_the_scrollbar_to_the_bottom_shows_the_oldest_fact(
    window, seeded, qtbot, monkeypatch
):
    # small pages and read-aheads so 42 facts behave like a big store: several pages unread
    monkeypatch.setattr(fact_model, "PAGE", 10)
    monkeypatch.setattr(fact_model, "CHUNK", 5)
    tab = open_tab(window, "claude")
    window.resize(900, 600)
    assert tab.model.rowCount() < 42, "the list starts with one page"
    oldest = min(seeded.list(), key=lambda f: (f.created_at, f.id))
    bar = tab.table.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    # a user's drag: press the thumb, move it to the end of the groove, release
    bar.setSliderDown(True)
    bar.setSliderPosition(bar.maximum())
    bar.setSliderDown(False)

    def shows_oldest():
        row = tab.table.rowAt(tab.table.viewport().height() - 2)
        row = tab.model.rowCount() - 1 if row < 0 else row
        return tab.model.id_at(row) == oldest.id and bar.value() == bar.maximum()

    qtbot.waitUntil(shows_oldest, timeout=10000)
    assert tab.model.rowCount() == 42
    assert len(set(tab.model._ids)) == 42, "no fact listed twice"

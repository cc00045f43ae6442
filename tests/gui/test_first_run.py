"""Issue 15, first run: the window is there at once on an empty store (the demo used to be
seeded before it, 17 s of nothing), offers Find my agents / Try the demo / Start empty, and an
empty agent says what to do next."""

from __future__ import annotations

import time

from tests_gui_helpers import open_tab


def test_an_empty_store_opens_at_once_on_the_welcome_page_and_seeds_the_demo_in_a_worker(
    engram, qtbot
):
    from ui.main_window import MainWindow

    MainWindow.demo_facts = 20  # the test's demo is small; the real one is 300 facts
    try:
        t0 = time.perf_counter()
        w = MainWindow(engram, use_tray=False, demo_if_empty=True)
        qtbot.addWidget(w)
        w.show()
        assert time.perf_counter() - t0 < 5, "the window waited for the demo"
        assert w.welcome is not None and w.tabs.currentWidget() is w.welcome
        assert w.runner.visible_jobs()[0].title == "Creating the demo"
        assert not w.welcome.demo_btn.isEnabled()  # busy: shows progress instead
        with qtbot.waitSignal(w.agents_changed, timeout=60000):
            pass
        assert w.runner.wait_idle(30000)
        assert all(s.startswith("demo-") for s in w.agent_tabs) and len(w.agent_tabs) == 4
        assert w.welcome is None, "the welcome page goes once there are agents"
        assert w.tabs.tabText(w.tabs.currentIndex()).startswith("Demo ·")
    finally:
        MainWindow.demo_facts = 300
        w.shutdown()


def test_find_my_agents_without_the_discover_service_says_what_to_do(keyword_engram, qtbot):
    from ui.main_window import MainWindow
    from ui.welcome import find_sources

    w = MainWindow(keyword_engram, use_tray=False)
    qtbot.addWidget(w)
    try:
        assert w.welcome is not None
        w.welcome.find_btn.click()
        if find_sources() is None:
            assert "File → Import" in w.welcome.status.text()
        else:
            assert w.welcome.status.text()
    finally:
        w.shutdown()


def test_an_empty_agent_says_what_to_do_next(window, engram, qtbot):
    engram.add_agent("codex")
    tab = open_tab(window, "codex")
    assert tab.empty_hint.isVisible() and "Import" in tab.empty_hint.text()
    tab.memory.remember("Uses uv for Python projects")
    tab = open_tab(window, "codex")
    assert not tab.empty_hint.isVisible()

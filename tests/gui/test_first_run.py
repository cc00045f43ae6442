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
        assert w.startup_ctl.welcome is not None and w.tabs.currentWidget() is w.startup_ctl.welcome
        assert w.runner.visible_jobs()[0].title == "Creating the demo"
        assert not w.startup_ctl.welcome.demo_btn.isEnabled()  # busy: shows progress instead
        with qtbot.waitSignal(w.agents_changed, timeout=60000):
            pass
        assert w.runner.wait_idle(30000)
        assert all(s.startswith("demo-") for s in w.agent_tabs) and len(w.agent_tabs) == 4
        assert w.startup_ctl.welcome is None, "the welcome page goes once there are agents"
        assert w.tabs.tabText(w.tabs.currentIndex()).startswith("Demo ·")
    finally:
        MainWindow.demo_facts = 300
        w.shutdown()


def test_find_my_agents_lists_sources_with_counts_and_imports_the_checked_ones(
    keyword_engram, qtbot, tmp_path
):
    from PySide6.QtWidgets import QApplication

    from ui.main_window import MainWindow

    home = tmp_path / "home"
    (home / ".hermes" / "memories").mkdir(parents=True)
    (home / ".hermes" / "memories" / "MEMORY.md").write_text("Uses fish\n§\nDeploys with Kamal\n")
    (home / ".gemini").mkdir()
    (home / ".gemini" / "GEMINI.md").write_text(
        "## Gemini Added Memories\n- The user's name is Dana.\n"
    )
    w = MainWindow(keyword_engram, use_tray=False)
    qtbot.addWidget(w)
    try:
        with qtbot.waitSignal(w.runner.job_finished, timeout=30000):
            w.startup_ctl.find_agents(home=home, project=tmp_path / "nowhere")
        page = w.startup_ctl.welcome
        assert page.status.text().startswith("Found 2 source(s)")
        labels = " ".join(lab.text() for lab in page.sources_box.findChildren(type(page.status)))
        assert "hermes" in labels and "2 entries" in labels and "gemini" in labels
        assert all(cb.isChecked() for cb, _s in page.checks)
        page.checks[1][0].setChecked(False)  # import only the first
        first = page.checks[0][1]
        with qtbot.waitSignal(w.agents_changed, timeout=60000):
            page.import_btn.click()
        qtbot.waitUntil(lambda: not w.runner.is_busy(), timeout=30000)
        assert list(w.agent_tabs) == [first.suggested_agent]
        assert (
            w.startup_ctl.import_report.isVisible()
            and "fact(s) added" in w.startup_ctl.import_report.summary.text()
        )
        QApplication.processEvents()
    finally:
        w.shutdown()


def test_an_empty_agent_says_what_to_do_next(window, engram, qtbot):
    engram.add_agent("codex")
    tab = open_tab(window, "codex")
    assert tab.empty_hint.isVisible() and "Import" in tab.empty_hint.text()
    tab.memory.remember("Uses uv for Python projects")
    tab = open_tab(window, "codex")
    assert not tab.empty_hint.isVisible()


def test_the_demo_comes_only_on_the_first_run_not_after_it_was_removed(keyword_engram, qtbot):
    """`make run` passes --demo-if-empty: after the user removed the demo agents for good,
    the next start opens on the welcome page, without the demo coming back."""
    from ui.main_window import MainWindow

    MainWindow.demo_facts = 20
    try:
        w = MainWindow(keyword_engram, use_tray=False, demo_if_empty=True)
        qtbot.addWidget(w)
        with qtbot.waitSignal(w.agents_changed, timeout=60000):
            pass
        assert w.runner.wait_idle(30000)
        assert len(w.agent_tabs) == 4
        w.shutdown()
        for a in keyword_engram.agents(with_counts=False):
            keyword_engram.remove_agent(a.slug)

        w = MainWindow(keyword_engram, use_tray=False, demo_if_empty=True)
        qtbot.addWidget(w)
        w.show()
        assert w.runner.wait_idle(30000)
        assert not w.agent_tabs and keyword_engram.agents(with_counts=False) == []
        assert w.startup_ctl.welcome is not None and w.startup_ctl.welcome.demo_btn.isEnabled()
        assert not [j for j in w.runner.visible_jobs() if j.title == "Creating the demo"]
    finally:
        MainWindow.demo_facts = 300
        w.shutdown()

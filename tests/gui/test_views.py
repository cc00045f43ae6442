"""Timeline, markdown safety, statistics, settings, agent management, forget, first paint."""

from __future__ import annotations

import json
from datetime import date

from PySide6.QtCore import QUrl
from tests_gui_helpers import answer_modal, open_tab

from tests.processes import run_engram
from ui.markdown_view import MarkdownView, render_markdown


def test_markdown_is_sanitized_and_links_open_only_for_http(qtbot):
    html = render_markdown(
        "# Notes\n<script>alert('x')</script>\n\n![tracker](https://evil.example/p.png)\n\n"
        "[ok](https://example.com) [bad](javascript:alert(1)) [file](file:///etc/passwd)\n\n"
        "<img src=x onerror=alert(1)> `a < b`"
    )
    assert "<script" not in html and "&lt;script&gt;" in html  # shown as text, not run
    assert "<img" not in html and "evil.example" not in html  # no remote images at all
    assert 'href="https://example.com"' in html
    assert "javascript:" not in html and "file:///" not in html
    assert "<code>a &lt; b</code>" in html
    view = MarkdownView(open_links=False)
    qtbot.addWidget(view)
    assert not view.openLinks()
    with qtbot.waitSignal(view.link_opened) as ok:
        view.anchorClicked.emit(QUrl("https://example.com/x"))
    assert ok.args == ["https://example.com/x"]
    with qtbot.waitSignal(view.link_refused) as bad:
        view.anchorClicked.emit(QUrl("file:///etc/passwd"))
    assert bad.args == ["file:///etc/passwd"]


def test_timeline_groups_episodes_by_day_and_renders_markdown(window, agent, qtbot):
    agent.add_episode(
        date(2026, 11, 2),
        "Fixed the **importer**.\n\n<script>x()</script>",
        time="9:00 AM",
        tags=["ingest"],
    )
    agent.add_episode(date(2026, 11, 2), "Reviewed the migration", time="2:30 PM")
    agent.add_episode(date(2026, 11, 5), "Planned the release", time="10:00 AM")
    tab = open_tab(window, "claude")
    tab.show_view("Timeline")
    tl = tab.timeline
    assert tl.tree.topLevelItemCount() == 2
    assert tl.tree.topLevelItem(0).text(0) == "Thu 2026-11-05"
    assert tl.tree.topLevelItem(1).childCount() == 2
    assert tl.strip.days[0] == date(2026, 11, 2) and len(tl.strip.days) == 4
    assert tl.strip.counts[date(2026, 11, 2)] == 2
    tl.select_day(date(2026, 11, 3))  # nearest day with episodes
    assert tl.tree.currentItem().text(0) in ("Mon 2026-11-02", "Thu 2026-11-05")
    assert tl.tree.topLevelItem(1).child(0).text(0) == "9:00 AM"  # sessions in clock order
    tl.tree.setCurrentItem(tl.tree.topLevelItem(1).child(0))
    text = tl.view.toPlainText()
    assert "Fixed the importer." in text and "<script>x()</script>" in text  # escaped text
    assert "tags: ingest" in text
    assert "<script" not in tl.view.toHtml()


def test_statistics_view_counts(window, seeded, qtbot):
    tab = open_tab(window, "claude")
    with qtbot.waitSignal(tab.stats.loaded, timeout=15000):
        tab.show_view("Statistics")
    s = tab.stats.stats
    assert s.total == 42 and sum(s.importance) == 42
    assert s.by_category["proj:"] == seeded.facts.count(
        __import__("services.store.facts", fromlist=["FactFilters"]).FactFilters(category="proj:")
    )
    assert s.growth[-1][1] == 42 and s.growth[0][0] == "2026-10-01"
    assert dict(tab.stats.by_category.items) == s.by_category
    assert "42" in tab.stats.summary.text()
    img = tab.stats.by_category.grab()
    assert not img.isNull() and img.width() > 100


class FakeKeyring:
    """Stands in for the OS keyring (outside the product): a locked one, then a working one."""

    def __init__(self, ok: bool):
        self.ok, self.saved = ok, {}

    def status(self):
        if self.ok:
            return True, "FakeBackend", "API keys are stored in FakeBackend."
        return False, "SecretService", "the OS keyring is locked; unlock it and try again."

    def get(self, name):
        return self.saved.get(name)

    def set(self, name, value):
        self.saved[name] = value
        return True, "saved"


def test_settings_dialog_saves_lifecycle_and_api_key(engram, qtbot):
    from services.lifecycle.config import load_config
    from ui.settings_dialog import SettingsDialog

    locked = SettingsDialog(engram, secrets=FakeKeyring(False))
    qtbot.addWidget(locked)
    assert "locked" in locked.keyring_status.text() and not locked.api_key.isEnabled()
    assert "Loaded" in locked.model_status.text()

    keys = FakeKeyring(True)
    dlg = SettingsDialog(engram, secrets=keys)
    qtbot.addWidget(dlg)
    dlg.editors["budget_today"].setValue(1234)
    dlg.editors["turns_per_summary"].setValue(9)
    dlg.editors["llm_endpoint"].setText("https://llm.example/v1")
    dlg.api_key.setText("sk-test-123")
    dlg.save()
    cfg = load_config(engram.config.data_dir)
    assert (cfg.budget_today, cfg.turns_per_summary, cfg.llm_endpoint) == (
        1234,
        9,
        "https://llm.example/v1",
    )
    assert keys.saved == {"llm-api-key": "sk-test-123"}
    assert "sk-test" not in (engram.config.data_dir / "settings.json").read_text()


def test_add_rename_remove_agent(window, engram, qtbot):
    tab = window.agents_ctl.add_agent("research-bot")
    assert tab is window.current_agent_tab() and tab.memory.slug == "research-bot"
    window.agents_ctl.rename_agent("Research Bot")
    i = window.tabs.indexOf(window.agent_tabs["research-bot"])
    assert window.tabs.tabText(i) == "Research Bot (research-bot)"
    assert [a.name for a in engram.agents() if a.slug == "research-bot"] == ["Research Bot"]
    with qtbot.waitSignal(window.agents_changed, timeout=15000):
        answer_modal(qtbot, window.act_remove_agent.trigger, button_text="Remove research-bot")
    assert "research-bot" not in window.agent_tabs
    assert all(a.slug != "research-bot" for a in engram.agents())


def test_forget_dialog_previews_then_forgets(window, seeded, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from ui.forget_dialog import ForgetDialog

    tab = open_tab(window, "claude")
    fid = next(f.id for f in seeded.list() if f.content.startswith("Prefers PostgreSQL"))
    dlg = ForgetDialog(window.engram, window.runner, "claude", [fid], window)
    qtbot.addWidget(dlg)
    assert not dlg.execute_btn.isEnabled()
    with qtbot.waitSignal(dlg.previewed, timeout=30000) as ok:
        dlg.preview_btn.click()
    assert ok.args == [True], dlg.status.text()
    assert "facts: 1" in dlg.preview_text.toPlainText()
    assert dlg.execute_btn.isEnabled()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    with qtbot.waitSignal(dlg.forgotten, timeout=60000):
        dlg.execute_btn.click()
    assert seeded.facts.rows([fid]) == {}
    assert seeded.remember("Prefers PostgreSQL over MySQL for new services").status == "blocked"
    qtbot.waitUntil(lambda: tab.model.row_of(fid) is None, timeout=10000)


def test_exit_after_first_paint_reports_json(engram, seeded, tmp_path):
    engram.close()
    out = run_engram(
        "app.main",
        "--data-dir",
        str(engram.config.data_dir),
        "--exit-after-first-paint",
        timeout=180,
        QT_QPA_PLATFORM="offscreen",
    )
    assert out.returncode == 0, out.stderr
    line = [l for l in out.stdout.splitlines() if l.startswith("{")][-1]
    data = json.loads(line)
    assert data["facts"] == 42 and data["first_paint_ms"] > 0 and data["rss_mb"] > 10

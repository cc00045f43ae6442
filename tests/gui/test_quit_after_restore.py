"""Issue 36: quitting right after Restore all. At 100k facts memory.md's recompile for the
facts that came back takes 10-20 s on a loaded machine, and the quit waited for it as the
store closed (the process kept the store's lock all that time). Now the quit gives it a short
grace, stops it, and the next open recompiles first. Real store; the store is opened,
followed and closed as app/store_opener.py and app/main.py do."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from tests_gui_helpers import answer_modal, open_tab

from services.config import StoreConfig
from services.engram import Engram
from services.lifecycle.compile import CompileService


def test_quit_right_after_restore_all_ends_and_memory_md_is_right_at_next_open(
    tmp_path, qtbot, monkeypatch
):
    from test_round_three_scale import _archived_store

    from services.lifecycle import autocompile
    from ui.main_window import MainWindow

    store = tmp_path / "s"
    _archived_store(store, 300)
    # no grace at all: a recompile as long as a 100k store's is never done in time on any
    # machine, and a small store's would be (the grace is what makes the quit end)
    monkeypatch.setattr(autocompile, "QUIT_GRACE_S", 0.0)
    e = Engram.open(StoreConfig(data_dir=store, semantic=False))
    e.follow_changes("debounce")
    m = e.agent("claude")
    memory_md = m.data_dir / "memory.md"
    w = MainWindow(e, use_tray=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    tab = open_tab(w, "claude")
    tab.show_view("Archived")
    view = tab.archived
    qtbot.waitUntil(lambda: not view.is_loading() and view.total == 300, timeout=30000)
    with qtbot.waitSignal(view.restored, timeout=60000):
        answer_modal(
            qtbot, lambda: qtbot.mouseClick(view.all_btn, Qt.LeftButton), button_text="Yes"
        )
    w.tray.act_quit.trigger()  # Engram → Quit, at once
    assert not w.isVisible(), "the window is gone"
    e.close(quick=True)  # what app/main.py does after the event loop
    owed = json.loads((store / "compile-owed.json").read_text(encoding="utf-8"))
    assert owed == {"agents": [m.agent_id]}, "the recompile is owed to the next start"
    stale = memory_md.read_text(encoding="utf-8") if memory_md.exists() else ""
    assert "Scratch note 299 about build 897" not in stale, "the quit did not wait for it"

    # the next start: the owed recompile comes first, and nothing else has to change
    e2 = Engram.open(StoreConfig(data_dir=store, semantic=False))
    e2.follow_changes("debounce")
    try:
        qtbot.waitUntil(lambda: not (store / "compile-owed.json").exists(), timeout=60000)
        text = memory_md.read_text(encoding="utf-8")
        assert "- [tmp] Scratch note 299 about build 897" in text
        assert text.count("Scratch note ") > 100
        # byte for byte what a compile of the restored store writes
        again = CompileService(e2.agent("claude")).compile(
            rewrite=False, skip_unchanged=True, export=False
        )
        assert again.unchanged and memory_md.read_text(encoding="utf-8") == text
    finally:
        e2.close()

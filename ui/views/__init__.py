"""The pictures of issue 36, opened from the View menu's Insights section: *What agents load*, *Memory
health*, the forget receipts as pictures, and each agent's read log with *Pause capture*.
``install(window)`` is the one hook MainWindow calls; the views keep their own state here
(``window.insights``) so the window's module stays as it is."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction


class Insights:
    """The View menu's Insights actions and the windows they opened (one of each at a time)."""

    def __init__(self, window):
        self.window = window
        self.open: dict[str, Any] = {}
        # in the View menu itself: a submenu made at attach would change the menu bar the
        # window painted before the store opened
        menu = window.view_menu
        self.section = menu.addSection("Insights")
        self.menu = menu
        self.act_load = self._act("What agents &load", "load", "Ctrl+Alt+L")
        self.act_health = self._act("Memory &health", "health", "Ctrl+Alt+H")
        self.act_receipts = self._act("Forget &receipts (pictures)", "receipts", "Ctrl+Alt+R")
        self.act_reads = self._act("Read log and &pause capture", "reads", "Ctrl+Alt+P")

    def _act(self, text: str, key: str, shortcut: str) -> QAction:
        a = QAction(text, self.window)
        a.setShortcut(shortcut)
        a.triggered.connect(lambda _=False: self.show(key))
        self.menu.addAction(a)
        self.window.addAction(a)  # the key works without opening the menu
        return a

    def show(self, key: str, slug: str | None = None):
        from shiboken6 import isValid

        old = self.open.get(key)
        if old is not None and isValid(old):
            old.close()
        tab = self.window.current_agent_tab()
        slug = slug or (tab.memory.slug if tab is not None else None)
        view = self._make(key, slug)
        self.open[key] = view
        view.show()
        return view

    def _make(self, key: str, slug: str | None):
        if key == "load":
            from ui.views.load_board import LoadBoard

            return LoadBoard(self.window)
        if key == "health":
            from ui.views.health import HealthView

            return HealthView(self.window, slug=slug)
        if key == "receipts":
            from ui.views.receipt_picture import ReceiptPictureView

            return ReceiptPictureView(self.window)
        from ui.views.read_log import ReadLogView

        return ReadLogView(self.window, slug=slug)


def install(window) -> Insights:
    """Called once from MainWindow.attach, when the store is open."""
    window.insights = Insights(window)
    return window.insights

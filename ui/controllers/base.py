"""What every controller of the main window shares: the window, and the store it opened."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

if TYPE_CHECKING:
    from ui.main_window import MainWindow
    from ui.workers import JobRunner


class Controller(QObject):
    """A child of the window: its slots run in the GUI thread and die with the window."""

    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.w = window

    @property
    def engram(self) -> Any:
        return self.w.engram

    @property
    def runner(self) -> JobRunner:
        return self.w.runner

    def show_message(self, text: str) -> None:
        self.w.show_message(text)

    def show_error(self, text: str) -> None:
        self.w.show_error(text)

"""The "All agents" tab: search every agent at once."""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from services import EngramError
from ui.fact_editor import FactEditor
from ui.panes import side_by_side
from ui.search_panel import SearchPanel


class AllAgentsTab(QWidget):
    """Search every agent at once; picking a hit opens it in its agent's tab."""

    def __init__(self, engram, runner, parent=None):
        super().__init__(parent)
        self.engram = engram
        self.search = SearchPanel(engram, runner, None, parent=self)
        self.preview = FactEditor()
        self.preview.title.setText("Pick a result to see it here.")
        self._read_only_preview()
        self.preview.save_btn.hide()
        self.preview.revert_btn.hide()
        hint = QLabel(
            "Search the memories of every agent. Press Enter (or double-click) on a "
            "result to open it in its agent's tab, where it can be edited."
        )
        hint.setWordWrap(True)
        split = side_by_side(self.search, self.preview, (3, 1), (980, 340))
        lay = QVBoxLayout(self)
        lay.addWidget(hint)
        lay.addWidget(split, 1)
        self.search.hit_activated.connect(self._preview)

    def _read_only_preview(self) -> None:
        """The preview shows a fact; it is edited in its agent's tab (set_fact enables the
        fields again, so this follows every set_fact)."""
        p = self.preview
        for w in (p.content, p.category, p.importance, p.tags, p.pinned):
            w.setEnabled(False)

    @Slot(str, int)
    def _preview(self, slug: str, fact_id: int) -> None:
        try:
            mem = self.engram.agent(slug)
            self.preview.set_fact(mem.get(fact_id), mem.facts.history(fact_id))
        except EngramError:
            self.preview.set_fact(None)
            return
        self._read_only_preview()
        self.preview.title.setText(f"<b>{slug}</b> · " + self.preview.title.text())

"""The agent tab's writes: add, edit (asking first over a change made elsewhere), pin,
recategorize and delete, each an undoable command on the runner's serial lane."""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QInputDialog, QMenu, QMessageBox

from services import EngramError
from ui.agent_tab_selection import TabSelection
from ui.undo import (
    AddFactCommand,
    DeleteFactsCommand,
    EditFactsCommand,
    pin_command,
    recategorize_command,
)


class TabWrites(TabSelection):
    def _push(self, cmd) -> None:
        self.undo_stack.push(cmd)

    @Slot(int, dict, dict)
    def _on_edit_requested(self, fact_id: int, before: dict, after: dict) -> None:
        if not self._no_conflict(fact_id, before, after):
            return
        self._push(
            EditFactsCommand(
                self.memory,
                self.runner,
                {fact_id: before},
                {fact_id: after},
                self._after_write,
                self._write_failed,
            )
        )

    def _no_conflict(self, fact_id: int, before: dict, after: dict) -> bool:
        """A save over a change made elsewhere meanwhile (the CLI, a hook, another window)
        asks first instead of silently writing over it."""
        try:
            now = self.memory.get(fact_id)
        except EngramError as exc:
            self._write_failed(f"Fact #{fact_id} cannot be saved: {exc}")
            return False
        stored = {k: (list(getattr(now, k)) if k == "tags" else getattr(now, k)) for k in before}
        if "importance" in stored:
            stored["importance"] = round(stored["importance"], 2)
        if stored == before:
            return True
        theirs = (
            now.content if "content" in before else ", ".join(f"{k}: {stored[k]}" for k in stored)
        )
        box = QMessageBox(
            QMessageBox.Warning,
            "Changed elsewhere",
            f"Fact #{fact_id} was changed outside this window since you started editing it.",
            QMessageBox.Cancel,
            self,
        )
        box.setInformativeText(f"It now reads: “{theirs[:300]}”")
        mine = box.addButton("Save mine over it", QMessageBox.AcceptRole)
        box.addButton("Keep theirs", QMessageBox.DestructiveRole)
        box.setDefaultButton(QMessageBox.Cancel)
        box.setEscapeButton(QMessageBox.Cancel)
        self.conflict_box = box
        box.exec()
        self.conflict_box = None
        clicked = box.clickedButton()
        if clicked is mine:
            before.update(stored)  # undo puts back what was stored, not the stale version
            return True
        if clicked is not None and box.buttonRole(clicked) == QMessageBox.DestructiveRole:
            self.editor.revert()
            self._load_editor(fact_id)
        return False

    @Slot()
    def add_fact(self, text: str | None = None, category: str = "fact") -> None:
        """Edit → Add fact: the text passes the write policy like any other write."""
        if text is None:
            text, ok = QInputDialog.getMultiLineText(
                self,
                f"Add a fact to {self.memory.info.name}",
                "What should the agent remember? (one fact; Ctrl+Z takes it back)",
            )
            if not ok:
                return
        text = text.strip()
        if not text:
            return
        if self.search.query.text():
            self.search.query.clear()
        self.views.setCurrentIndex(0)
        self._push(
            AddFactCommand(
                self.memory, self.runner, text, category, self._after_write, self._write_failed
            )
        )

    @Slot()
    def pin_selected(self) -> None:
        facts = [f for f in self.selected_facts() if not f.pinned]
        if facts:
            self._push(
                pin_command(
                    self.memory, self.runner, facts, True, self._after_write, self._write_failed
                )
            )

    @Slot()
    def unpin_selected(self) -> None:
        facts = [f for f in self.selected_facts() if f.pinned]
        if facts:
            self._push(
                pin_command(
                    self.memory, self.runner, facts, False, self._after_write, self._write_failed
                )
            )

    @Slot()
    def recategorize_selected(self, category: str | None = None) -> None:
        facts = self.selected_facts()
        if not facts:
            return
        if not category:
            category, ok = QInputDialog.getText(
                self,
                "Change category",
                f"New category for {len(facts)} fact(s):",
                text=facts[0].category,
            )
            if not ok or not category.strip():
                return
        self._push(
            recategorize_command(
                self.memory,
                self.runner,
                facts,
                category.strip(),
                self._after_write,
                self._write_failed,
            )
        )

    @Slot()
    def delete_selected(self, confirm: bool = True) -> None:
        facts = self.selected_facts()
        if not facts:
            return
        if confirm and len(facts) > 20:
            # Enter never confirms a bulk delete: No is the default
            box = QMessageBox(
                QMessageBox.Question,
                "Delete facts",
                f"Delete {len(facts)} facts? (Ctrl+Z undoes it)",
                QMessageBox.Yes | QMessageBox.No,
                self,
            )
            box.button(QMessageBox.Yes).setText(f"Delete {len(facts)}")
            box.setDefaultButton(QMessageBox.No)
            box.setEscapeButton(QMessageBox.No)
            if box.exec() != QMessageBox.Yes:
                return
        self._push(
            DeleteFactsCommand(
                self.memory, self.runner, facts, self._after_write, self._write_failed
            )
        )

    def _after_write(
        self, kind: str, ids: list, title: str = "", undone: bool = False, step=None
    ) -> None:
        def done():
            if kind == "restore":
                self.select_ids(ids, current=ids[0])
                self._sync_editor(reload=True)
            if self.search.query.text().strip():
                self.search.run_now()
            self._update_bulk()
            if title:
                self.confirmed.emit(title, not undone, step)
            self.write_done.emit(kind, list(ids))

        if kind == "edit":
            self.model.refresh_rows(ids)
            if self.editor.fact is not None and self.editor.fact.id in ids:
                self._load_editor(self.editor.fact.id)
            done()
        else:
            self._after_reload.append(done)
            self.refresh()

    def _write_failed(self, message: str) -> None:
        self.message.emit(message)
        QMessageBox.warning(self, "Engram", message)

    @Slot("QPoint")
    def _context_menu(self, pos) -> None:
        if not self.selected_ids():
            return
        m = QMenu(self)
        m.addAction("Pin", self.pin_selected)
        m.addAction("Unpin", self.unpin_selected)
        m.addAction("Change category…", self.recategorize_selected)
        m.addSeparator()
        m.addAction("Delete", lambda: self.delete_selected())
        m.exec(self.table.viewport().mapToGlobal(pos))

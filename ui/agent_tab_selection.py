"""The agent tab's selection: the editor and every action follow the selection of the list
on show (the table or the search results); unsaved typing is asked about before it is left, and
the selection survives a reload."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QTimer, Slot
from PySide6.QtWidgets import QMessageBox

from services import EngramError
from ui.agent_tab_parts import TabParts
from ui.fact_model import COLUMNS


class TabSelection(TabParts):
    def _view_ids(self) -> list[int]:
        """The facts selected in the list on show (the table, or the search results)."""
        if self.stack.currentIndex() == 1:
            rows = self.search.table.selectionModel().selectedRows()
            hits = self.search.model.hits
            return [hits[r.row()][1].fact.id for r in rows if r.row() < len(hits)]
        rows = sorted(r.row() for r in self.table.selectionModel().selectedRows())
        return [i for i in (self.model.id_at(r) for r in rows) if i is not None]

    def _current_id(self) -> int | None:
        if self.stack.currentIndex() == 1:
            cur = self.search.table.currentIndex()
            hits = self.search.model.hits
            return hits[cur.row()][1].fact.id if cur.isValid() and cur.row() < len(hits) else None
        cur = self.table.currentIndex()
        return self.model.id_at(cur.row()) if cur.isValid() else None

    def selected_ids(self) -> list[int]:
        """What an action acts on: nothing unless the facts list is the view on show."""
        return self._view_ids() if self.views.currentIndex() == 0 else []

    def selected_facts(self):
        ids = self.selected_ids()
        rows = self.memory.facts.rows(ids)
        return [rows[i] for i in ids if i in rows]

    def select_ids(self, ids, current: int | None = None) -> None:
        sm = self.table.selectionModel()
        sel = QItemSelection()
        for fid in ids:
            r = self.model.row_of(fid)
            if r is not None:
                sel.select(self.model.index(r, 0), self.model.index(r, len(COLUMNS) - 1))
        sm.select(sel, QItemSelectionModel.ClearAndSelect)
        if current is not None and self.model.row_of(current) is not None:
            sm.setCurrentIndex(
                self.model.index(self.model.row_of(current), 0), QItemSelectionModel.NoUpdate
            )

    def show_fact(self, fact_id: int) -> None:
        """Select a fact (from the All agents tab, a compiled line, a review item) in the list:
        the row is highlighted *and* in the editor. A search or a filter hiding it is
        cleared first."""
        self.views.setCurrentIndex(0)
        if self.search.query.text():
            self.search.query.clear()
        if self.model.row_of(fact_id) is None and not self._is_default_filter():
            self._after_reload.append(lambda: self._select_fact(fact_id))
            self.filter_bar.clear()
            return
        self._select_fact(fact_id)

    @Slot(list)
    def show_facts(self, ids: list) -> None:
        """Open the facts behind a compiled line: one is opened, several are selected."""
        ids = [int(i) for i in ids]
        if len(ids) == 1:
            self.show_fact(ids[0])
            return
        self.views.setCurrentIndex(0)
        if self.search.query.text():
            self.search.query.clear()

        def select():
            self.select_ids(ids, current=ids[0])
            self._sync_editor()

        if any(self.model.row_of(i) is None for i in ids) and not self._is_default_filter():
            self._after_reload.append(select)
            self.filter_bar.clear()
            return
        select()

    def _is_default_filter(self) -> bool:
        f = self.filter_bar.filters()
        plain = not (f.category or f.tags or f.memory_type or f.since or f.until)
        plain = plain and f.pinned is None
        return plain and f.status in (None, ["active"])

    def _select_fact(self, fact_id: int) -> None:
        r = self.model.row_of(fact_id)
        if r is None:
            self.table.clearSelection()
            self.message.emit(
                f"Fact #{fact_id} is not in the loaded part of the list: search for it."
            )
            return
        self.table.selectRow(r)
        self.table.scrollTo(self.model.index(r, 0))
        self._sync_editor()

    @Slot(QItemSelection, QItemSelection)
    def _on_selection(self, *_):
        self._sync_editor()

    @Slot("QModelIndex", "QModelIndex")
    def _on_current(self, _cur, _prev) -> None:
        self._sync_editor()

    def _sync_editor(self, reload: bool = False) -> None:
        """Show the current selected fact (or the first selected one); nothing selected,
        nothing in the editor, and the actions are off."""
        ids = self._view_ids()
        shown = self.editor.fact.id if self.editor.fact is not None else None
        cur = self._current_id()
        want = cur if cur in ids else shown if shown in ids else ids[0] if ids else None
        if want != shown and self.editor.is_dirty():
            if self._holding is not None:  # just answered Cancel: the view is catching up
                self._update_bulk()
                return
            if want is None:  # a search, filter, Clear or sort hid it: keep the typing
                self.editor.note_kept()
                self._update_bulk()
                return
            if not self._resolve_unsaved(shown):
                self._update_bulk()
                return
        if want != shown or (reload and want is not None):
            self._load_editor(want)
        self._update_bulk()

    def _ask_unsaved(self, shown: int | None, stay: str) -> bool | None:
        """Save / Discard / Cancel for the editor's unsaved typing (the default: Enter or Esc
        lose nothing). True: saved or discarded; None: Cancel (or a save that did not go,
        e.g. "Changed elsewhere" answered Cancel)."""
        if getattr(self, "_asking", False):
            return None
        box = QMessageBox(
            QMessageBox.Question,
            "Unsaved changes",
            f"Fact #{shown} has changes you have not saved.",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel,
            self,
        )
        box.setInformativeText(f"Save them, discard them, or {stay} (Cancel).")
        box.setDefaultButton(QMessageBox.Cancel)
        box.setEscapeButton(QMessageBox.Cancel)
        self.unsaved_box = box
        self._asking = True
        try:
            answer = box.exec()
        finally:
            self._asking = False
            self.unsaved_box = None
        if answer == QMessageBox.Save:
            steps = self.undo_stack.count()
            self.editor.save()
            return True if self.undo_stack.count() > steps else None
        if answer == QMessageBox.Discard:
            self.editor.revert()
            return True
        return None

    def settle_unsaved(self) -> bool:
        """Before quitting: unsaved typing is saved or discarded only when the user says so.
        False: Cancel, the app stays open with the typing."""
        if self.editor.fact is None or not self.editor.is_dirty():
            return True
        return bool(self._ask_unsaved(self.editor.fact.id, "keep Engram open"))

    def _resolve_unsaved(self, shown: int | None) -> bool:
        """Another fact was picked while the editor holds unsaved typing. False: stay on
        ``shown``."""
        if self._ask_unsaved(shown, "stay on the fact"):
            return True
        if shown is not None:
            # the view is still inside the key or click that moved the row: it selects and
            # moves its focus frame again once the prompt returns, so the highlight is put
            # back now and once more when that event is over (no second prompt meanwhile)
            self._holding = shown
            self._put_back(shown)
            QTimer.singleShot(0, self, lambda: self._release_hold(shown))
        return False

    _holding: int | None = None

    def _release_hold(self, shown: int) -> None:
        if self._holding == shown:
            self._put_back(shown)
            self._holding = None

    def _put_back(self, fact_id: int) -> None:
        """Highlight ``fact_id`` (selection and focus frame) in the list on show, quietly."""
        if self.stack.currentIndex() == 1:
            table = self.search.table
            row = self.search.model.row_of(fact_id)
            sm = table.selectionModel()
            sm.blockSignals(True)
            if row is None:
                sm.clearSelection()
            else:
                sm.setCurrentIndex(
                    self.search.model.index(row, 0),
                    QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
            sm.blockSignals(False)
            table.viewport().update()
            return
        sm = self.table.selectionModel()
        sm.blockSignals(True)
        self.select_ids([fact_id], current=fact_id)
        sm.blockSignals(False)
        self.table.viewport().update()

    def _load_editor(self, fact_id: int | None) -> None:
        if fact_id is None:
            self.editor.set_fact(None)
            return
        try:
            fact = self.memory.get(fact_id)
        except EngramError:
            self.editor.set_fact(None)
            return
        self.editor.set_fact(fact, self.memory.facts.history(fact_id))

    @Slot(str, int)
    def _on_hit(self, _slug: str, _fact_id: int) -> None:
        self._sync_editor()

    def pin_states(self) -> tuple[bool, bool]:
        """(something selected is unpinned, something selected is pinned): Pin and Unpin are
        on only when they would change something."""
        ids = self.selected_ids()
        if self.stack.currentIndex() == 1:
            by_id = {h[1].fact.id: h[1].fact for h in self.search.model.hits}
            facts = [by_id.get(i) for i in ids]
        else:
            facts = [self.model.fact_at(r) for r in map(self.model.row_of, ids) if r is not None]
        known = [f for f in facts if f is not None]
        if len(known) < len(ids):  # not all at hand: leave both on, the action checks
            return bool(ids), bool(ids)
        return any(not f.pinned for f in known), any(f.pinned for f in known)

    def _update_bulk(self) -> None:
        n = len(self.selected_ids())
        for b in (self.recat_btn, self.delete_btn):
            b.setEnabled(n > 0)
        can_pin, can_unpin = self.pin_states()
        self.pin_btn.setEnabled(can_pin)
        self.unpin_btn.setEnabled(can_unpin)
        self.delete_btn.setText(f"Delete {n}" if n > 1 else "Delete")
        self.selection_changed.emit()

    def refresh(self) -> None:
        """Re-read the facts keeping the selection, the current row and the scroll position
        (restored when the model has reloaded, see ``_on_reloaded``)."""
        self._remember_selection()
        self.model.refresh()

    @Slot()
    def _remember_selection(self) -> None:
        if self._restore is None:
            ids = self._view_ids() if self.stack.currentIndex() == 0 else []
            cur = self.table.currentIndex()
            cur_id = self.model.id_at(cur.row()) if cur.isValid() else None
            self._restore = (ids, cur_id, self.table.verticalScrollBar().value())

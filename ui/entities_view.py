"""Entities of one agent: who and what its memory names, each with its facts over time,
its relations and where its links came from; merge, rename, alias and undo.

Queries are small indexed reads (an agent's entity list, one entity's links), so they run on
the GUI thread when the tab is shown; every change goes through ``memory.entities`` (audited,
undoable: the view keeps the last event for its Undo button)."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QListWidget,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from services import ENTITY_TYPES, EngramError, ForgetScope, expand_entity
from ui.forget_dialog import ForgetDialog
from ui.undo import STEP_SEQ


class EntityForgetDialog(ForgetDialog):
    """The forget dialog with one scope: everything about an entity (its facts, and its name
    and aliases wherever they appear); preview first, as always."""

    def __init__(self, engram, runner, slug: str, entity_id: int, name: str, parent=None):
        self.entity_scope = expand_entity(engram, ForgetScope(agent=slug), str(entity_id))
        super().__init__(engram, runner, slug, self.entity_scope.fact_ids, parent)
        self.setWindowTitle(f"Forget {name} — {slug}")
        self.about = f"everything about {name}"
        self.use_selection.setText(
            f"Everything about {name}: {len(self.entity_scope.fact_ids)} fact(s), and the "
            "name and aliases in episodes, layers and files"
        )
        self.use_selection.setEnabled(True)
        self.use_selection.setChecked(True)

    def scope(self):
        if self.use_selection.isChecked():
            return self.entity_scope
        return super().scope()


class EntityCommand(QUndoCommand):
    """An entity change already made (a merge): undo reverts its event, redo makes it again."""

    def __init__(self, view, text: str, event: int, redo):
        super().__init__(text)
        self.view, self.event, self._redo = view, event, redo
        self.seq = next(STEP_SEQ)
        self._first = True

    def redo(self) -> None:
        if self._first:
            self._first = False
            return
        self.event = self._redo()
        self.view._after_step(self, False)

    def undo(self) -> None:
        self.view.memory.entities.undo(self.event)
        self.view._after_step(self, True)


class EntitiesView(QWidget):
    changed = Signal()  # an action changed the entities (merge, rename, alias, undo)
    step = Signal(object)  # an undoable EntityCommand for the tab's stack
    step_done = Signal(object, bool)  # the command, undone

    def __init__(self, memory, runner=None, parent=None):
        super().__init__(parent)
        self.memory = memory
        self.rows: list = []
        self.page = None
        self.last_event: int | None = None
        self.type_filter = QComboBox()
        self.type_filter.addItems(["All types", *ENTITY_TYPES])
        self.type_filter.currentIndexChanged.connect(self.reload)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Name", "Type", "Facts", "Last mentioned"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):  # type, count and date stay readable beside a long name
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.currentCellChanged.connect(lambda r, *_: self._show_row(r))
        self.candidates = QLabel()
        self.candidates.setWordWrap(True)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.type_filter)
        ll.addWidget(self.table, 1)
        ll.addWidget(self.candidates)

        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setStyleSheet("font-weight: bold; font-size: 14pt")
        self.details = QLabel()
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setWordWrap(True)
        self.relations = QListWidget()
        self.facts = QTreeWidget()
        self.facts.setHeaderLabels(["Day", "Link", "Fact"])
        self.facts.setRootIsDecorated(False)
        self.facts.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.merge_btn = QPushButton("Merge selected into this")
        self.rename_btn = QPushButton("Rename…")
        self.alias_btn = QPushButton("Add alias…")
        self.undo_btn = QPushButton("Undo")
        self.forget_btn = QPushButton("Forget…")
        self.runner = runner
        self.forget_dialog: EntityForgetDialog | None = None
        self.undo_btn.setEnabled(False)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.merge_btn.clicked.connect(self.merge_selected)
        self.rename_btn.clicked.connect(self._ask_rename)
        self.alias_btn.clicked.connect(self._ask_alias)
        self.undo_btn.clicked.connect(self.undo)
        self.forget_btn.clicked.connect(self.forget_current)
        buttons = QHBoxLayout()
        for b in (self.merge_btn, self.rename_btn, self.alias_btn, self.undo_btn, self.forget_btn):
            buttons.addWidget(b)
        buttons.addStretch(1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.title)
        rl.addWidget(self.details)
        rl.addWidget(QLabel("Relations"))
        rl.addWidget(self.relations, 1)
        rl.addWidget(QLabel("Facts over time"))
        rl.addWidget(self.facts, 3)
        rl.addLayout(buttons)
        rl.addWidget(self.status)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 2)
        split.setSizes([440, 900])  # the list shows name, type, count and date at once
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self._set_actions(False)

    def showEvent(self, ev) -> None:  # the list is read when the tab is shown
        super().showEvent(ev)
        self.reload()

    # reading -------------------------------------------------------------------------------
    def reload(self) -> None:
        current = self.page.entity.id if self.page else None
        typ = self.type_filter.currentText()
        self.rows = self.memory.entities.list(None if typ == "All types" else typ)
        self.table.setRowCount(len(self.rows))
        for r, e in enumerate(self.rows):
            for c, text in enumerate(
                (e.name, e.type, str(e.mention_count), f"{e.last_mentioned:%Y-%m-%d}")
            ):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, e.id)
                self.table.setItem(r, c, item)
        n = len(self.memory.entities.candidates())
        self.candidates.setText(
            f"{n} possible duplicate(s): same first name, no shared context "
            "(`engram entities --candidates`)"
            if n
            else ""
        )
        ids = [e.id for e in self.rows]
        self.select(current if current in ids else (ids[0] if ids else None))

    def select(self, entity_id: int | None) -> None:
        ids = [e.id for e in self.rows]
        if entity_id in ids:
            # explicit flags: setCurrentCell() reads the held keys, so after Ctrl+Z it would
            # toggle this row into the old selection and a later merge would name extra ones
            index = self.table.model().index(ids.index(entity_id), 0)
            self.table.selectionModel().setCurrentIndex(
                index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self._show(entity_id)
        else:
            self._show(None)

    def _show_row(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            self._show(self.rows[row].id)

    def _show(self, entity_id: int | None) -> None:
        self.page = self.memory.entities.page(entity_id) if entity_id else None
        self.relations.clear()
        self.facts.clear()
        self._set_actions(self.page is not None)
        if self.page is None:
            self.title.setText("No entities yet" if not self.rows else "")
            self.details.setText("")
            return
        e = self.page.entity
        self.title.setText(f"{e.name}  ({e.type})")
        aka = f"Also known as: {', '.join(e.aliases)}\n" if e.aliases else ""
        sources = ", ".join(f"{k}: {v}" for k, v in sorted(self.page.sources.items()))
        self.details.setText(
            f"{aka}{e.mention_count} fact(s), first {e.first_mentioned:%Y-%m-%d}, last "
            f"{e.last_mentioned:%Y-%m-%d}\nLinks by source: {sources}"
        )
        for a, typ, b, _ in self.page.relations:
            self.relations.addItem(f"{a} — {typ} → {b}")
        for f in self.page.facts:
            item = QTreeWidgetItem([f"{f.created_at:%Y-%m-%d}", f.link_source, f.content])
            item.setData(0, Qt.ItemDataRole.UserRole, f.id)
            if f.status != "active":
                item.setToolTip(2, f.status)
            self.facts.addTopLevelItem(item)

    def _set_actions(self, on: bool) -> None:
        for b in (self.merge_btn, self.rename_btn, self.alias_btn, self.forget_btn):
            b.setEnabled(on and (b is not self.forget_btn or self.runner is not None))

    # actions -------------------------------------------------------------------------------
    def _run(self, what: str, fn, redo=None) -> bool:
        try:
            self.last_event = fn()
        except EngramError as exc:
            self.status.setText(str(exc))
            return False
        self.status.setText(what)
        self.undo_btn.setEnabled(True)
        self.reload()
        self.changed.emit()
        if redo is not None and self.last_event is not None:
            self.step.emit(EntityCommand(self, what, self.last_event, redo))
        return True

    def _after_step(self, cmd, undone: bool) -> None:
        self.last_event = None if undone else cmd.event
        self.undo_btn.setEnabled(not undone)
        self.status.setText(f"Undone: {cmd.text()}" if undone else cmd.text())
        self.reload()
        self.changed.emit()
        self.step_done.emit(cmd, undone)

    def selected_ids(self) -> list[int]:
        rows = {i.row() for i in self.table.selectedIndexes()}
        return [self.rows[r].id for r in sorted(rows) if r < len(self.rows)]

    def merge_selected(self) -> bool:
        """Merge the other selected entities into the one shown, after a confirmation that
        names both sides (No is the default). One undo step (Ctrl+Z, the status bar)."""
        if self.page is None:
            return False
        target, into = self.page.entity.id, self.page.entity.name
        others = [i for i in self.selected_ids() if i != target]
        if not others:
            self.status.setText("select the entities to merge into this one (Ctrl+click)")
            return False
        names = [e.name for e in self.rows if e.id in others]
        listed = ", ".join(f"“{n}”" for n in names)
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Merge entities",
            f"Merge {listed} into “{into}”?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setInformativeText(
            f"Their facts move to “{into}” and their names become its aliases. Ctrl+Z undoes it."
        )
        box.button(QMessageBox.StandardButton.Yes).setText("Merge")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setEscapeButton(QMessageBox.StandardButton.No)
        self.merge_box = box
        if box.exec() != QMessageBox.StandardButton.Yes:
            return False
        entities = self.memory.entities
        return self._run(
            f"Merged {listed} into “{into}”",
            lambda: entities.merge(target, others),
            redo=lambda: entities.merge(target, others),
        )

    def rename(self, name: str) -> bool:
        if self.page is None:
            return False
        eid = self.page.entity.id
        return self._run("renamed", lambda: self.memory.entities.rename(eid, name))

    def add_alias(self, alias: str) -> bool:
        if self.page is None:
            return False
        eid = self.page.entity.id
        return self._run("alias added", lambda: self.memory.entities.alias(eid, add=[alias]))

    def undo(self) -> bool:
        if self.last_event is None:
            return False
        st = getattr(self, "undo_stack", None)
        top = st.command(st.index() - 1) if st is not None and st.canUndo() else None
        if isinstance(top, EntityCommand) and top.event == self.last_event:
            st.undo()  # the same step Ctrl+Z would undo: the stack stays in step
            return True
        ev, self.last_event = self.last_event, None
        ok = self._run("undone", lambda: self.memory.entities.undo(ev))
        self.last_event = None
        self.undo_btn.setEnabled(False)
        return ok

    def forget_current(self) -> EntityForgetDialog | None:
        """Open the forget dialog on this entity (preview, then erase everywhere)."""
        if self.page is None or self.runner is None:
            return None
        e = self.page.entity
        dlg = EntityForgetDialog(
            self.memory.engram, self.runner, self.memory.slug, e.id, e.name, self
        )
        dlg.forgotten.connect(lambda _r: (self.reload(), self.changed.emit()))
        dlg.open()
        self.forget_dialog = dlg
        return dlg

    def _ask_rename(self) -> None:
        if self.page is None:
            return
        name, ok = QInputDialog.getText(self, "Rename entity", "Name:", text=self.page.entity.name)
        if ok and name.strip():
            self.rename(name)

    def _ask_alias(self) -> None:
        alias, ok = QInputDialog.getText(self, "Add alias", "Also known as:")
        if ok and alias.strip():
            self.add_alias(alias)

"""The review inbox: facts waiting for the user (personal data under "ask", low-confidence
candidates from sessions), with where they came from and how sure the capture was. Accept
(A), Edit (E) or Reject (R) one or many from the keyboard."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from services import REJECT
from ui.tables import read_only_table

REASONS = {
    "personal-data": "personal data (your policy asks first)",
    "low-confidence": "not sure it is worth keeping",
}


def _with_states(memory, ids, decide):
    """Run a decision; (ids decided, state before, state after) for its undo step. A memory
    that no longer exists after it (a reject that erased it) makes the step not undoable."""
    from services import EngramError
    from ui.undo import review_state

    before = {i: review_state(memory.get(i)) for i in ids}
    done = decide()
    try:
        after = {i: review_state(memory.get(i)) for i in done}
    except EngramError:
        after = {}
    return done, {i: before[i] for i in done if i in before}, after


class ReviewView(QWidget):
    count_changed = Signal(int)
    decided = Signal(str, list)  # accept|reject|edit, fact ids
    # the same, with each memory's state before and after (the tab's undo step)
    decided_step = Signal(str, object, object)

    def __init__(self, memory, runner, parent=None):
        super().__init__(parent)
        self.memory, self.runner = memory, runner
        self.hint = QLabel(
            "Memories waiting for you before an agent may use them. "
            "A accepts, E edits, N hides it for now (kept, undoable), R rejects: the text is "
            "erased everywhere and never comes back."
        )
        self.hint.setWordWrap(True)
        self.table = read_only_table(["Content", "Why it waits", "Confidence", "Source", "Added"])
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.Stretch)
        for c in (1, 2, 3, 4):
            hh.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        self.accept_btn = QPushButton("&Accept")
        self.edit_btn = QPushButton("&Edit…")
        self.reject_btn = QPushButton("&Reject…")
        self.not_now_btn = QPushButton("&Not now")
        self.not_now_btn.setToolTip("Hide it from the inbox and keep its text (Ctrl+Z undoes it)")
        self.accept_btn.clicked.connect(lambda: self.decide("accept"))
        self.not_now_btn.clicked.connect(lambda: self.decide("not_now"))
        self.reject_btn.clicked.connect(lambda: self.decide("reject"))
        self.edit_btn.clicked.connect(lambda: self.edit_current())
        for key, fn in (
            ("A", lambda: self.decide("accept")),
            ("R", lambda: self.decide("reject")),
            ("N", lambda: self.decide("not_now")),
            ("E", lambda: self.edit_current()),
        ):
            QShortcut(QKeySequence(key), self.table, activated=fn, context=Qt.WidgetShortcut)
        self.status = QLabel("")
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        for b in (self.accept_btn, self.edit_btn, self.not_now_btn, self.reject_btn):
            row.addWidget(b)
        lay = QVBoxLayout(self)
        lay.addWidget(self.hint)
        lay.addWidget(self.table, 1)
        lay.addLayout(row)
        self.table.itemSelectionChanged.connect(self._update)
        self.items: list = []
        self._update()

    def reload(self) -> None:
        self.items = self.memory.review.items()
        self.table.setRowCount(len(self.items))
        for r, it in enumerate(self.items):
            f = it.fact
            src = f.source + (f" ({f.source_ref})" if f.source_ref else "")
            conf = f"{it.confidence:.0%}" if isinstance(it.confidence, int | float) else "—"
            cells = [
                f.content.replace("\n", " "),
                REASONS.get(it.reason, it.reason),
                conf,
                src,
                f"{f.created_at:%Y-%m-%d %H:%M}",
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, f.id)
                item.setToolTip(text)
                if c == 2:
                    item.setTextAlignment(Qt.AlignCenter)
                self.table.setItem(r, c, item)
        self.status.setText(
            f"{len(self.items)} waiting for review" if self.items else "Nothing waiting."
        )
        if self.items and not self.table.selectedIndexes():
            self.table.selectRow(0)
        self._update()
        self.count_changed.emit(len(self.items))

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [self.table.item(r, 0).data(Qt.UserRole) for r in rows]

    def _update(self) -> None:
        n = len(self.selected_ids())
        for b in (self.accept_btn, self.reject_btn, self.not_now_btn):
            b.setEnabled(n > 0)
        self.edit_btn.setEnabled(n == 1)
        self.accept_btn.setText(f"&Accept {n}" if n > 1 else "&Accept")
        self.reject_btn.setText(f"&Reject {n}…" if n > 1 else "&Reject…")

    @Slot()
    def decide(self, what: str) -> int:
        ids = self.selected_ids()
        if not ids:
            return 0
        if what == "reject" and not self._confirm_erase(ids):
            return 0
        memory = self.memory
        fn = {
            "accept": memory.review.accept,
            "reject": memory.review.reject,
            "not_now": memory.review.not_now,
        }[what]
        return self.runner.start(
            f"{what.title()} {len(ids)} memory(ies)",
            lambda p, c: _with_states(memory, ids, lambda: fn(ids)),
            serial=True,
            visible=False,
            success=lambda r: self._decided(what, *r),
            failure=self.status.setText,
        )

    def _confirm_erase(self, ids: list[int]) -> bool:
        """Reject erases the text everywhere (a forget, with its receipt): nothing can undo
        it, so it asks first, naming what goes, with Cancel as the default (Enter keeps it)."""
        texts = [i.fact.content for i in self.items if i.fact.id in ids]
        first = (texts[0] if texts else "").replace("\n", " ")
        first = first if len(first) <= 120 else first[:117] + "…"
        what = f"“{first}”" if len(ids) == 1 else f"{len(ids)} memories, first “{first}”"
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Reject and erase")
        box.setText(f"Erase {what} everywhere?")
        box.setInformativeText(REJECT.for_app())
        erase = box.addButton("Erase", QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)
        box.exec()
        return box.clickedButton() is erase

    def edit_current(self, text: str | None = None) -> int:
        ids = self.selected_ids()
        if len(ids) != 1:
            return 0
        fid = ids[0]
        if text is None:
            old = next(i.fact.content for i in self.items if i.fact.id == fid)
            text, ok = QInputDialog.getMultiLineText(
                self, "Edit before accepting", "Correct the memory, then OK accepts it:", old
            )
            if not ok or not text.strip():
                return 0
        memory, new = self.memory, text.strip()

        def op(p, c):
            from ui.undo import review_state

            # the original is erased everywhere (its text may be what the user took out) and
            # the correction stored as a new memory; the undo step holds the original in
            # memory only, and puts it back in the inbox under the new id
            was = review_state(memory.get(fid))
            new_id = memory.review.edit(fid, new)
            return [new_id], {new_id: was}, {new_id: review_state(memory.get(new_id))}

        return self.runner.start(
            "Edit and accept",
            op,
            serial=True,
            visible=False,
            success=lambda r: self._decided("edit", *r),
            failure=self.status.setText,
        )

    def _decided(self, what: str, ids: list, before=None, after=None) -> None:
        row = min((i.row() for i in self.table.selectedIndexes()), default=0)
        self.table.clearSelection()
        self.reload()
        if self.items:  # the next one is ready for the next key press
            self.table.selectRow(min(row, len(self.items) - 1))
        self.decided.emit(what, list(ids))
        if before and after:
            self.decided_step.emit(what, before, after)

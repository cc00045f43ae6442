"""The Archived view's rows as a model that reads a page at a time in a worker: the view
asks for more (``canFetchMore``/``fetchMore``) as it is scrolled, so 25k archived facts never
load, or sort, on the GUI thread (issue 36, finding 7)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal

from services import archived_page

HEADERS = ["#", "Content", "Why", "Archived"]
NO_REASON = "archived (no reason recorded: by hand, an import or a sync)"


class ArchivedModel(QAbstractTableModel):
    page_loaded = Signal()

    def __init__(self, memory, runner, page: int, parent=None):
        super().__init__(parent)
        self.memory, self.runner, self.page = memory, runner, page
        self.rows: list[tuple[int, str, str, object]] = []
        self._offset = 0
        self._more = False
        self._loading = False
        self._gen = 0  # a page read before a reset is dropped

    # Qt ---------------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        fid, content, why, when = self.rows[index.row()]
        if role == Qt.ItemDataRole.UserRole:
            return fid
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        col = index.column()
        if role == Qt.ItemDataRole.ToolTipRole and col not in (1, 2):
            return None
        if col == 0:
            return str(fid)
        if col == 1:  # plain text: a memory is untrusted, never markup
            return content.replace("\n", " ")
        if col == 2:
            return NO_REASON if why == "archived" else why
        return f"{when:%Y-%m-%d}" if hasattr(when, "strftime") else str(when or "")[:10]

    def canFetchMore(self, parent=QModelIndex()) -> bool:
        return not parent.isValid() and self._more and not self._loading

    def fetchMore(self, parent=QModelIndex()) -> None:
        if self.canFetchMore(parent):
            self._read()

    # ours -------------------------------------------------------------------------------
    def reset(self) -> None:
        """Empty, then the first page from a worker."""
        self._gen += 1
        self.beginResetModel()
        self.rows, self._offset, self._more = [], 0, False
        self.endResetModel()
        self._loading = False
        self._read()

    def is_loading(self) -> bool:
        return self._loading

    def id_at(self, row: int) -> int:
        return self.rows[row][0]

    def _read(self) -> None:
        self._loading = True
        memory, offset, page, gen = self.memory, self._offset, self.page, self._gen
        self.runner.start(
            "Listing archived facts",
            lambda p, c: archived_page(memory, offset, page),
            success=lambda got: self._landed(gen, got),
            failure=lambda _m: self._stop(gen),
            visible=False,
            interruptible=True,
        )

    def _stop(self, gen: int) -> None:
        if gen == self._gen:
            self._loading = False

    def _landed(self, gen: int, got) -> None:
        if gen != self._gen:
            return
        self._loading = False
        self._offset, self._more = got.next_offset, got.more
        if got.rows:
            n = len(self.rows)
            self.beginInsertRows(QModelIndex(), n, n + len(got.rows) - 1)
            self.rows.extend(got.rows)
            self.endInsertRows()
        elif got.more:  # a page of rejected facts only: read on, the view asks no more
            self._read()
            return
        self.page_loaded.emit()

"""How a fact shows in the fact browser's table: its columns, cells, tooltips and the bold of a
pinned fact. ``FactCells`` is the table model's presentation half; ``FactTableModel``
(ui/fact_model.py) adds the ids, paging and row cache it reads from."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, Qt
from PySide6.QtGui import QFont

from services import FactView


def answered_roles(*own: Qt.ItemDataRole | int) -> frozenset[int]:
    """The data roles a table model answers: the text, tooltip and alignment every table
    gives, and its OWN; any other role is answered None at once (views ask for many)."""
    text = (
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.TextAlignmentRole,
    )
    return frozenset(int(r) for r in (*text, *own))


COLUMNS = [  # (header, sort key, tooltip)
    ("Content", "content", "What the agent remembers"),
    ("Category", "category", "fact, pref, env, proj:<x>, rel:<x>, task, tmp, rule, meta"),
    ("Type", "memory_type", "semantic, episodic, procedural or temporal"),
    ("Importance", "importance", "0–1; pinned facts never decay"),
    ("Pinned", "pinned", "Pinned facts are kept first and never decay"),
    ("Created", "created_at", "When the fact was stored (UTC)"),
    ("Last accessed", "last_accessed", "When an agent last retrieved it"),
    ("Status", "status", "active, pending, archived, superseded"),
]
ID_ROLE = Qt.ItemDataRole.UserRole + 1


def _day(dt) -> str:
    return dt.strftime("%Y-%m-%d") if dt else "—"  # the time is in the tooltip


def _tooltip(f: FactView, col: int):
    if col in (5, 6):
        dt = f.created_at if col == 5 else f.last_accessed
        return dt.strftime("%Y-%m-%d %H:%M:%S UTC") if dt else "never"
    if col == 0:
        tags = f" · tags: {', '.join(f.tags)}" if f.tags else ""
        return f"#{f.id} · {f.source}{tags}\n\n{f.content}"
    return None


def _content_cell(f: FactView) -> str:
    text = f.content.replace("\n", " ")
    return text if len(text) <= 240 else text[:239] + "…"


_CELLS = {
    0: _content_cell,
    1: lambda f: f.category,
    2: lambda f: f.memory_type,
    3: lambda f: f"{f.importance:.2f}",
    4: lambda f: "★" if f.pinned else "",
    5: lambda f: _day(f.created_at),
    6: lambda f: _day(f.last_accessed),
    7: lambda f: f.status,
}


def _display(f: FactView, col: int):
    cell = _CELLS.get(col)
    return cell(f) if cell else None


class FactCells(QAbstractTableModel):
    """Headers and cell data of rows the subclass holds (``_ids``, ``fact_at``)."""

    _ids: list[int]
    _bold: QFont

    def fact_at(self, row: int) -> FactView | None:
        raise NotImplementedError

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][2]
        return None

    _FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def flags(self, index):
        return self._FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    _ROLES = answered_roles(Qt.ItemDataRole.FontRole, Qt.AccessibleTextRole)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._ids):
            return None
        if role == ID_ROLE:
            return self._ids[index.row()]
        if role not in self._ROLES:
            return None
        return self._value(self.fact_at(index.row()), index.column(), role)

    def multiData(self, index, span) -> None:
        """What a delegate asks when it paints a cell, in one call: Qt's default asks
        ``data`` once per role (seven calls into Python per cell; a page repaint of the
        100k-fact list cost 3× as much)."""
        row = index.row()
        if not index.isValid() or row >= len(self._ids):
            for rd in span:
                rd.clearData()
            return
        col, f, read = index.column(), None, False
        for rd in span:
            role = rd.role()
            if role == ID_ROLE:
                rd.setData(self._ids[row])
                continue
            if role not in self._ROLES:
                rd.clearData()
                continue
            if not read:
                f, read = self.fact_at(row), True
            value = self._value(f, col, role)
            if value is None:
                rd.clearData()
            else:
                rd.setData(value)

    def _value(self, f: FactView | None, col: int, role):
        if f is None:
            return "(deleted)" if role == Qt.ItemDataRole.DisplayRole and col == 0 else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter) if col in (3, 4) else None
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if f.pinned and col == 0 else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(f, col)
        return _display(f, col)

"""The fact browser's filter bar: category, tag, type, status, pinned and a created-date
range."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QDate, QSize, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QLayout,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from services import FACT_STATUSES, MEMORY_TYPES, FactFilters
from ui.a11y import set_name

CATEGORIES = ["fact", "pref", "env", "proj:", "rel:", "task", "tmp", "rule", "meta"]
ANY = "Any"


class FilterBar(QWidget):
    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        # the tag and the dates move to a second row when the window is narrow (900 px): one
        # row cut the date fields
        outer.setSizeConstraint(QLayout.SetNoConstraint)
        lay = QHBoxLayout()
        self.row2 = QHBoxLayout()
        outer.addLayout(lay)
        outer.addLayout(self.row2)
        self.row1 = lay

        self.category = QComboBox(editable=True)
        self.category.addItems([ANY] + CATEGORIES)
        self.category.setToolTip("Category; 'proj:' matches every project, 'proj:web' one")
        self.category.setMinimumContentsLength(8)
        self.tag = QComboBox(editable=True)
        self.tag.addItem(ANY, ANY)
        self.tag.setToolTip("Only facts carrying this tag")
        self.tag.setMinimumContentsLength(8)
        self.type = QComboBox()
        self.type.addItems([ANY] + list(MEMORY_TYPES))
        self.status = QComboBox()
        self.status.addItems(["active", ANY] + [s for s in FACT_STATUSES if s != "active"])
        self.pinned = QComboBox()
        self.pinned.addItems([ANY, "Pinned", "Not pinned"])
        self.use_dates = QCheckBox("Created")
        self.since = QDateEdit(calendarPopup=True)
        self.until = QDateEdit(calendarPopup=True)
        today = QDate.currentDate()
        self.since.setDate(today.addMonths(-1))
        self.until.setDate(today)
        for d in (self.since, self.until):
            d.setDisplayFormat("yyyy-MM-dd")
            d.setEnabled(False)
        self.clear_btn = QToolButton(text="Clear")
        self.clear_btn.setToolTip("Clear all filters")
        for w, text in (
            (self.category, "Category filter"),
            (self.tag, "Tag filter"),
            (self.type, "Type filter"),
            (self.status, "Status filter"),
            (self.pinned, "Pinned filter"),
            (self.use_dates, "Filter by creation date"),
            (self.since, "Created from"),
            (self.until, "Created until"),
            (self.clear_btn, "Clear all filters"),
        ):
            set_name(w, text)

        for label, w in (
            ("&Category", self.category),
            ("T&ype", self.type),
            ("Stat&us", self.status),
            ("Pinned", self.pinned),
        ):
            lab = QLabel(label)
            lab.setBuddy(w)
            lay.addWidget(lab)
            lay.addWidget(w)
        self.dates_box = QWidget()
        dl = QHBoxLayout(self.dates_box)
        dl.setContentsMargins(8, 0, 0, 0)
        tag_label = QLabel("Ta&g")
        tag_label.setBuddy(self.tag)
        dl.addWidget(tag_label)
        dl.addWidget(self.tag)
        dl.addSpacing(8)
        dl.addWidget(self.use_dates)
        dl.addWidget(self.since)
        dash = QLabel("–")
        dash.setBuddy(self.until)
        dl.addWidget(dash)
        dl.addWidget(self.until)
        dl.addStretch(1)
        self._narrow = False
        lay.addWidget(self.dates_box)
        lay.addStretch(1)
        lay.addWidget(self.clear_btn)

        self.category.currentTextChanged.connect(self._emit)
        self.tag.currentTextChanged.connect(self._emit)
        self.type.currentIndexChanged.connect(self._emit)
        self.status.currentIndexChanged.connect(self._emit)
        self.pinned.currentIndexChanged.connect(self._emit)
        self.use_dates.toggled.connect(self._dates_toggled)
        self.since.dateChanged.connect(self._emit)
        self.until.dateChanged.connect(self._emit)
        self.clear_btn.clicked.connect(self.clear)

    def _one_row_width(self) -> int:
        r1 = self.row1.sizeHint().width()
        return r1 + (0 if not self._narrow else self.dates_box.sizeHint().width())

    def minimumSizeHint(self) -> QSize:
        r1 = self.row1.minimumSize().width()
        if not self._narrow:
            r1 -= self.dates_box.minimumSizeHint().width()
        w = max(r1, self.dates_box.minimumSizeHint().width())
        return QSize(w, super().minimumSizeHint().height())

    def resizeEvent(self, ev) -> None:
        narrow = ev.size().width() < self._one_row_width()
        if narrow != self._narrow:
            self._narrow = narrow
            if narrow:
                self.row1.removeWidget(self.dates_box)
                self.row2.addWidget(self.dates_box)
            else:
                self.row2.removeWidget(self.dates_box)
                self.row1.insertWidget(self.row1.count() - 2, self.dates_box)
            self.updateGeometry()
        super().resizeEvent(ev)

    def is_two_rows(self) -> bool:
        return self._narrow

    @Slot()
    def _emit(self, *_):
        self.changed.emit()

    @Slot(bool)
    def _dates_toggled(self, on: bool) -> None:
        self.since.setEnabled(on)
        self.until.setEnabled(on)
        self.changed.emit()

    @Slot()
    def clear(self) -> None:
        combos = (self.category, self.tag, self.type, self.status, self.pinned)
        for combo in combos:
            combo.blockSignals(True)
            combo.setCurrentIndex(0)
            combo.blockSignals(False)
        self.use_dates.blockSignals(True)
        self.use_dates.setChecked(False)
        self.use_dates.blockSignals(False)
        self.since.setEnabled(False)
        self.until.setEnabled(False)
        self.changed.emit()

    def set_category_counts(self, counts: dict[str, int]) -> None:
        """List the agent's categories with how many active facts each holds ("pref (12)");
        the filter uses the bare category. The current choice is kept."""
        current = self.category_value()
        names = list(dict.fromkeys(CATEGORIES + sorted(counts)))
        names.sort(key=lambda c: (-counts.get(c, 0), c))
        _refill(self.category, [(c, counts.get(c, 0)) for c in names], current)

    def set_tag_counts(self, counts: dict[str, int]) -> None:
        """List the agent's tags, most used first, with their active-fact counts ("web (4)");
        the filter uses the bare tag. The current choice is kept."""
        tags = sorted(counts, key=lambda t: (-counts[t], t.lower()))
        _refill(self.tag, [(t, counts[t]) for t in tags], self.tag_value())

    def category_value(self) -> str:
        """The category to filter on: a listed item's bare name, or what was typed."""
        return _choice(self.category)

    def tag_value(self) -> str:
        return _choice(self.tag)

    def filters(self) -> FactFilters:
        cat = self.category_value()
        tag = self.tag_value()
        typ = self.type.currentText()
        status = self.status.currentText()
        pinned = {ANY: None, "Pinned": True, "Not pinned": False}[self.pinned.currentText()]
        since = until = None
        if self.use_dates.isChecked():
            since = _py(self.since.date())
            until = _py(self.until.date())
        return FactFilters(
            category=None if cat in ("", ANY) else cat,
            tags=None if tag in ("", ANY) else tag,
            memory_type=None if typ == ANY else typ,
            status=None if status == ANY else status,
            pinned=pinned,
            since=since,
            until=until,
        )


def _refill(combo: QComboBox, counted: list[tuple[str, int]], current: str) -> None:
    """COMBO lists "any" then each value with its count ("web (4)", the value as the item's
    data), CURRENT still chosen (or typed, when it is no longer listed); quietly, as the
    filter has not changed."""
    combo.blockSignals(True)
    combo.clear()
    combo.addItem(ANY, ANY)
    for value, n in counted:
        combo.addItem(f"{value} ({n:,})", value)
    i = combo.findData(current) if current else 0
    if i >= 0:
        combo.setCurrentIndex(i)
    else:
        combo.setEditText(current)
    combo.blockSignals(False)


def _choice(combo: QComboBox) -> str:
    """A listed item's bare value (its data, without the count), or what was typed."""
    text = combo.currentText().strip()
    i = combo.currentIndex()
    if i >= 0 and combo.itemText(i) == text and combo.itemData(i):
        return str(combo.itemData(i))
    return text


def _py(d: QDate) -> date:
    return date(d.year(), d.month(), d.day())

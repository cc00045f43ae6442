"""The forget receipt as a picture: the receipts on the left; for the chosen one, each place
a memory could live (rows, full text, vectors, compiled files, each agent file, git history)
as a box coloured by what the forget did there, then the verification of the store's bytes."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QHBoxLayout, QListWidget, QScrollArea, QSizePolicy, QWidget

from services import ForgetService, receipt_picture
from ui.a11y import set_name
from ui.views.common import BAD, GOOD, QUIET, WARN, InsightWindow

COLOURS = {"erased": GOOD, "nothing there": QUIET, "left": BAD, "not done": WARN}
MARKS = {"erased": "✓", "nothing there": "–", "left": "!", "not done": "…"}


class Picture(QWidget):
    """One box per place, top to bottom, joined by a line to the verification box."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pic = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def set_picture(self, pic) -> None:
        self.pic = pic
        self.setAccessibleName(self.describe())
        self.updateGeometry()
        self.update()

    def describe(self) -> str:
        if self.pic is None:
            return "No receipt chosen"
        rows = [f"{p.name}: {p.outcome} ({p.count})" for p in self.pic.places]
        return "; ".join(rows) + f"; verification: {self.verdict()}"

    def verdict(self) -> str:
        pic = self.pic
        if pic is None:
            return ""
        if pic.verified:
            return f"verified: the store's bytes read again, no copy of {pic.strings_verified} string(s) left"
        if pic.incomplete:
            return "not finished: steps still to run"
        return f"{pic.remaining} place(s) still hold the text"

    def _row(self) -> float:
        return self.fontMetrics().height() * 2.4

    def sizeHint(self) -> QSize:
        n = len(self.pic.places) + 2 if self.pic else 3
        return QSize(560, int(n * (self._row() + 8) + 24))

    def paintEvent(self, _):
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QPalette.ColorRole.Base))
        if self.pic is None:
            p.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
            p.drawText(
                self.rect(), Qt.AlignmentFlag.AlignCenter, "No forget yet: receipts appear here"
            )
            return
        fm, h, x = p.fontMetrics(), self._row(), 16.0
        w = self.width() - 2 * x
        y = 12.0
        head = QRectF(x, y, w, fm.height() + 4)
        f = p.font()
        f.setBold(True)
        p.setFont(f)
        p.setPen(pal.color(QPalette.ColorRole.Text))
        who = f", agent {self.pic.agent}" if self.pic.agent else ""
        when = self.pic.created_at[:19].replace("T", " ")
        p.drawText(head, Qt.AlignmentFlag.AlignLeft, f"Receipt {self.pic.id} — {when} UTC{who}")
        f.setBold(False)
        p.setFont(f)
        y += fm.height() + 12
        spine = x + 14
        p.setPen(pal.color(QPalette.ColorRole.Mid))
        p.drawLine(int(spine), int(y), int(spine), int(y + (len(self.pic.places) + 1) * (h + 8)))
        for place in self.pic.places:
            self._box(p, QRectF(x, y, w, h), COLOURS[place.outcome], MARKS[place.outcome],
                      place.name, self._said(place))  # fmt: skip
            y += h + 8
        ok = self.pic.verified
        self._box(p, QRectF(x, y, w, h), GOOD if ok else BAD, "✓" if ok else "!",
                  "Verification", self.verdict(), bold=True)  # fmt: skip

    @staticmethod
    def _said(place) -> str:
        text = {"erased": f"erased {place.count:,}", "nothing there": "nothing there"}.get(
            place.outcome, place.outcome
        )
        return text + (f" — {place.detail}" if place.detail else "")

    def _box(self, p, r: QRectF, colour, mark, name, said, bold=False) -> None:
        pal = self.palette()
        p.setPen(colour)
        p.setBrush(pal.color(QPalette.ColorRole.AlternateBase))
        p.drawRoundedRect(r, 6, 6)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colour)
        dot = QRectF(r.x() + 4, r.center().y() - 10, 20, 20)
        p.drawEllipse(dot)
        p.setPen(pal.color(QPalette.ColorRole.Base))
        p.drawText(dot, Qt.AlignmentFlag.AlignCenter, mark)
        p.setPen(pal.color(QPalette.ColorRole.Text))
        f = p.font()
        f.setBold(True)
        p.setFont(f)
        text = r.adjusted(34, 0, -8, 0)
        name_w = min(text.width() * 0.6, p.fontMetrics().horizontalAdvance(name) + 20)
        elided = p.fontMetrics().elidedText(name, Qt.TextElideMode.ElideMiddle, int(name_w))
        p.drawText(
            QRectF(text.x(), text.y(), name_w, text.height()), Qt.AlignmentFlag.AlignVCenter, elided
        )
        f.setBold(bold)
        p.setFont(f)
        rest = QRectF(text.x() + name_w, text.y(), text.width() - name_w, text.height())
        said = p.fontMetrics().elidedText(said, Qt.TextElideMode.ElideRight, int(rest.width()))
        p.drawText(rest, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, said)
        f.setBold(False)
        p.setFont(f)


class ReceiptPictureView(InsightWindow):
    title = "Forget receipts"

    def __init__(self, window, parent=None):
        super().__init__(window, parent)
        self.list = QListWidget()
        set_name(self.list, "Forget receipts")
        self.list.setMaximumWidth(self.fontMetrics().horizontalAdvance("M" * 22))
        self.picture = Picture()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.picture)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        row = QHBoxLayout()
        row.addWidget(self.list)
        row.addWidget(scroll, 1)
        self.lay.addLayout(row, 1)
        self.pictures: list = []
        self.list.currentRowChanged.connect(self._show)
        self.reload()

    def read(self, progress, cancelled):
        return [receipt_picture(r) for r in ForgetService(self.engram).receipts()]

    def show_data(self, pictures) -> None:
        self.pictures = pictures
        self.list.clear()
        for pic in pictures:
            mark = "✓" if pic.verified else "!"
            who = pic.agent or "all agents"
            when = pic.created_at[:16].replace("T", " ")
            self.list.addItem(f"{mark} receipt {pic.id} · {when}\n    {who}")
        self.status.setText(
            f"{len(pictures)} forget receipt(s), newest first. A receipt keeps counts and "
            "paths, never the forgotten text."
            if pictures
            else "Nothing has been forgotten yet."
        )
        if pictures:
            self.list.setCurrentRow(0)
        else:
            self.picture.set_picture(None)

    def _show(self, row: int) -> None:
        if 0 <= row < len(self.pictures):
            self.picture.set_picture(self.pictures[row])

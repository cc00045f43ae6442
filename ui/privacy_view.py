"""Privacy: every forget receipt (what was removed where, never the text) and the forget
rules that keep forgotten text from coming back, with Remove for a rule."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from services import ForgetService
from ui.forget_words import describe_receipt
from ui.tables import read_only_table


def _table(headers: list[str]) -> QTableWidget:
    t = read_only_table(headers)
    t.setWordWrap(True)  # receipts and rules read better wrapped
    t.horizontalHeader().setSectionResizeMode(len(headers) - 1, QHeaderView.Stretch)
    return t


class PrivacyView(QDialog):
    rule_removed = Signal(int)

    def __init__(self, engram, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Privacy — forget receipts and rules")
        self.svc = ForgetService(engram)
        self.receipts = _table(["When", "Agent", "Scope", "What was removed"])
        self.rules = _table(["Agent", "Created", "Terms", "Rule"])
        self.remove_btn = QPushButton("Remove rule…")
        self.remove_btn.setToolTip(
            "Stop blocking this text: an agent may learn it again. Nothing forgotten comes back."
        )
        self.remove_btn.clicked.connect(lambda: self.remove_selected())
        self.rules.itemSelectionChanged.connect(
            lambda: self.remove_btn.setEnabled(bool(self.rules.selectedIndexes()))
        )
        rb = QGroupBox("Receipts (one per forget; they never hold the forgotten text)")
        QVBoxLayout(rb).addWidget(self.receipts)
        gb = QGroupBox("Forget rules (text that is refused if an agent tries to store it again)")
        gl = QVBoxLayout(gb)
        gl.addWidget(self.rules)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.remove_btn)
        gl.addLayout(row)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("What Engram has been told to forget, and what it keeps out."))
        lay.addWidget(rb, 3)
        lay.addWidget(gb, 2)
        self.resize(820, 560)
        self.reload()

    def reload(self) -> None:
        recs = self.svc.receipts()
        self.receipts.setRowCount(len(recs))
        for r, rec in enumerate(recs):
            scope = rec.get("scope") or {}
            counts = rec.get("counts") or {}
            removed = ", ".join(
                f"{k.replace('_', ' ')} {v}"
                for k, v in counts.items()
                if isinstance(v, int) and v and k not in ("seconds", "strings_verified")
            )
            cells = [
                str(rec.get("created_at", ""))[:16].replace("T", " "),
                "every agent" if scope.get("all_agents") else str(rec.get("agent") or ""),
                str(scope.get("kind", "")),
                removed or "nothing matched",
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(describe_receipt(rec))
                self.receipts.setItem(r, c, item)
        rules = self.svc.rules()
        self.rules.setRowCount(len(rules))
        for r, rule in enumerate(rules):
            cells = [rule.agent or "every agent", rule.created_at[:10], str(rule.terms), rule.label]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, rule.id)
                self.rules.setItem(r, c, item)
        self.remove_btn.setEnabled(bool(self.rules.selectedIndexes()))

    @Slot()
    def remove_selected(self, confirm: bool = True) -> int:
        rows = sorted({i.row() for i in self.rules.selectedIndexes()})
        if not rows:
            return 0
        rid = self.rules.item(rows[0], 0).data(Qt.UserRole)
        if (
            confirm
            and QMessageBox.question(
                self,
                "Remove forget rule",
                "Stop blocking this text? Agents may store it again.",
                QMessageBox.Yes | QMessageBox.No,
                QMessageBox.No,
            )
            != QMessageBox.Yes
        ):
            return 0
        self.svc.remove_rule(rid)
        self.reload()
        self.rule_removed.emit(rid)
        return rid

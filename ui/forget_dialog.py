"""Forget: preview what a purge would remove in every place, then execute it in a worker."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QDate, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
)

from services import ForgetScope, ForgetService


def _describe_preview(p) -> str:
    """Counts per place, then the facts it would remove (ForgetPreview.counts/agents)."""
    lines = []
    counts = p.counts() if hasattr(p, "counts") else {}
    for place, n in counts.items():
        lines.append(f"{place.replace('_', ' ')}: {n}")
    for a in getattr(p, "agents", []):
        for f in a.facts[:50]:
            lines.append(f"  #{f.get('id')} {str(f.get('content', ''))[:100]}")
    for note in getattr(p, "notes", []):
        lines.append(f"note: {note}")
    for b in getattr(p, "backups", []):
        lines.append(f"backup still holding it: {b}")
    return "\n".join(lines) or str(p)


def describe_receipt(r: dict) -> str:
    """The receipt as the dialog and the Privacy view show it: what was removed where, the
    scope (text only as a keyed hash: the receipt never holds what was forgotten)."""
    scope = r.get("scope") or {}
    lines = [f"Receipt #{r.get('id', '?')} · {str(r.get('created_at', ''))[:19]}"]
    what = scope.get("kind", "?")
    if scope.get("all_agents"):
        what += " · all agents"
    elif scope.get("agent"):
        what += f" · {scope['agent']}"
    if scope.get("before"):
        what += f" · before {scope['before'][:10]}"
    lines.append(f"Scope: {what}")
    for place, n in (r.get("counts") or {}).items():
        if isinstance(n, int | float | str):
            lines.append(f"  {str(place).replace('_', ' ')}: {n}")
    return "\n".join(lines)


class ForgetDialog(QDialog):
    """Scope: the selected facts, or everything matching a text. Preview first, always."""

    forgotten = Signal(object)
    previewed = Signal(bool)  # ok
    started = Signal()  # the forget runs: its own file rewrites are not outside edits

    def __init__(self, engram, runner, slug: str, fact_ids=(), parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Forget — {slug}")
        self.engram, self.runner, self.slug = engram, runner, slug
        self.fact_ids = list(fact_ids)
        self.matching = QLineEdit()
        self.matching.setPlaceholderText("text to forget everywhere (optional)")
        self.use_selection = QRadioButton(f"The {len(self.fact_ids)} selected fact(s)")
        self.use_matching = QRadioButton("Everything matching:")
        self.use_selection.setChecked(bool(self.fact_ids))
        self.use_matching.setChecked(not self.fact_ids)
        self.use_selection.setEnabled(bool(self.fact_ids))
        self.all_agents = QCheckBox("in every agent, not only this one")
        self.use_before = QRadioButton("Everything stored before:")
        self.before = QDateEdit(calendarPopup=True)
        self.before.setDate(QDate.currentDate().addMonths(-6))
        self.before.setDisplayFormat("yyyy-MM-dd")
        self.preview_text = QPlainTextEdit(readOnly=True)
        self.preview_text.setPlaceholderText("Press Preview to see what would be removed.")
        self.status = QLabel("")
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Forget", self.use_selection)
        form.addRow(self.use_matching, self.matching)
        form.addRow("", self.all_agents)
        form.addRow(self.use_before, self.before)
        self.buttons = QDialogButtonBox()
        self.preview_btn = self.buttons.addButton("&Preview", QDialogButtonBox.ActionRole)
        self.execute_btn = self.buttons.addButton(
            "&Forget permanently", QDialogButtonBox.DestructiveRole
        )
        self.close_btn = self.buttons.addButton(QDialogButtonBox.Close)
        self.close_btn.setDefault(True)  # Enter never forgets
        self.preview_btn.setAutoDefault(False)
        self.execute_btn.setAutoDefault(False)
        self.execute_btn.setEnabled(False)
        self.preview_btn.clicked.connect(self.preview)
        self.execute_btn.clicked.connect(self.execute)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.preview_text, 1)
        lay.addWidget(self.status)
        lay.addWidget(self.buttons)
        self.resize(560, 420)
        self.matching.textChanged.connect(self._scope_changed)
        self.use_selection.toggled.connect(self._scope_changed)
        self.all_agents.toggled.connect(self._scope_changed)
        self.before.dateChanged.connect(lambda *_: self.use_before.setChecked(True))
        self.use_before.toggled.connect(self._scope_changed)

    @Slot()
    def _scope_changed(self, *_):
        if self.sender() is self.matching and self.matching.text().strip():
            self.use_matching.setChecked(True)
        self.execute_btn.setEnabled(False)

    def scope(self):
        if self.use_selection.isChecked() and self.fact_ids:
            return ForgetScope(agent=self.slug, fact_ids=tuple(self.fact_ids))
        if self.use_before.isChecked():
            d = self.before.date()
            return ForgetScope(agent=self.slug, before=date(d.year(), d.month(), d.day()))
        matching = self.matching.text().strip()
        if not matching:
            return None
        if self.all_agents.isChecked():
            return ForgetScope(all_agents=True, matching=matching)
        return ForgetScope(agent=self.slug, matching=matching)

    @Slot()
    def preview(self) -> None:
        scope = self.scope()
        if scope is None:
            self.status.setText("Choose the selected facts or type a text to forget.")
            return
        svc = ForgetService(self.engram)
        self.status.setText("Looking in every place…")
        self.runner.start(
            "Forget preview",
            lambda p, c: svc.preview(scope),
            visible=False,
            success=self._previewed,
            failure=self._preview_failed,
        )

    def _preview_failed(self, message: str) -> None:
        self.status.setText(message)
        self.previewed.emit(False)

    def _previewed(self, p) -> None:
        self.preview_text.setPlainText(_describe_preview(p))
        self.status.setText("This is what would be removed. Forgetting cannot be undone.")
        self.execute_btn.setEnabled(True)
        self.previewed.emit(True)

    @Slot()
    def execute(self) -> None:
        scope = self.scope()
        if scope is None:
            return
        if not self.confirm():
            return
        svc = ForgetService(self.engram)
        self.execute_btn.setEnabled(False)
        self.started.emit()
        self.status.setText("Forgetting…")
        self.runner.start(
            "Forgetting",
            lambda p, c: svc.execute(scope, progress=p, cancelled=c),
            success=self._done,
            failure=self._failed,
        )

    def confirm(self) -> bool:
        """Asks with No as the default button (it used to default to Yes)."""
        return (
            QMessageBox.question(
                self,
                "Forget permanently",
                "Remove this everywhere and block it from coming back? This cannot be undone.",
                QMessageBox.Yes | QMessageBox.No,
                QMessageBox.No,
            )
            == QMessageBox.Yes
        )

    def _failed(self, message: str) -> None:
        self.status.setText(f"Nothing was forgotten: {message}")
        self.forgotten.emit(None)

    def _done(self, receipt) -> None:
        """The dialog stays open with the receipt: it used to close before it could be read."""
        self.status.setText(
            "Forgotten. This receipt was kept (counts and hashes, never the text itself); "
            "View → Privacy lists every receipt."
        )
        self.preview_text.setPlainText(
            describe_receipt(receipt) if isinstance(receipt, dict) else str(receipt)
        )
        self.forgotten.emit(receipt)

"""Forget: preview what a purge would remove in every place, then execute it in a worker."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
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


class ForgetDialog(QDialog):
    """Scope: the selected facts, or everything matching a text. Preview first, always."""

    forgotten = Signal(object)
    previewed = Signal(bool)  # ok

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
        self.preview_text = QPlainTextEdit(readOnly=True)
        self.preview_text.setPlaceholderText("Press Preview to see what would be removed.")
        self.status = QLabel("")
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Forget", self.use_selection)
        form.addRow(self.use_matching, self.matching)
        self.buttons = QDialogButtonBox()
        self.preview_btn = self.buttons.addButton("&Preview", QDialogButtonBox.ActionRole)
        self.execute_btn = self.buttons.addButton(
            "&Forget permanently", QDialogButtonBox.DestructiveRole
        )
        self.buttons.addButton(QDialogButtonBox.Close)
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

    @Slot()
    def _scope_changed(self, *_):
        if self.matching.text().strip() and not self.use_matching.isChecked():
            self.use_matching.setChecked(True)
        self.execute_btn.setEnabled(False)

    def scope(self):
        if self.use_selection.isChecked() and self.fact_ids:
            return ForgetScope(agent=self.slug, fact_ids=tuple(self.fact_ids))
        matching = self.matching.text().strip()
        if not matching:
            return None
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
        if (
            QMessageBox.question(
                self,
                "Forget permanently",
                "Remove this everywhere and block it from coming back? This cannot be undone.",
            )
            != QMessageBox.Yes
        ):
            return
        svc = ForgetService(self.engram)
        self.execute_btn.setEnabled(False)
        self.runner.start(
            "Forgetting",
            lambda p, c: svc.execute(scope, progress=p, cancelled=c),
            success=self._done,
            failure=self.status.setText,
        )

    def _done(self, receipt) -> None:
        self.status.setText("Forgotten. A receipt (counts and hashes, no content) was kept.")
        self.forgotten.emit(receipt)
        self.accept()

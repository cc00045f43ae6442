"""File → New agent: the name is checked as it is typed (the same rule the store applies),
and a refusal from the store (the name is taken, or in the trash) keeps the dialog open with
what was typed."""

from __future__ import annotations

import re

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout

from services import EngramError

SLUG = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


def problem_with(name: str, taken: set[str]) -> str:
    """Why ``name`` cannot be an agent's name ("" when it can)."""
    if not name:
        return "Type a name: lowercase letters, digits, - _ ."
    if name in taken:
        return f"There is an agent called {name} already."
    if name != name.lower() and SLUG.match(name.lower()):
        return f"Use lowercase: {name.lower()}"
    if not SLUG.match(name):
        bad = sorted({c for c in name if not re.match(r"[a-z0-9_.-]", c)})
        if bad:
            shown = " ".join("space" if c == " " else c for c in bad)
            return f"Not allowed in a name: {shown} (use lowercase letters, digits, - _ .)"
        return "Start with a letter or digit; at most 64 characters."
    return ""


class NewAgentDialog(QDialog):
    def __init__(self, engram, parent=None):
        super().__init__(parent)
        self.setWindowTitle("New agent")
        self.engram = engram
        self.created: str | None = None
        self._taken = {a.slug for a in engram.agents(with_counts=False)}
        self.name = QLineEdit()
        self.name.setPlaceholderText("e.g. claude-work")
        self.name.setAccessibleName("Agent name")
        self.problem = QLabel("")
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.ok_btn = self.buttons.button(QDialogButtonBox.Ok)
        self.ok_btn.setText("Create")
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Agent name (lowercase letters, digits, - _ .):"))
        lay.addWidget(self.name)
        lay.addWidget(self.problem)
        lay.addWidget(self.buttons)
        self.buttons.accepted.connect(self._create)
        self.buttons.rejected.connect(self.reject)
        self.name.textChanged.connect(self._check)
        self._check("")
        self.resize(420, self.sizeHint().height())

    @Slot(str)
    def _check(self, text: str) -> None:
        why = problem_with(text.strip(), self._taken)
        self.problem.setText(why if text else "")
        self.ok_btn.setEnabled(not why)

    @Slot()
    def _create(self) -> None:
        slug = self.name.text().strip()
        if problem_with(slug, self._taken):
            return
        try:
            self.engram.add_agent(slug)
        except EngramError as exc:  # the store said no: keep what was typed, say why
            self.problem.setText(str(exc))
            self.ok_btn.setEnabled(False)
            return
        self.created = slug
        self.accept()

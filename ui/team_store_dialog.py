"""Connect the app to a team store: PostgreSQL URL, its password (into the OS keyring, never
a file), the Chroma server URL, and a Test connection button that says in one line per
server what is wrong (refused, unauthorised, unreachable).

The URLs are saved in ``team-store.json`` beside the local store (read at start-up by
``app.settings``; ``ENGRAM_DB_URL``/``ENGRAM_CHROMA_URL`` still win); the app uses them
from its next start.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from services import check_connection, save_password

FILE_NAME = "team-store.json"


class TeamStoreDialog(QDialog):
    def __init__(self, data_dir: str | Path, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Team store")
        self.path = Path(data_dir) / FILE_NAME
        saved = _read(self.path)
        self.db_url = QLineEdit(saved.get("db_url", ""))
        self.db_url.setPlaceholderText("postgresql://you@db.example.org:5432/engram")
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("kept in the OS keyring (or leave empty: ~/.pgpass)")
        self.chroma_url = QLineEdit(saved.get("chroma_url", ""))
        self.chroma_url.setPlaceholderText("http://vectors.example.org:8000")
        self.test_button = QPushButton("&Test connection")
        self.test_button.clicked.connect(self.test_connection)
        self.db_status = QLabel()
        self.vec_status = QLabel()
        for lab in (self.db_status, self.vec_status):
            lab.setWordWrap(True)
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout()
        form.addRow("PostgreSQL URL", self.db_url)
        form.addRow("Password", self.password)
        form.addRow("Chroma server URL", self.chroma_url)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.test_button)
        lay.addWidget(self.db_status)
        lay.addWidget(self.vec_status)
        lay.addWidget(
            QLabel(
                "The app connects to the team store from its next start. Leave the URL empty "
                "to use the local store."
            )
        )
        lay.addWidget(buttons)

    def _store_password(self) -> str | None:
        """Put a typed password in the keyring; an error message when the keyring refuses."""
        pw = self.password.text()
        if not pw or not self.db_url.text().strip():
            return None
        ok, msg = save_password(self.db_url.text().strip(), pw)
        return None if ok else f"password not saved: {msg}"

    @Slot()
    def test_connection(self) -> bool:
        problem = self._store_password()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            res = check_connection(
                self.db_url.text().strip(), self.chroma_url.text().strip() or None, timeout=5
            )
        finally:
            QApplication.restoreOverrideCursor()
        self.db_status.setText(
            ("✔ " if res.database.startswith("connected") else "✖ ") + (problem or res.database)
        )
        self.vec_status.setText(("✔ " if "answers" in res.vectors else "• ") + res.vectors)
        return res.ok and problem is None

    @Slot()
    def save(self) -> None:
        problem = self._store_password()
        if problem:
            self.db_status.setText("✖ " + problem)
            return
        data = {"db_url": self.db_url.text().strip(), "chroma_url": self.chroma_url.text().strip()}
        if "@" in data["db_url"] and ":" in data["db_url"].split("@")[0].split("//")[-1]:
            self.db_status.setText("✖ put the password in the Password field, not in the URL")
            return
        try:
            _write(self.path, data)
        except OSError as exc:
            self.db_status.setText(f"✖ could not save {self.path}: {exc.strerror or exc}")
            return
        self.accept()


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text("utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write(path: Path, data: dict) -> None:
    """Atomic: a crash leaves the old settings or the new ones, never half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2), "utf-8")
    tmp.replace(path)

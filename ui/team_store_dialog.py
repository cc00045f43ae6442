"""Connect the app to a team store: PostgreSQL URL, its password (into the OS keyring, never
a file), the Chroma server URL, and a Test connection button that says in one line per
server what is wrong (refused, unauthorised, unreachable).

When the app is on its local store, a Sync section (ui/sync_box.py) shows what waits to be
pushed to a PostgreSQL store and runs a round. When the app is on a team store, a Sharing section lists the agents this role sees with their
owner: the owner shares or privatises one (the server checks it), and the admin role adds a
member (a login role; the password goes to that person out of band).

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
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
)

from services import EngramError, add_member, check_connection, save_password, team_agents

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
            lab.hide()  # no empty rows before the first test or save
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
        team = QGroupBox("Work on a team store (instead of this computer's store)")
        inner = QVBoxLayout(team)
        inner.addLayout(form)
        inner.addWidget(self.test_button)
        inner.addWidget(self.db_status)
        inner.addWidget(self.vec_status)
        note = QLabel(
            "The app connects to the team store from its next start. Leave the URL empty "
            "to use the local store."
        )
        note.setWordWrap(True)
        inner.addWidget(note)
        lay.addWidget(team)
        self.engram = getattr(parent, "engram", None)
        self.sharing = self._sharing_box() if self.engram is not None else None
        if self.sharing is not None:
            lay.addWidget(self.sharing)
        self.sync_box = None
        if self.engram is not None and not _is_team(self.engram):
            from ui.sync_box import SyncBox

            self.sync_box = SyncBox(self.engram, self)
            lay.addWidget(self.sync_box)
        lay.addWidget(buttons)

    def done(self, result: int) -> None:
        if self.sync_box is not None:
            self.sync_box.stop()
        super().done(result)

    # sharing (a team store only) ----------------------------------------------------------
    def _sharing_box(self) -> QGroupBox | None:
        try:
            agents = team_agents(self.engram)
        except Exception:  # the server went away since the app opened: no section
            return None
        if not agents and not _is_team(self.engram):
            return None
        box = QGroupBox("Sharing")
        self.agent_list = QListWidget()
        self.share_button = QPushButton("&Share with the team")
        self.private_button = QPushButton("Make &private")
        self.share_button.clicked.connect(self.share_selected)
        self.private_button.clicked.connect(self.privatise_selected)
        self.agent_list.currentRowChanged.connect(self._selection_changed)
        self.member_name = QLineEdit()
        self.member_name.setPlaceholderText("new member's role name (lower case)")
        self.member_password = QLineEdit()
        self.member_password.setEchoMode(QLineEdit.EchoMode.Password)
        self.member_password.setPlaceholderText("their first password (tell them out of band)")
        self.add_member_button = QPushButton("&Add member")
        self.add_member_button.clicked.connect(self.add_team_member)
        self.sharing_status = QLabel()
        self.sharing_status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.share_button)
        row.addWidget(self.private_button)
        member = QHBoxLayout()
        member.addWidget(self.member_name)
        member.addWidget(self.member_password)
        member.addWidget(self.add_member_button)
        v = QVBoxLayout(box)
        v.addWidget(self.agent_list)
        v.addLayout(row)
        v.addLayout(member)
        v.addWidget(self.sharing_status)
        self._fill_agents(agents)
        return box

    def _fill_agents(self, agents=None) -> None:
        agents = team_agents(self.engram) if agents is None else agents
        self.agent_list.clear()
        for a in agents:
            who = "you" if a.mine else (a.owner or "nobody")
            item = QListWidgetItem(f"{a.slug} — {a.visibility}, owner: {who}")
            item.setData(Qt.ItemDataRole.UserRole, a)
            self.agent_list.addItem(item)
        self._selection_changed(self.agent_list.currentRow())

    @Slot(int)
    def _selection_changed(self, row: int) -> None:
        item = self.agent_list.item(row) if row >= 0 else None
        a = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        self.share_button.setEnabled(bool(a and a.mine and a.visibility != "shared"))
        self.private_button.setEnabled(bool(a and a.mine and a.visibility != "private"))

    def _set_selected(self, visibility: str) -> None:
        item = self.agent_list.currentItem()
        if item is None:
            return
        slug = item.data(Qt.ItemDataRole.UserRole).slug
        try:
            self.engram.set_visibility(slug, visibility)
        except EngramError as exc:
            self.sharing_status.setText(f"✖ {exc}")
            return
        self.sharing_status.setText(f"✔ {slug} is now {visibility}")
        row = self.agent_list.currentRow()
        self._fill_agents()
        self.agent_list.setCurrentRow(row)

    @Slot()
    def share_selected(self) -> None:
        self._set_selected("shared")

    @Slot()
    def privatise_selected(self) -> None:
        self._set_selected("private")

    @Slot()
    def add_team_member(self) -> None:
        name, pw = self.member_name.text().strip(), self.member_password.text()
        if len(pw) < 8:
            self.sharing_status.setText("✖ a member's password has at least 8 characters")
            return
        try:
            add_member(self.engram.db, name, pw)
        except EngramError as exc:
            self.sharing_status.setText(f"✖ {exc}")
            return
        self.member_password.clear()
        self.sharing_status.setText(f"✔ {name} is a member of the team")

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
        self.db_status.show()
        self.vec_status.show()
        return res.ok and problem is None

    @Slot()
    def save(self) -> None:
        self.db_status.show()
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


def _is_team(engram) -> bool:
    return type(getattr(engram.db, "obj", engram.db)).__name__ == "PostgresqlDatabase"


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

"""Settings: store location, lifecycle knobs (decay, TTLs, budgets, summaries, LLM provider),
the API key in the OS keyring, and the embedding model's status."""

from __future__ import annotations

import json
from dataclasses import fields

from PySide6.QtCore import QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from services import LLM_API_KEY, SecretsStore, load_config, save_config
from ui.settings_text import guard_wheel, help_for, label_for

GROUPS = [  # (title, field-name prefixes/names)
    ("How memories fade and expire", ("decay_", "access_bonus", "min_importance", "ttl_days")),
    (
        "How much is kept",
        (
            "short_term_cap",
            "long_term_cap",
            "pending_threshold",
            "promote_",
            "episode_retention_days",
            "session_retention_days",
            "compiled_versions_kept",
        ),
    ),
    ("Size of the compiled files agents read", ("budget_",)),
    ("Sessions", ("turns_per_summary",)),
    ("Language model (optional)", ("llm_",)),
]


def _label(name: str) -> str:
    return label_for(name)


class SettingsDialog(QDialog):
    def __init__(self, engram, parent=None, secrets=None):
        super().__init__(parent)
        self.setWindowTitle("Engram settings")
        self.engram = engram
        self.data_dir = engram.config.data_dir
        self.secrets = secrets if secrets is not None else SecretsStore()
        self.editors: dict[str, QWidget] = {}
        self.cfg = load_config(self.data_dir)

        body = QWidget()
        lay = QVBoxLayout(body)
        store = QGroupBox("Store")
        sf = QFormLayout(store)
        path = QLineEdit(str(self.data_dir), readOnly=True)
        open_btn = QPushButton("Open folder")
        open_btn.clicked.connect(self._open_dir)
        row = QHBoxLayout()
        row.addWidget(path, 1)
        row.addWidget(open_btn)
        note = QLabel(
            "To use another store, start Engram with <code>--data-dir DIR</code> "
            "or set <code>ENGRAM_HOME</code>."
        )
        note.setWordWrap(True)
        col = QVBoxLayout()
        col.addLayout(row)
        col.addWidget(note)
        sf.addRow("Data directory", col)
        if self.engram.semantic_enabled:
            model = "Loaded — semantic and hybrid search are on."
        else:
            model = (
                self.engram.semantic_error or "not loaded"
            ) + "  Install it with <code>engram model install</code>."
        self.model_status = QLabel(model)
        self.model_status.setWordWrap(True)
        sf.addRow("Embedding model", self.model_status)
        lay.addWidget(store)

        if self.cfg.problems:
            warn = QLabel("⚠ " + "<br>".join(self.cfg.problems))
            warn.setWordWrap(True)
            lay.addWidget(warn)
        names = [f.name for f in fields(self.cfg) if f.name != "problems"]
        used = set()
        for title, keys in GROUPS:
            box = QGroupBox(title)
            form = QFormLayout(box)
            for n in names:
                if n in used or not any(
                    n == k or (k.endswith("_") and n.startswith(k)) for k in keys
                ):
                    continue
                used.add(n)
                form.addRow(_label(n), self._editor(n, getattr(self.cfg, n)))
            if title.startswith("Language model"):
                self._api_key_rows(form)
            lay.addWidget(box)
        rest = [n for n in names if n not in used]
        if rest:
            box = QGroupBox("Other")
            form = QFormLayout(box)
            for n in rest:
                form.addRow(_label(n), self._editor(n, getattr(self.cfg, n)))
            lay.addWidget(box)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        outer = QVBoxLayout(self)
        outer.addWidget(scroll, 1)
        outer.addWidget(buttons)
        self.resize(640, 720)

    def _editor(self, name: str, value) -> QWidget:
        if isinstance(value, bool):
            w = QCheckBox()
            w.setChecked(value)
        elif isinstance(value, int):
            w = QSpinBox(maximum=10_000_000)
            w.setValue(value)
        elif isinstance(value, float):
            w = QDoubleSpinBox(maximum=1_000_000.0, decimals=3, singleStep=0.01)
            w.setValue(value)
        elif isinstance(value, dict):
            w = QLineEdit(json.dumps(value, sort_keys=True))
            w.setCursorPosition(0)
            w.setToolTip("Days per category as JSON; null = never expires")
        else:
            w = QLineEdit(value or "")
            if name == "llm_endpoint":
                w.setPlaceholderText("https://api.example.com/v1 (empty: no LLM)")
        w.setObjectName(name)
        if isinstance(w, QSpinBox | QDoubleSpinBox):
            guard_wheel(w)
        self.editors[name] = w
        tip = help_for(name)
        if not tip:
            return w
        w.setToolTip(tip)
        box = QWidget()
        col = QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 4)
        col.setSpacing(2)
        col.addWidget(w)
        hint = QLabel(tip)
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(placeholder-text); font-size: small;")
        col.addWidget(hint)
        return box

    def _api_key_rows(self, form: QFormLayout) -> None:
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.Password)
        self.api_key.setPlaceholderText("unchanged")
        self.keyring_status = QLabel()
        self.keyring_status.setWordWrap(True)
        ok, backend, message = self.secrets.status()
        self.keyring_ok = ok
        if ok:
            stored = self.secrets.get(LLM_API_KEY)
            self.keyring_status.setText(
                message + (" A key is stored." if stored else " No key stored yet.")
            )
        else:
            self.keyring_status.setText("⚠ " + message)
            self.api_key.setEnabled(False)
            self.api_key.setPlaceholderText("no keyring: keys cannot be stored")
        form.addRow("API key", self.api_key)
        form.addRow("Keyring", self.keyring_status)

    def values(self) -> dict:
        out = {}
        for n, w in self.editors.items():
            if isinstance(w, QCheckBox):
                out[n] = w.isChecked()
            elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
                out[n] = w.value()
            elif isinstance(self.cfg and getattr(self.cfg, n), dict):
                out[n] = json.loads(w.text() or "{}")
            else:
                out[n] = w.text().strip() or None
        return out

    @Slot()
    def save(self) -> None:
        try:
            vals = self.values()
        except ValueError as exc:
            QMessageBox.warning(self, "Settings", f"TTL days must be JSON: {exc}")
            return
        for k, v in vals.items():
            setattr(self.cfg, k, v)
        try:
            save_config(self.data_dir, self.cfg)
        except OSError as exc:
            QMessageBox.warning(self, "Settings", f"Could not save settings: {exc}")
            return
        key = getattr(self, "api_key", None)
        if key is not None and key.text() and self.secrets is not None:
            ok, message = self.secrets.set(LLM_API_KEY, key.text())
            if not ok:
                QMessageBox.warning(self, "API key not saved", message)
                return
        self.accept()

    @Slot()
    def _open_dir(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.data_dir)))

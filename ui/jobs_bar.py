"""The status bar's job area: the running visible job with "N of M" and Cancel (Esc), then
its end state (done / cancelled / failed: why) until dismissed; every job goes to a log the
user can reopen (View → Jobs log)."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.workers import JobRunner

OUTCOME_TEXT = {"ok": "done", "cancelled": "cancelled", "failed": "failed"}


class JobsBar(QWidget):
    def __init__(self, runner: JobRunner, parent=None):
        super().__init__(parent)
        self.runner = runner
        self.label = QLabel("")
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(220)
        self.bar.setTextVisible(True)
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Cancel the running job (Esc)")
        self.cancel_btn.clicked.connect(self.cancel)
        self.dismiss_btn = QPushButton("Dismiss")
        self.dismiss_btn.setToolTip("Hide this result (View → Jobs log shows it again)")
        self.dismiss_btn.clicked.connect(self.dismiss)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.bar)
        lay.addWidget(self.cancel_btn)
        lay.addWidget(self.dismiss_btn)
        self.current: int | None = None
        self.titles: dict[int, str] = {}
        self.log: list[tuple[datetime, str, str, str]] = []  # when, title, outcome, message
        runner.job_started.connect(self._started)
        runner.job_queued.connect(self._queued)
        runner.job_progress.connect(self._progress)
        runner.job_finished.connect(self._finished)
        self.hide()

    @Slot(int, str)
    def _started(self, job_id: int, title: str) -> None:
        job = next((j for j in self.runner.visible_jobs() if j.id == job_id), None)
        if job is None:
            return
        self.titles[job_id] = title
        self._busy(job_id, title)

    def _busy(self, job_id: int, text: str) -> None:
        """Show JOB_ID as the bar's job: TEXT, a busy bar and Cancel."""
        self.current = job_id
        self.label.setText(text)
        self.bar.setRange(0, 0)
        self.bar.setFormat("")
        self.bar.show()
        self.cancel_btn.show()
        self.dismiss_btn.hide()
        self.show()

    @Slot(int, str, str)
    def _queued(self, job_id: int, title: str, behind: str) -> None:
        """A visible job that cannot start yet says what it waits for (Cancel drops it)."""
        if not any(j.id == job_id for j in self.runner.visible_jobs()):
            return
        self.titles[job_id] = title
        if self.current is not None and self.current != job_id:
            return  # a running job is on show; this one is named when it starts
        self._busy(job_id, f"{title} — waits for: {behind}")

    @Slot(int, int, int, str)
    def _progress(self, job_id: int, done: int, total: int, message: str) -> None:
        if job_id != self.current:
            return
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(done)
            self.bar.setFormat(f"{done:,} of {total:,}")
        if message:
            self.label.setText(message)

    @Slot(int, str, str)
    def _finished(self, job_id: int, outcome: str, message: str) -> None:
        title = self.titles.pop(job_id, None)
        if title is None:
            return  # not a visible job
        self.log.append((datetime.now(), title, outcome, message))
        if job_id != self.current:
            return
        others = self.runner.visible_jobs()
        if others:
            self.current = others[-1].id
            behind = self.runner.waiting_behind(self.current)
            self.label.setText(others[-1].title + (f" — waits for: {behind}" if behind else ""))
            return
        self.current = None
        end = OUTCOME_TEXT.get(outcome, outcome)
        self.label.setText(f"{title}: {end}" + (f" — {message}" if message else ""))
        self.bar.hide()
        self.cancel_btn.hide()
        self.dismiss_btn.show()

    def end_state(self) -> str:
        return self.label.text() if self.current is None and self.isVisible() else ""

    @Slot()
    def dismiss(self) -> None:
        self.hide()

    @Slot()
    def cancel(self) -> None:
        """Cancels the job on show (Esc), not every job."""
        if self.current is not None:
            self.runner.cancel(self.current)

    def log_dialog(self, parent=None) -> QDialog:
        dlg = QDialog(parent)
        dlg.setWindowTitle("Jobs log")
        tree = QTreeWidget()
        tree.setHeaderLabels(["When", "Job", "Result"])
        tree.setRootIsDecorated(False)
        for when, title, outcome, message in reversed(self.log):
            end = OUTCOME_TEXT.get(outcome, outcome) + (f": {message}" if message else "")
            tree.addTopLevelItem(QTreeWidgetItem([f"{when:%H:%M:%S}", title, end]))
        if not self.log:
            tree.addTopLevelItem(QTreeWidgetItem(["", "No jobs yet this session", ""]))
        tree.resizeColumnToContents(0)
        tree.resizeColumnToContents(1)
        box = QDialogButtonBox(QDialogButtonBox.Close)
        box.rejected.connect(dlg.reject)
        lay = QVBoxLayout(dlg)
        lay.addWidget(tree)
        lay.addWidget(box)
        dlg.resize(620, 360)
        return dlg

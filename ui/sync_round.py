"""One sync round as a child ``engram sync --server URL --json`` process.

A round opens the server store as well, and Engram binds its models to one database per
process, so the app's own connection must not be rebound under its open tabs: the round is
the same command a user or a cron job runs. Killing it is safe by the protocol
(services/teamsync: pushes are idempotent, the cursor moves only after the pulls are applied).
"""

from __future__ import annotations

import json

from PySide6.QtCore import QObject, QProcess, Signal, Slot

from services import engram_argv


def describe_round(report: dict) -> str:
    if not report.get("online", True):
        return f"✖ offline: {report.get('problem')} (the changes stay queued)"
    return (
        f"✔ pushed {report.get('pushed', 0)}, pulled {report.get('pulled', 0)}, erased here "
        f"{report.get('erased_here', 0)}, erased there {report.get('erased_there', 0)}, "
        f"conflicts {report.get('conflicts', 0)}, blocked {report.get('blocked', 0)}"
    )


class SyncRound(QObject):
    # the report (None: the round did not finish) and one line saying what happened
    ended = Signal(object, str)

    def __init__(self, data_dir, parent=None):
        super().__init__(parent)
        self.data_dir = data_dir
        self.process: QProcess | None = None

    def running(self) -> bool:
        return self.process is not None

    def start(self, url: str) -> bool:
        if self.process is not None:
            return False
        words = engram_argv(self.data_dir) + ["sync", "--server", url, "--json"]
        p = QProcess(self)
        p.setProgram(words[0])
        p.setArguments(words[1:])
        p.finished.connect(self._finished)
        p.errorOccurred.connect(self._error)
        self.process = p
        p.start()
        return True

    def cancel(self) -> None:
        if self.process is not None:
            self.process.kill()

    def stop(self, wait_ms: int = 5000) -> None:
        """The window or dialog closes: a round still running is killed (the next resumes)."""
        p = self.process
        if p is not None:
            p.kill()
            p.waitForFinished(wait_ms)

    @Slot(QProcess.ProcessError)
    def _error(self, err) -> None:
        p = self.process
        if err == QProcess.ProcessError.FailedToStart and p is not None:
            self.process = None
            self.ended.emit(None, f"✖ could not start `engram sync`: {p.errorString()}")

    @Slot(int, QProcess.ExitStatus)
    def _finished(self, code: int, status) -> None:
        p = self.process
        if p is None:
            return
        self.process = None
        out = bytes(p.readAllStandardOutput().data()).decode("utf-8", "replace")
        err = bytes(p.readAllStandardError().data()).decode("utf-8", "replace")
        if status == QProcess.ExitStatus.CrashExit:
            self.ended.emit(None, "Sync stopped; what it pushed stays pushed, the rest waits.")
            return
        try:
            report = json.loads(out)
        except ValueError:
            last = (err.strip().splitlines() or [f"exit code {code}"])[-1]
            self.ended.emit(None, f"✖ {last}")
            return
        self.ended.emit(report, describe_round(report))

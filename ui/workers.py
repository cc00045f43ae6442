"""Background jobs: an operation runs in its own QThread; results come back as signals.

Anki's ``op / success / failure`` shape: the operation is plain Python that gets
``progress(done, total, message)`` and ``cancelled() -> bool`` callbacks; ``success`` and
``failure`` run on the GUI thread because the runner receives the worker's signals in an
``@Slot`` of a GUI-thread object (a lambda would run in the emitting thread).

Writes go through one *serial* lane so edits, deletes and their undos reach SQLite in the
order the user made them; reads (search, stats, previews) run in parallel. A long background
write that can stop between batches (embedding a backlog) *yields*: a write the user asks for
meanwhile stops it at its next batch, runs, and the background job starts again after it, so
a Restore never waits an hour behind the embedder (issue 36, finding 7).
"""

from __future__ import annotations

import itertools
import logging
import threading
import traceback
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ui.gil_share import IdleCollector

log = logging.getLogger(__name__)

# Every worker ever started, weakly: the test suite fails a test that leaves one running.
LIVE: weakref.WeakSet[Worker] = weakref.WeakSet()


class Cancelled(Exception):
    """Raised by ``progress`` when the user pressed Cancel; the runner reports it quietly."""


class Worker(QThread):
    progressed = Signal(int, int, int, str)  # job id, done, total, message
    succeeded = Signal(int, object)
    failed = Signal(int, str)
    cancelled_sig = Signal(int)

    def __init__(self, job_id: int, op: Callable, db=None, interruptible: bool = False):
        super().__init__()
        self.job_id = job_id
        self._op = op
        self._db = db
        self._cancel = threading.Event()
        self._yield = threading.Event()  # stop at the next batch; the runner queues it again
        # a read-only job's SQLite statement is stopped at once on cancel: a count or a plan
        # over 100k facts would otherwise hold a closing window for seconds
        self._interruptible = interruptible and db is not None
        self._conn = None
        self._conn_lock = threading.Lock()
        LIVE.add(self)

    def cancel(self) -> None:
        self._cancel.set()
        with self._conn_lock:
            conn = self._conn
        interrupt = getattr(conn, "interrupt", None)  # sqlite3 only; thread-safe by design
        if interrupt is not None:
            interrupt()

    def ask_to_yield(self) -> None:
        self._yield.set()

    def is_cancelled(self) -> bool:
        return self._cancel.is_set() or self._yield.is_set()

    def _progress(self, done, total=0, message: str = "") -> None:
        if self.is_cancelled():
            raise Cancelled()
        self.progressed.emit(self.job_id, int(done or 0), int(total or 0), str(message or ""))

    def _attach(self) -> None:
        if self._interruptible:
            conn = self._db.connection()  # this thread's own connection (peewee per thread)
            with self._conn_lock:
                self._conn = conn
            if self._cancel.is_set():
                raise Cancelled()

    def run(self) -> None:
        try:
            self._attach()
            result = self._op(self._progress, self.is_cancelled)
        except Cancelled:
            self.cancelled_sig.emit(self.job_id)
        except Exception as exc:  # shown to the user; EngramError messages are user-facing
            if self._cancel.is_set():  # the interrupted statement of a cancelled job
                self.cancelled_sig.emit(self.job_id)
                return
            from services import EngramError

            if not isinstance(exc, EngramError):
                log.error("background job failed:\n%s", traceback.format_exc())
            self.failed.emit(self.job_id, str(exc) or exc.__class__.__name__)
        else:
            if self._cancel.is_set():
                self.cancelled_sig.emit(self.job_id)
            else:
                self.succeeded.emit(self.job_id, result)
        finally:
            with self._conn_lock:
                self._conn = None
            # peewee keeps one connection per thread; this thread ends, so does its connection
            if self._db is not None:
                try:
                    self._db.close()
                except Exception:
                    pass


@dataclass
class Job:
    id: int
    title: str
    op: Callable
    success: Callable[[Any], None] | None
    failure: Callable[[str], None] | None
    visible: bool
    serial: bool
    interruptible: bool = False
    finish_on_close: bool = False
    yields: bool = False
    yielding: bool = False  # asked to stop for a user's write; queued again when it stops
    worker: Worker | None = None
    done: int = 0
    total: int = 0
    message: str = ""
    on_cancel: Callable[[], None] | None = field(default=None)


class JobRunner(QObject):
    """Starts jobs, keeps a reference to each running worker, cancels them all on close."""

    job_started = Signal(int, str)
    job_queued = Signal(int, str, str)  # id, title, the title of the job it waits behind
    job_progress = Signal(int, int, int, str)
    job_finished = Signal(int, str, str)  # id, outcome (ok|failed|cancelled), message
    busy_changed = Signal(bool)

    def __init__(self, db=None, parent: QObject | None = None, idle_gc: bool = False):
        """``idle_gc``: the window's runner: full garbage collections wait until its jobs
        are quiet (ui/gil_share.py), until ``cancel_all``."""
        super().__init__(parent)
        self.collector = IdleCollector(self, self) if idle_gc else None
        self._db = db
        self._ids = itertools.count(1)
        self._jobs: dict[int, Job] = {}
        self._serial: deque[Job] = deque()
        self._serial_running: Job | None = None
        self._threads: set[Worker] = set()  # referenced until Qt says the thread finished
        self._closing = False

    # public ------------------------------------------------------------------------------
    def start(
        self,
        title: str,
        op: Callable,
        success=None,
        failure=None,
        *,
        visible: bool = True,
        serial: bool = False,
        on_cancel=None,
        interruptible: bool = False,
        finish_on_close: bool = False,
        yields: bool = False,
    ) -> int:
        """``op(progress, cancelled)`` runs off the GUI thread; returns the job id.
        ``interruptible``: the op only reads, so cancelling may stop its SQL mid-statement.
        ``finish_on_close``: a write the user made (an edit): if it is still queued when the
        window closes, it runs then instead of being dropped.
        ``yields``: a serial background job whose op stops cleanly when ``cancelled()`` turns
        true between batches; a serial job started meanwhile runs first, then this one again."""
        if self._closing:
            return 0
        job = Job(
            next(self._ids),
            title,
            op,
            success,
            failure,
            visible,
            serial,
            interruptible=interruptible and not serial,
            finish_on_close=finish_on_close and serial,
            on_cancel=on_cancel,
            yields=yields and serial,
        )
        self._jobs[job.id] = job
        if serial:
            self._enqueue(job)
        else:
            self._launch(job)
        return job.id

    def cancel(self, job_id: int) -> None:
        job = self._jobs.get(job_id)
        if job is None:
            return
        if job.worker is None:  # still queued: drop it
            if job in self._serial:
                self._serial.remove(job)
            self._finish(job, "cancelled", "")
        else:
            job.yielding = False  # a cancel is the user's word: not queued again
            job.worker.cancel()

    def cancel_all(self, wait_ms: int = 30000) -> None:
        """Cancel everything and wait for the threads to end (called when the window closes)."""
        self._closing = True
        owed = [j for j in self._serial if j.finish_on_close]
        for job in list(self._serial):
            self._serial.remove(job)
            self._jobs.pop(job.id, None)
        for job in list(self._jobs.values()):
            if job.worker is not None:
                job.worker.cancel()
        for w in list(self._threads):
            if not w.wait(wait_ms):
                log.warning("a background job did not stop in time")
        self._jobs.clear()
        self._serial_running = None
        if self.collector is not None:
            self.collector.stop()
        for job in owed:  # in the order they were made, after the write before them
            try:
                job.op(lambda *a: None, lambda: False)
            except Exception:
                log.error("an edit queued at quit failed:\n%s", traceback.format_exc())

    def running(self) -> list[Job]:
        return [j for j in self._jobs.values() if j.worker is not None]

    def visible_jobs(self) -> list[Job]:
        return [j for j in self._jobs.values() if j.visible]

    def is_busy(self) -> bool:
        return bool(self._jobs)

    def wait_idle(self, timeout_ms: int = 30000) -> bool:
        """For scripts (screenshots, self-test): process events until every job ended."""
        from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QEventLoop

        deadline = QDeadlineTimer(timeout_ms)
        while self._jobs and not deadline.hasExpired():
            QCoreApplication.processEvents(QEventLoop.AllEvents, 50)
            for j in self.running():
                j.worker.wait(20)
        return not self._jobs

    def waiting_behind(self, job_id: int) -> str:
        """The title of the job a queued serial job waits for ("" when it runs)."""
        job = self._jobs.get(job_id)
        if job is None or job.worker is not None or self._serial_running is None:
            return ""
        return self._serial_running.title

    # internals ---------------------------------------------------------------------------
    def _enqueue(self, job: Job) -> None:
        if job.yields:
            self._serial.append(job)
        else:  # ahead of every yielding background job still queued
            at = next((i for i, j in enumerate(self._serial) if j.yields), len(self._serial))
            self._serial.insert(at, job)
            running = self._serial_running
            if running is not None and running.yields and running.worker is not None:
                running.yielding = True
                running.worker.ask_to_yield()
        self._pump()
        if job.worker is None and job in self._serial and self._serial_running is not None:
            self.job_queued.emit(job.id, job.title, self._serial_running.title)

    def _requeue(self, job: Job) -> bool:
        """A yielding job that stopped for a user's write: back in the lane, after it."""
        if not job.yielding or self._closing:
            return False
        if job.worker is not None:
            job.worker.wait(5000)
        job.worker, job.yielding = None, False
        if job is self._serial_running:
            self._serial_running = None
        self._serial.append(job)
        self._pump()
        return True

    def _pump(self) -> None:
        if self._serial_running is None and self._serial:
            job = self._serial.popleft()
            self._serial_running = job
            self._launch(job)

    def _launch(self, job: Job) -> None:
        w = Worker(job.id, job.op, self._db, interruptible=job.interruptible)
        job.worker = w
        self._threads.add(w)
        w.progressed.connect(self._on_progress)
        w.succeeded.connect(self._on_success)
        w.failed.connect(self._on_failure)
        w.cancelled_sig.connect(self._on_cancelled)
        w.finished.connect(self._on_thread_finished)
        if len(self._jobs) == 1:
            self.busy_changed.emit(True)
        self.job_started.emit(job.id, job.title)
        w.start()

    @Slot(int, int, int, str)
    def _on_progress(self, job_id: int, done: int, total: int, message: str) -> None:
        job = self._jobs.get(job_id)
        if job is not None:
            job.done, job.total, job.message = done, total, message
            self.job_progress.emit(job_id, done, total, message)

    @Slot(int, object)
    def _on_success(self, job_id: int, result) -> None:
        job = self._jobs.get(job_id)
        if job is None or self._requeue(job):
            return
        try:
            if job.success is not None:
                _deliver(job.success, result)
        finally:
            self._finish(job, "ok", "")

    @Slot(int, str)
    def _on_failure(self, job_id: int, message: str) -> None:
        job = self._jobs.get(job_id)
        if job is None:
            return
        try:
            if job.failure is not None:
                _deliver(job.failure, message)
        finally:
            self._finish(job, "failed", message)

    @Slot(int)
    def _on_cancelled(self, job_id: int) -> None:
        job = self._jobs.get(job_id)
        if job is None or self._requeue(job):
            return
        try:
            if job.on_cancel is not None:
                _deliver(job.on_cancel)
        finally:
            self._finish(job, "cancelled", "")

    @Slot()
    def _on_thread_finished(self) -> None:
        w = self.sender()
        if isinstance(w, Worker):
            self._threads.discard(w)
            w.deleteLater()

    def _finish(self, job: Job, outcome: str, message: str) -> None:
        self._jobs.pop(job.id, None)
        if job is self._serial_running:
            self._serial_running = None
        # the thread may still be returning from run(); wait so nothing outlives its object
        if job.worker is not None:
            job.worker.wait(5000)
        self.job_finished.emit(job.id, outcome, message)
        if not self._jobs:
            self.busy_changed.emit(False)
        self._pump()


def _deliver(callback, *args) -> None:
    """Hand a job's outcome to whoever asked. The asker may be gone: an agent's tab removed
    (File → Remove agent) while its list or counts were still loading; its widgets are
    deleted and there is nobody left to tell, which is not a crash."""
    try:
        callback(*args)
    except RuntimeError as exc:
        if "already deleted" not in str(exc):
            raise
        log.info("a job ended after the view that started it was closed")

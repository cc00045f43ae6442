"""Progress and Ctrl+C for the CLI's long jobs (import, discover, demo, migrate, embedding).

A bar goes to stderr only when a person watches (stdout and stderr on a terminal, no
``--json``): a hook or a pipe reads clean output. Ctrl+C asks the job to stop at its next
batch boundary (each batch is one transaction), so what is stored is whole and can be named.
"""

from __future__ import annotations

import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def watched(args: Any = None) -> bool:
    if args is not None and getattr(args, "json", False):
        return False
    return sys.stdout.isatty() and sys.stderr.isatty()


@contextmanager
def progress(label: str, args: Any = None) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback drawing a bar, or doing nothing when unwatched."""
    if not watched(args):
        yield lambda done, total: None
        return
    from tqdm import tqdm

    # a terminal that reports no size (a fresh pseudo-terminal) would hide the bar: 0 rows
    size = shutil.get_terminal_size((80, 24))
    bar = tqdm(
        desc=label, total=None, unit=" facts", file=sys.stderr, ncols=size.columns, nrows=size.lines
    )

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield update
    finally:
        bar.close()


class Interrupt:
    """The first Ctrl+C sets ``requested`` (the job stops between batches); a second one
    interrupts at once, as usual."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self) -> bool:
        return self.requested


@contextmanager
def interruptible() -> Iterator[Interrupt]:
    flag = Interrupt()
    if threading.current_thread() is not threading.main_thread():
        yield flag  # the daemon runs commands off the main thread: no signal handlers there
        return
    previous = signal.getsignal(signal.SIGINT)

    def on_sigint(signum, frame) -> None:
        flag.requested = True
        print(
            "\nengram: stopping after the current batch (Ctrl+C again to stop now)",
            file=sys.stderr,
            flush=True,
        )
        signal.signal(signal.SIGINT, signal.default_int_handler)

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)

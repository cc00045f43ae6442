"""`engram serve` keeps a syncing store in step as the app does (ui/sync_auto.py): a round at
start, which pulls what others wrote while nothing ran, and one every few minutes after.
`engram mcp` does the same when it runs long: its first round comes after one period, so an
agent's short session never starts one (the app or `engram serve` sync at start).

A round is the child ``engram sync --server URL --json`` the app and a user run: Engram binds
its models to one database per process, and the resident store must not be rebound to the
server under the hooks it answers. A killed round is safe by the protocol (services/teamsync).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from services import engram_argv


class ServeSync:
    def __init__(self, data_dir: Path, server: str, every_s: float, at_start: bool = True):
        self.data_dir, self.server, self.every_s = data_dir, server, every_s
        self.at_start = at_start
        self._stop = threading.Event()
        self._proc: subprocess.Popen | None = None
        self._thread = threading.Thread(target=self._loop, name="engram-sync", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        p = self._proc
        if p is not None and p.poll() is None:
            p.kill()  # the next start resumes: pushes are idempotent, the cursor waits
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        if not self.at_start and self._stop.wait(self.every_s):
            return
        while not self._stop.is_set():
            self._round()
            if self._stop.wait(self.every_s):
                return

    def _round(self) -> None:
        words = engram_argv(self.data_dir) + ["sync", "--server", self.server, "--json"]
        try:
            self._proc = subprocess.Popen(
                words, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            out, err = self._proc.communicate()
        except OSError as exc:
            print(f"engram: sync could not start: {exc}", file=sys.stderr, flush=True)
            return
        if self._stop.is_set():
            return
        print(f"engram: sync: {_describe(out, err)}", file=sys.stderr, flush=True)


def start_sync(eng, minutes: float, at_start: bool = True) -> ServeSync | None:
    """A store that syncs with a team server keeps in step while it is served (None: it
    does not sync, or ``minutes`` is 0)."""
    from services import sync_server

    server = sync_server(eng.db) if minutes > 0 else None
    if server is None:
        return None
    print(f"engram: syncing with {server} every {minutes:g} min", file=sys.stderr, flush=True)
    s = ServeSync(eng.config.data_dir, server, minutes * 60, at_start)
    s.start()
    return s


@contextmanager
def syncing(eng, minutes: float, at_start: bool = True) -> Iterator[None]:
    s = start_sync(eng, minutes, at_start)
    try:
        yield
    finally:
        if s is not None:
            s.stop()


def _describe(out: str, err: str) -> str:
    try:
        r = json.loads(out)
    except ValueError:
        return (err.strip().splitlines() or ["the round did not finish"])[-1]
    if not r.get("online", True):
        return f"offline: {r.get('problem')} (the changes stay queued)"
    said = f"pushed {r.get('pushed', 0)}, pulled {r.get('pulled', 0)}"
    if r.get("conflicts"):
        said += f", conflicts {r['conflicts']} (waiting in `engram review`)"
    return said

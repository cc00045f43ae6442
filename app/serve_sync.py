"""`engram serve` keeps a syncing store in step as the app does (ui/sync_auto.py): a round at
start, which pulls what others wrote while nothing ran, and one every few minutes after.

A round is the child ``engram sync --server URL --json`` the app and a user run: Engram binds
its models to one database per process, and the resident store must not be rebound to the
server under the hooks it answers. A killed round is safe by the protocol (services/teamsync).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from services import engram_argv


class ServeSync:
    def __init__(self, data_dir: Path, server: str, every_s: float):
        self.data_dir, self.server, self.every_s = data_dir, server, every_s
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

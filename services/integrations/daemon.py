"""A resident Engram on a local Unix socket: hooks and the CLI ask it instead of loading Engram.

A hook that starts Python and opens the store (and the model) on every prompt costs seconds;
``engram serve`` (or the desktop app while it runs) keeps one Engram open and answers on
``<data dir>/engram.sock``. The client half of this module imports only the standard library,
so asking the daemon costs the interpreter's start and one round trip.

Safety: the socket file is created under umask 077 and chmod 0600 inside the data dir (0700),
and the server also checks the peer's uid (``SO_PEERCRED``) where the OS tells it, so only
the store's owner can talk to it. One request per connection: a JSON object and a newline,
answered by a JSON object and a newline. Requests are served one at a time on the daemon's
thread (the handler may swap ``sys.stdout``; the store's writes are serialised anyway).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

SOCKET_NAME = "engram.sock"
# held (flock) by a serving daemon for its whole life, and by a hook while it starts one: two
# prompts at once start one daemon, and a daemon refuses to start beside another
LOCK_NAME = "engram.sock.lock"
# the environment that decides which store a command opens: a daemon serves only its own
STORE_ENV = ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL", "ENGRAM_MODEL_DIR")
MAX_REQUEST = 8 * 2**20  # a hook's prompt or a transcript path, never a whole store
# Unix socket paths are limited to 107 bytes (Linux) / 103 (macOS): longer data dirs get no
# daemon and every caller falls back to in-process (slower, never wrong).
MAX_PATH = 103


def socket_path(data_dir: str | Path) -> Path:
    return Path(data_dir) / SOCKET_NAME


def hold_lock(data_dir: str | Path, wait: bool = False) -> int | None:
    """An open descriptor holding the data dir's daemon lock, or None when another process
    holds it (a daemon serves or is starting) or it cannot be taken (no such dir, no flock).
    ``wait``: block until the holder lets go instead."""
    try:
        import fcntl
    except ImportError:  # no Unix sockets there either
        return None
    try:
        fd = os.open(Path(data_dir) / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


# client ------------------------------------------------------------------------------------
def request(data_dir: str | Path, payload: dict, timeout: float = 30.0) -> dict | None:
    """The daemon's answer, or None when no daemon serves ``data_dir`` (the caller then does
    the work itself). A daemon that accepted the request but failed answers ``{"ok": false}``."""
    path = socket_path(data_dir)
    if len(os.fsencode(path)) > MAX_PATH:
        return None
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(1.0)  # connecting to a live daemon is immediate; a stale file refuses
        try:
            s.connect(os.fspath(path))
        except OSError:
            return None
        s.settimeout(timeout)
        s.sendall(json.dumps(payload).encode("utf-8") + b"\n")
        s.shutdown(socket.SHUT_WR)
        data = _read_all(s)
    except OSError as exc:
        # the daemon has the request (it may still carry it out): the caller must not
        # simply do it again if it writes
        return {"ok": False, "sent": True, "error": f"no answer from the daemon: {exc}"}
    finally:
        s.close()
    try:
        reply = json.loads(data)
    except ValueError:
        return {"ok": False, "sent": True, "error": "the daemon's answer was not JSON"}
    return reply if isinstance(reply, dict) else None


def _read_all(s: socket.socket) -> bytes:
    chunks: list[bytes] = []
    while True:
        got = s.recv(65536)
        if not got:
            return b"".join(chunks)
        chunks.append(got)


# server ------------------------------------------------------------------------------------
class AlreadyRunning(RuntimeError):
    pass


class Daemon:
    """Serves ``handler(request) -> reply`` on the data dir's socket from a background thread."""

    def __init__(
        self,
        data_dir: str | Path,
        handler: Callable[[dict], dict],
        status: Callable[[], dict] | None = None,
        prime: Callable[[], None] | None = None,
    ):
        self.path = socket_path(data_dir)
        self.handler = handler
        self.status = status
        self.prime = prime  # run first on the serving thread (its connection, caches)
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.last_request = time.monotonic()  # for an idle exit (pings do not count)

    def start(self) -> None:
        """Bind and start serving; AlreadyRunning when another live daemon owns the socket,
        OSError when the path is unusable (too long, read-only)."""
        if len(os.fsencode(self.path)) > MAX_PATH:
            raise OSError(f"{self.path}: too long for a Unix socket")
        if self.path.exists() or self.path.is_symlink():
            if request(self.path.parent, {"op": "ping"}, timeout=2.0) is not None:
                raise AlreadyRunning(f"an Engram daemon already serves {self.path.parent}")
            self.path.unlink()  # left by a daemon that died: nobody listens on it
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(os.fspath(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        sock.listen(16)
        sock.settimeout(0.2)  # to notice stop() without a wake-up connection
        self._sock = sock
        self._thread = threading.Thread(target=self._serve, name="engram-daemon", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            try:
                self.path.unlink()
            except OSError:
                pass

    def wait(self, idle_exit: float | None = None) -> bool:
        """Block until stop() (or Ctrl+C in the caller), or until ``idle_exit`` seconds pass
        without a request; True when it ended for being idle."""
        while not self._stop.wait(0.5):
            if idle_exit and time.monotonic() - self.last_request > idle_exit:
                return True
        return False

    def _serve(self) -> None:
        assert self._sock is not None
        if self.prime is not None:
            try:
                self.prime()
            except Exception as exc:  # a cold first answer is slower, not wrong
                print(f"engram daemon: warm-up: {exc}", file=sys.stderr)
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                try:
                    self._answer(conn)
                except Exception as exc:  # one bad client must not end the daemon
                    print(f"engram daemon: {type(exc).__name__}: {exc}", file=sys.stderr)

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(10.0)
        if not _same_user(conn):
            return
        data = b""
        while not data.endswith(b"\n"):
            got = conn.recv(65536)
            if not got:
                break
            data += got
            if len(data) > MAX_REQUEST:
                return
        try:
            req = json.loads(data)
            if not isinstance(req, dict):
                raise ValueError("a request is a JSON object")
        except ValueError as exc:
            reply: dict = {"ok": False, "error": f"bad request: {exc}"}
        else:
            if req.get("op") == "ping":
                reply = {"ok": True, "pid": os.getpid(), **(self.status() if self.status else {})}
            else:
                self.last_request = time.monotonic()
                try:
                    reply = self.handler(req)
                except Exception as exc:
                    reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                self.last_request = time.monotonic()  # a long request is not idle time
        conn.sendall(json.dumps(reply, default=str).encode("utf-8") + b"\n")


def _same_user(conn: socket.socket) -> bool:
    """The peer runs as this process's user (Linux ``SO_PEERCRED``); elsewhere the socket's
    0600 mode and the 0700 data dir are the check."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return True
    creds = conn.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid == os.getuid()

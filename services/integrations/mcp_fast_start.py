"""Answer an MCP client's ``initialize`` before the MCP SDK has loaded.

Agents give a stdio server about 5 s to answer ``initialize`` (Gemini CLI's ``mcp list``
gives up at 5 s; at a load average of 15 on two cores the server took 5.4 s). After Engram's
own start-up was made lazy, what is left is importing the official SDK (pydantic models for
every protocol version, the client package its ``__init__`` pulls in): ~0.8 s of CPU,
measured with ``python -X importtime``.

The answer to ``initialize`` depends only on the SDK, this server's definition and the
protocol version the client asks for, so the SDK's own answer is kept in the data dir
(``mcp-initialize.json``, keyed by the SDK's and this server's files) the first time a client
asks for a version. From then on this module answers the handshake from that record at once,
then hands the stream to the SDK through a pipe: the SDK sees the same ``initialize`` (so its
session state is what it would be) and its duplicate answer is dropped on the way out. Every
later message goes through unchanged. A client asking for a version not on record gets the
SDK's answer as before (and records it).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger(__name__)
CACHE = "mcp-initialize.json"


def _key(slug: str) -> str:
    """Changes whenever the SDK or this server's definition (title, instructions) changes."""
    from services.version import VERSION

    here = Path(__file__).resolve().parent
    files = sorted(here.glob("mcp_*.py"))  # the server's definition: tools, prompts, resources
    spec = importlib.util.find_spec("mcp")  # finds the package without importing it
    if spec and spec.origin:
        files.append(Path(spec.origin))
        files.append(Path(spec.origin).parent.parent / "mcp_types" / "__init__.py")
    stamps = []
    for f in files:
        try:
            stamps.append(f"{f}:{os.stat(f).st_mtime_ns}")
        except OSError:
            stamps.append(f"{f}:-")
    return json.dumps([slug, VERSION, *stamps])


def _write_all(fd: int, data: bytes) -> None:
    while data:
        n = os.write(fd, data)
        data = data[n:]


class Relay:
    """Owns the process's stdin/stdout while the SDK runs behind a pair of pipes."""

    def __init__(self, data_dir: Path, slug: str):
        self.path = Path(data_dir) / CACHE
        self.key = _key(slug)
        self.swallow: object = None  # id of the initialize already answered here
        self.capture: tuple[object, str] | None = None  # (id, version) to record
        self._threads: list[threading.Thread] = []

    def _load(self) -> dict:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data.get("results", {}) if data.get("key") == self.key else {}

    def _save(self, version: str, result: dict) -> None:
        from services.store.atomic import atomic_write

        results = self._load()
        results[version] = result
        try:
            atomic_write(self.path, json.dumps({"key": self.key, "results": results}))
        except OSError as exc:  # a read-only store: the next start is slower, not broken
            log.warning("could not record the MCP handshake: %s", exc)

    def start(self) -> None:
        """Read the client's first message, answer it if it is an ``initialize`` on record,
        and put pipes in place of fds 0 and 1 for the SDK."""
        self.inp = os.fdopen(os.dup(0), "rb")
        self.out = os.dup(1)
        first = self.inp.readline()
        self._answer_early(first)
        in_r, in_w = os.pipe()
        os.dup2(in_r, 0)
        os.close(in_r)
        out_r, out_w = os.pipe()
        os.dup2(out_w, 1)
        os.close(out_w)
        self._spawn(self._feed, first, in_w)
        self._spawn(self._forward, out_r)

    def _answer_early(self, first: bytes) -> None:
        try:
            msg = json.loads(first)
        except ValueError:
            return
        if not isinstance(msg, dict) or msg.get("method") != "initialize" or "id" not in msg:
            return
        version = str((msg.get("params") or {}).get("protocolVersion") or "")
        result = self._load().get(version)
        if result is None:
            self.capture = (msg["id"], version)
            return
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        _write_all(self.out, json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        self.swallow = msg["id"]

    def _spawn(self, fn, *args) -> None:
        t = threading.Thread(target=fn, args=args, daemon=True, name=f"mcp-{fn.__name__}")
        t.start()
        self._threads.append(t)

    def _feed(self, first: bytes, in_w: int) -> None:
        try:
            line = first
            while line:
                _write_all(in_w, line)
                line = self.inp.readline()
        except OSError:
            pass
        finally:
            os.close(in_w)  # the SDK sees the client's EOF

    def _forward(self, out_r: int) -> None:
        with os.fdopen(out_r, "rb") as pipe:
            for line in pipe:
                if (self.swallow is not None or self.capture) and self._handshake(line):
                    continue
                _write_all(self.out, line)

    def _handshake(self, line: bytes) -> bool:
        """Whether to drop this outgoing line (the SDK's answer to an ``initialize`` already
        answered); records the SDK's answer the first time a version is asked for."""
        try:
            msg = json.loads(line)
        except ValueError:
            return False
        if not isinstance(msg, dict) or "result" not in msg:
            return False
        if self.swallow is not None and msg.get("id") == self.swallow:
            self.swallow = None
            return True
        if self.capture and msg.get("id") == self.capture[0]:
            version = self.capture[1]
            self.capture = None
            if isinstance(msg["result"], dict) and version:
                self._save(version, msg["result"])
        return False

    def finish(self) -> None:
        """After the SDK returned: let the last answers out before the process ends."""
        import sys

        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.close(1)  # the forwarder's pipe reaches EOF
        for t in self._threads[1:]:
            t.join(timeout=5)

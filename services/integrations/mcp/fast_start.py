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
session state is what it would be) and its duplicate answer is dropped on the way out. The
client's first ``tools/list`` (no cursor) after a replayed handshake is answered the same way
(the tool list is fixed by the same files), so an agent sees Engram's tools without waiting
for the SDK; the SDK's own answer is dropped. Every other message goes through unchanged. A
client asking for a version not on record gets the SDK's answers as before (and records them).
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


def refuse_missing_agent(database_url: str, slug: str) -> bool:
    """Raise NotFound, before any handshake is answered, when ``slug`` is not an agent of the
    store or is in the trash: a recorded ``initialize`` would otherwise tell the client the
    server is connected, and it would close at the first call. Read straight from the SQLite
    file (no peewee, no SDK: this runs before the fast answer). False when it cannot tell (a
    team store, an unreadable file): the caller then opens the store first."""
    import sqlite3

    from services.errors import NotFound

    if "://" in database_url:
        return False
    if not Path(database_url).is_file():
        raise NotFound(f"no agent {slug!r}: the store {database_url} has no agents yet")
    try:
        con = sqlite3.connect(f"file:{database_url}?mode=ro", uri=True, timeout=5)
        try:
            row = con.execute("SELECT settings FROM agent WHERE slug = ?", (slug,)).fetchone()
            slugs = [r[0] for r in con.execute("SELECT slug FROM agent ORDER BY slug")]
        finally:
            con.close()
    except sqlite3.Error:
        return False
    if row is None:  # a typo: name the agents there are, so the fix is one edit away
        raise NotFound(
            f"no agent {slug!r} (agents: {', '.join(slugs) or 'none yet'}); pass --create to "
            "make it, or `engram hooks install` for a client; the MCP server was not started"
        )
    try:
        settings = json.loads(row[0] or "{}")
    except ValueError:
        settings = {}
    # services.engram.TRASH_KEY, not imported: the façade pulls in the whole store
    if isinstance(settings, dict) and settings.get("trashed_at"):
        raise NotFound(
            f"agent {slug!r} is in the trash (`engram agent restore {slug}`); "
            "the MCP server was not started"
        )
    return True


def _key(slug: str) -> str:
    """Changes whenever the SDK or this server's definition (title, instructions) changes."""
    from services.version import VERSION

    here = Path(__file__).resolve().parent
    files = sorted(here.glob("*.py"))  # the server's definition: tools, prompts, resources
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
        self.version = ""  # the protocol version the client asked for
        self.early_init = False
        # tools/list: ids answered here (their SDK answer is dropped), ids whose SDK answer is
        # recorded; both threads write to the client, one whole line at a time
        self.swallow_tools: set = set()
        self.capture_tools: dict = {}
        self._tools_done = False
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def _record(self) -> dict:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("key") == self.key else {}

    def _load(self, part: str = "results") -> dict:
        got = self._record().get(part, {})
        return got if isinstance(got, dict) else {}

    def _save(self, version: str, result: dict, part: str = "results") -> None:
        from services.store.atomic import atomic_write

        with self._lock:
            data = self._record()
            parts = {k: data.get(k, {}) for k in ("results", "tools")}
            parts[part] = {**parts[part], version: result}
            try:
                atomic_write(self.path, json.dumps({"key": self.key, **parts}))
            except OSError as exc:  # a read-only store: the next start is slower, not broken
                log.warning("could not record the MCP handshake: %s", exc)

    def _send(self, reply: dict) -> None:
        with self._lock:
            _write_all(self.out, json.dumps(reply, separators=(",", ":")).encode() + b"\n")

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
        self.version = version
        result = self._load().get(version)
        if result is None:
            self.capture = (msg["id"], version)
            return
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        self.swallow = msg["id"]
        self.early_init = True

    def _tools_early(self, line: bytes) -> None:
        """The client's first plain ``tools/list``: answered from the record after a replayed
        handshake, else its SDK answer is recorded for the next start."""
        if self._tools_done or b"tools/list" not in line:
            return
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict) or msg.get("method") != "tools/list" or "id" not in msg:
            return
        if (msg.get("params") or {}).get("cursor") or not self.version:
            return
        self._tools_done = True
        result = self._load("tools").get(self.version) if self.early_init else None
        if result is None:
            with self._lock:
                self.capture_tools[json.dumps(msg["id"])] = self.version
            return
        with self._lock:
            self.swallow_tools.add(json.dumps(msg["id"]))
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def _spawn(self, fn, *args) -> None:
        t = threading.Thread(target=fn, args=args, daemon=True, name=f"mcp-{fn.__name__}")
        t.start()
        self._threads.append(t)

    def _feed(self, first: bytes, in_w: int) -> None:
        try:
            line = first
            while line:
                if line is not first:
                    self._tools_early(line)
                _write_all(in_w, line)
                line = self.inp.readline()
        except OSError:
            pass
        finally:
            os.close(in_w)  # the SDK sees the client's EOF

    def _forward(self, out_r: int) -> None:
        with os.fdopen(out_r, "rb") as pipe:
            for line in pipe:
                if self._handshake(line):
                    continue
                with self._lock:
                    _write_all(self.out, line)

    def _handshake(self, line: bytes) -> bool:
        """Whether to drop this outgoing line (the SDK's answer to an ``initialize`` already
        answered, or a ``tools/list`` answered here); records the SDK's answers the first time
        a version is asked for."""
        with self._lock:
            waiting = bool(
                self.swallow is not None or self.capture or self.swallow_tools or self.capture_tools
            )
        if not waiting:
            return False
        try:
            msg = json.loads(line)
        except ValueError:
            return False
        if not isinstance(msg, dict) or "result" not in msg:
            return False
        key = json.dumps(msg.get("id"))
        with self._lock:
            dropped = key in self.swallow_tools
            self.swallow_tools.discard(key)
            tools_version = self.capture_tools.pop(key, None)
        if dropped:
            return True
        if (
            tools_version
            and isinstance(msg["result"], dict)
            and not msg["result"].get("nextCursor")
        ):
            self._save(tools_version, msg["result"], "tools")
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

"""``recall`` and ``get_context`` asked of the resident daemon (``engram serve``, the app) when
one serves this store, so an agent's first call does not wait for a model load in the MCP
server's own process: the daemon has the model loaded already and answers with the same
function (``memory.recall`` / ``memory.get_context``) over the same store.

When no daemon answers (none runs, it serves another team store or model, it went away) the
tool runs in this process as before. With a daemon there at start, this process defers its
own model load (``defer``) until it first does work itself: a write, any other tool, or a
fallback; recall still waits for the model then, as without a daemon.

The daemon's side is ``answer``; ``app/daemon_server.py`` routes ``{"op": "mcp"}`` to it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from services import errors
from services.integrations.daemon import STORE_ENV, request, socket_path

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

log = logging.getLogger(__name__)
TOOLS = ("recall", "get_context")
TIMEOUT = 150.0  # the daemon may first wait for its model (as this process would)
# a tool error the daemon raised is raised here with the same class and words
ERRORS: dict[str, type[Exception]] = {
    "InvalidInput": errors.InvalidInput,
    "NotFound": errors.NotFound,
    "ModelUnavailable": errors.ModelUnavailable,
    "EngramError": errors.EngramError,
    "ValueError": ValueError,
}


class Resident:
    """One MCP server's link to the daemon of its data dir, for agent ``slug``."""

    def __init__(self, data_dir: str | Path, slug: str):
        self.data_dir = Path(data_dir)
        self.slug = slug
        self._deferred: Callable[[], Any] | None = None
        self._lock = threading.Lock()

    def serving(self) -> bool:
        return (
            socket_path(self.data_dir).exists()
            and request(self.data_dir, {"op": "ping"}, timeout=2.0) is not None
        )

    def defer(self, load: Callable[[], Any]) -> None:
        """Run ``load`` (this process's model warm-up) only when it first does work itself."""
        self._deferred = load

    def local(self) -> None:
        """This process is about to do the work: start its deferred model load, once."""
        with self._lock:
            load, self._deferred = self._deferred, None
        if load is not None:
            log.info("the MCP server loads its own model (no daemon answered, or a write)")
            load()

    def ask(self, tool: str, **args) -> tuple[bool, Any]:
        """(True, the daemon's result), or (False, None) when this process must do it."""
        if not socket_path(self.data_dir).exists():
            return False, None
        reply = request(
            self.data_dir,
            {
                "op": "mcp",
                "tool": tool,
                "agent": self.slug,
                "args": args,
                "env": {k: os.environ.get(k) or None for k in STORE_ENV},
            },
            timeout=TIMEOUT,
        )
        if reply and not reply.get("ok") and reply.get("error_kind") in ERRORS:
            raise ERRORS[reply["error_kind"]](reply.get("error") or "")
        if not reply or not reply.get("ok"):
            return False, None
        log.info("MCP %s answered by the resident daemon (pid %s)", tool, reply.get("pid"))
        return True, reply.get("result")


def answer(engram: EngramHandle, req: dict) -> dict:
    """The daemon's side: run one of ``TOOLS`` for the agent the MCP server serves."""
    from services.integrations.mcp import memory

    tool = req.get("tool")
    if tool not in TOOLS:
        return {"ok": False, "error": f"not a tool the daemon answers: {tool!r}"}
    args = req.get("args") or {}
    try:
        mem = engram.agent(str(req.get("agent") or ""))
        if tool == "recall":
            result: Any = memory.recall(
                mem,
                str(args.get("query") or ""),
                k=int(args.get("k", 5)),
                category=args.get("category"),
                mode=str(args.get("mode") or "auto"),
            )
        else:
            result = memory.get_context(
                mem, str(args.get("query") or ""), int(args.get("budget", 1500))
            )
    except (errors.EngramError, ValueError) as exc:
        kind = type(exc).__name__ if type(exc).__name__ in ERRORS else "EngramError"
        return {"ok": False, "error": str(exc), "error_kind": kind}
    log.info("answered MCP %s for agent %s", tool, mem.slug)
    return {"ok": True, "result": result, "pid": os.getpid()}

"""The daemon's side of ``app.daemon_client``: run a command line against the resident Engram
and hand back what it printed. ``engram serve`` and the desktop app both serve with this."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import threading
from typing import TYPE_CHECKING

from app.daemon_client import STORE_ENV, eligible, split_globals

if TYPE_CHECKING:
    from services.engram import Engram


class ResidentContext:
    """``Context`` for a command the daemon runs: the store is already open, and stays so."""

    def __init__(self, engram: Engram):
        self._engram = engram
        self.data_dir = str(engram.config.data_dir)

    def engram(self, semantic: bool = True):
        return self._engram

    def close(self) -> None:
        pass


class CliHandler:
    """``handler(request) -> reply`` for ``services.integrations.daemon.Daemon``."""

    def __init__(self, engram: Engram, ready: threading.Event | None = None):
        self.engram = engram
        self.ready = ready  # set when the model has loaded (or failed to)
        self._parser: argparse.ArgumentParser | None = None
        # the environment this daemon opened its store under (the data dir is the socket's):
        # a client with another team store or model in its environment runs the command itself
        self._env = {k: _norm(os.environ.get(k)) for k in STORE_ENV}

    def __call__(self, req: dict) -> dict:
        env = req.get("env") or {}
        if any(_norm(env.get(k)) != self._env[k] for k in STORE_ENV):
            return {"ok": False, "error": "not for this daemon"}  # the client runs it itself
        if req.get("op") == "mcp":  # an MCP server's recall / get_context
            return self._mcp(req)
        if req.get("op") != "cli":
            return {"ok": False, "error": f"unknown request {req.get('op')!r}"}
        argv = [str(w) for w in req.get("argv") or []]
        _given, words = split_globals(argv)
        if not eligible(words):
            return {"ok": False, "error": "not for this daemon"}  # the client runs it itself
        if self._wants_vectors(words) and self.ready is not None:
            self.ready.wait(timeout=120)  # hybrid recall asked for: as in-process, after load
        return self._run(argv, str(req.get("stdin") or ""), req.get("user"))

    def _mcp(self, req: dict) -> dict:
        from services.integrations.mcp.resident import answer

        keyword = (req.get("args") or {}).get("mode") == "keyword"
        if not keyword and self.ready is not None:
            self.ready.wait(timeout=120)  # with the model, as the MCP server's recall waits
        return answer(self.engram, req)

    @staticmethod
    def _wants_vectors(words: list[str]) -> bool:
        """Hybrid recall, the prompt hook's context, and remember (its near-duplicate and
        contradiction checks compare vectors): as in a process that loads the model, these
        wait for it, so the daemon answers what the process would have."""
        if words[0] in ("remember", "hook-run"):  # hook-run: the prompt's context (hybrid)
            return True
        if words[0] != "recall":
            return False
        return not any(w in ("keyword", "--mode=keyword") for w in words)

    def prime(self) -> None:
        """On the serving thread, before the first hook: open its database connection and
        load what a prompt's context needs (the tokenizer, the FTS pages)."""
        from services.search.context import build_context

        for a in self.engram.agents(with_counts=False)[:3]:
            build_context(self.engram.agent(a.slug), "warm up", budget=200)

    def status(self) -> dict:
        return {
            "semantic": self.engram.semantic_enabled,
            "warming_up": self.ready is not None and not self.ready.is_set(),
        }

    def _run(self, argv: list[str], stdin: str, user: str | None) -> dict:
        from app.cli import build_parser, run
        from models.identity import current_origin, set_origin

        if self._parser is None:
            self._parser = build_parser()
        out, err = io.StringIO(), io.StringIO()
        origin = current_origin()
        old_user = os.environ.get("ENGRAM_USER")
        if user:
            os.environ["ENGRAM_USER"] = user
        set_origin("cli")
        try:
            with (
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(err),
                _stdin(stdin),
            ):
                try:
                    args = self._parser.parse_args(argv)
                    rc = run(args, ResidentContext(self.engram))
                except SystemExit as exc:  # argparse's usage errors
                    rc = exc.code if isinstance(exc.code, int) else 2
        finally:
            set_origin(origin)
            if user:
                if old_user is None:
                    os.environ.pop("ENGRAM_USER", None)
                else:
                    os.environ["ENGRAM_USER"] = old_user
        return {
            "ok": True,
            "rc": rc,
            "stdout": out.getvalue(),
            "stderr": err.getvalue(),
            "pid": os.getpid(),  # `engram -v` says who answered
        }


@contextlib.contextmanager
def _stdin(text: str):
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = old


def _norm(value) -> str | None:
    return str(value) if value else None


def serve(engram: Engram, keyword_only: bool = False):
    """Start serving ``engram`` on its data dir's socket (and, unless ``keyword_only``, load
    the model in the background). The running ``Daemon``; raises ``AlreadyRunning``."""
    from services.integrations.daemon import Daemon

    ready = None
    if not keyword_only and not engram.semantic_enabled:
        from services.vectors.warmup import warm_up_in_background

        ready = warm_up_in_background(engram)
    handler = CliHandler(engram, ready)
    from app.cli import build_parser

    handler._parser = build_parser()  # the commands' imports now, not on the first hook
    daemon = Daemon(engram.config.data_dir, handler, status=handler.status, prime=handler.prime)
    daemon.start()
    return daemon

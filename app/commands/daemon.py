"""`engram serve`: a resident Engram that hooks and the CLI talk to over a Unix socket."""

from __future__ import annotations

import os
import signal
import sys

from app.commands.help_text import flag, keyword_only, minutes


def register(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="keep Engram resident for agents' hooks and the CLI (a Unix socket in the data "
        "dir, owner-only); they fall back to running in-process when it is not running",
    )
    keyword_only(p, "no embedding model: keyword search only")
    minutes(
        p,
        "--sync-every",
        5.0,
        "a store that syncs with a team server: a round at start and every MINUTES "
        "(default 5; 0: no automatic sync)",
    )
    minutes(
        p,
        "--idle-exit",
        0.0,
        "stop after MINUTES without a request (default 0: run until stopped; a prompt "
        "hook that starts the daemon itself passes 30)",
    )
    flag(
        p,
        "--wait-for-lock",
        help="when another daemon serves this store, wait for it to stop, then serve (what "
        "the user service runs) instead of exiting",
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(args, ctx) -> int:
    from app.daemon_server import serve
    from services.integrations.daemon import AlreadyRunning

    eng = ctx.engram(semantic=False)  # listening first; the model loads in the background
    lock = _daemon_lock(eng.config.data_dir, wait=args.wait_for_lock)
    if lock is None:
        print(f"engram: an Engram daemon already serves {eng.config.data_dir}", file=sys.stderr)
        return 1
    try:
        daemon = serve(eng, keyword_only=args.keyword)
    except AlreadyRunning as exc:
        print(f"engram: {exc}", file=sys.stderr)
        return 1

    def stop(signum, frame):
        daemon.stop()

    signal.signal(signal.SIGTERM, stop)
    idle = f"; stops after {args.idle_exit:g} min without a request" if args.idle_exit else ""
    print(f"engram: serving {daemon.path} (pid {os.getpid()}{idle})", file=sys.stderr, flush=True)
    syncing = _start_sync(eng, args.sync_every)
    try:
        if daemon.wait(idle_exit=args.idle_exit * 60):
            print(f"engram: idle for {args.idle_exit:g} min, stopping", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        if syncing is not None:
            syncing.stop()
        daemon.stop()
    return 0


def _daemon_lock(data_dir, wait: bool = False) -> int | None:
    """The data dir's daemon lock, held until this process exits: inherited from the prompt
    hook that started this daemon (app/daemon_autostart.py), else taken here; None when
    another daemon holds it."""
    from app.daemon_autostart import LOCK_FD_ENV
    from services.integrations.daemon import hold_lock

    given = os.environ.pop(LOCK_FD_ENV, None)
    if given and given.isdigit():
        return int(given)
    return hold_lock(data_dir, wait=wait)


def _start_sync(eng, minutes: float):
    """As the app does: a store that syncs keeps in step while it is served."""
    from app.serve_sync import start_sync

    return start_sync(eng, minutes)

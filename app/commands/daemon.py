"""`engram serve`: a resident Engram that hooks and the CLI talk to over a Unix socket."""

from __future__ import annotations

import signal
import sys

from app.commands.help_text import old_spelling


def register(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="keep Engram resident for agents' hooks and the CLI (a Unix socket in the data "
        "dir, owner-only); they fall back to running in-process when it is not running",
    )
    p.add_argument(
        "--keyword-only",
        dest="keyword",
        action="store_true",
        help="no embedding model: keyword search only",
    )
    old_spelling(p, "--keyword", dest="keyword", action="store_true")
    p.add_argument(
        "--sync-every",
        type=float,
        default=5.0,
        metavar="MINUTES",
        help="a store that syncs with a team server: a round at start and every MINUTES "
        "(default 5; 0: no automatic sync)",
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(args, ctx) -> int:
    from app.daemon_server import serve
    from services.integrations.daemon import AlreadyRunning

    eng = ctx.engram(semantic=False)  # listening first; the model loads in the background
    try:
        daemon = serve(eng, keyword_only=args.keyword)
    except AlreadyRunning as exc:
        print(f"engram: {exc}", file=sys.stderr)
        return 1

    def stop(signum, frame):
        daemon.stop()

    signal.signal(signal.SIGTERM, stop)
    print(f"engram: serving {daemon.path}", file=sys.stderr, flush=True)
    syncing = _start_sync(eng, args.sync_every)
    try:
        daemon.wait()
    except KeyboardInterrupt:
        pass
    finally:
        if syncing is not None:
            syncing.stop()
        daemon.stop()
    return 0


def _start_sync(eng, minutes: float):
    """As the app does: a store that syncs keeps in step while it is served."""
    from app.serve_sync import start_sync

    return start_sync(eng, minutes)

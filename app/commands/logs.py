"""``engram log``: where the store's log is, and its last lines (what forget, compile, GC,
imports, sync and write-back did: ids and counts, never memory text)."""

from __future__ import annotations

from collections import deque

from app.cli import emit_json
from app.commands.help_text import old_spelling


def register(sub) -> None:
    p = sub.add_parser("log", help="show the end of the store's log (engram.log)")
    p.add_argument(
        "-n", "--limit", dest="lines", type=int, default=40, help="how many lines (default 40)"
    )
    old_spelling(p, "--lines", dest="lines", type=int)
    p.add_argument("--path", action="store_true", help="print only the log file's path")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_log)


def cmd_log(args, ctx) -> int:
    from app.crash_log import LOG_NAME
    from app.settings import store_config

    path = store_config(ctx.data_dir, semantic=False).data_dir / "logs" / LOG_NAME
    as_json = getattr(args, "json", False)
    if args.path:
        if as_json:
            emit_json({"path": str(path)})
        else:
            print(path)
        return 0
    tail: deque[str] = deque()
    if path.exists():
        with open(path, encoding="utf-8", errors="replace") as fh:
            tail = deque(fh, maxlen=max(1, args.lines))
    if as_json:
        emit_json({"path": str(path), "lines": [line.rstrip("\n") for line in tail]})
        return 0
    if not path.exists():
        print(f"no log yet: {path} is written once a command or the app changes the store")
        return 0
    print(f"# {path}")
    print("".join(tail), end="")
    return 0

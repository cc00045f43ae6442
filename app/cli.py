"""The ``engram`` command line: what agents' hooks and scripts call.

Commands live in ``app/commands/*.py``; each module has ``register(subparsers)`` and its
handlers take ``(args, ctx)``. Errors are one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import logging
import os
import sqlite3
import sys
from dataclasses import dataclass, field

import peewee

from app import __version__

COMMAND_MODULES = [
    "app.commands.core",
    "app.commands.lifecycle",
    "app.commands.forget",
    "app.commands.integration",
    "app.commands.entities",
    "app.commands.teamstore",
]


@dataclass
class Context:
    """Opens the store lazily, so `engram --help` and errors stay fast."""

    data_dir: str | None
    _engram: object = field(default=None, repr=False)

    def engram(self, semantic: bool = True):
        if self._engram is None:
            from app.settings import store_config
            from services.engram import Engram

            self._engram = Engram.open(store_config(self.data_dir, semantic=semantic))
        return self._engram

    def close(self) -> None:
        if self._engram is not None:
            self._engram.close()


def emit_json(obj) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line too (a hook's stderr is read by a person in a log)."""

    def error(self, message: str):  # type: ignore[override]
        hint = ""
        if "expected one argument" in message or "unrecognized arguments: -" in message:
            hint = " (a value that starts with '-' is written --option=VALUE)"
        self.exit(2, f"engram: {message}{hint} (see `{self.prog} --help`)\n")


def _os_error(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return f"{exc.filename or exc}: symbolic link loop"
    return str(exc)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="engram", description="See, search, correct and erase what your AI agents remember."
    )
    p.add_argument(
        "--data-dir", help="store directory (default: $ENGRAM_HOME or the user data dir)"
    )
    p.add_argument("--version", action="version", version=f"engram {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        mod.register(sub)
    return p


def _hint(exc, ctx) -> str:
    """Read-only, full or damaged store: say so (services/store/health.py)."""
    try:
        from app.settings import store_config
        from services.store.health import explain

        return explain(exc, store_config(ctx.data_dir, semantic=False).data_dir)
    except Exception:  # a hint must never hide the error itself
        return ""


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from models.identity import set_origin

    set_origin("cli")  # provenance on every write (the hook runtime narrows it to "hook")
    ctx = Context(args.data_dir)
    from services.errors import EngramError
    from services.interop.importers.base import ImportFormatError

    try:
        rc = args.func(args, ctx)
        return int(rc or 0)
    except (EngramError, ImportFormatError) as exc:
        print(f"engram: {exc}", file=sys.stderr)
        return 1
    except (sqlite3.Error, peewee.PeeweeException) as exc:
        from models.db import TeamStoreUnavailable, explain_timeout

        if isinstance(exc, TeamStoreUnavailable) or explain_timeout(str(exc)):
            # a team store's bounded wait or a server that did not open: already one line
            print(f"engram: {explain_timeout(str(exc)) or exc}", file=sys.stderr)
            return 1
        print(f"engram: database error: {exc}{_hint(exc, ctx)}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"engram: {_os_error(exc)}{_hint(exc, ctx)}", file=sys.stderr)
        return 1
    except (UnicodeError, ValueError) as exc:
        print(f"engram: {exc}{_hint(exc, ctx)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("engram: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a hook's stderr must stay one readable line
        if args.verbose:
            logging.exception("unexpected error")
        print(
            f"engram: unexpected error ({type(exc).__name__}): {exc} (run with -v for details)",
            file=sys.stderr,
        )
        return 1
    finally:
        ctx.close()


if __name__ == "__main__":
    sys.exit(main())

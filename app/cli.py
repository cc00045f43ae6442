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
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from services.engram import Engram

COMMAND_MODULES = [
    "app.commands.core",
    "app.commands.lifecycle",
    "app.commands.backup",
    "app.commands.stats",
    "app.commands.completion",
    "app.commands.forget",
    "app.commands.integration",
    "app.commands.entities",
    "app.commands.teamstore",
    "app.commands.logs",
    "app.commands.daemon",
]


@dataclass
class Context:
    """Opens the store lazily, so `engram --help` and errors stay fast."""

    data_dir: str | None
    _engram: Engram | None = field(default=None, repr=False)
    _log: logging.Handler | None = field(default=None, repr=False)
    # compiled layers follow the command's writes: once at its end ("sync"), or, for a
    # long-running server, a moment after each burst of writes ("debounce")
    recompile: str = "sync"
    # not in an agent's hook: it runs under the agent's time limit
    daily_backup: bool = True

    def engram(self, semantic: bool = True) -> Engram:
        if self._engram is None:
            from app.settings import store_config
            from services.engram import Engram

            config = store_config(self.data_dir, semantic=semantic)
            eng = Engram.open(config)
            eng.follow_changes(self.recompile)
            if self.daily_backup:
                _daily_backup(config)
            self._engram = eng
            from app.crash_log import file_log_handler

            # what the command did (ids and counts) goes to the store's own log, as the app's does
            self._log = file_log_handler(config.data_dir)
            logging.getLogger().addHandler(self._log)
        return self._engram

    def close(self) -> None:
        if self._engram is not None:
            self._engram.close()
        if self._log is not None:  # one command, one handler (tests run many in a process)
            logging.getLogger().removeHandler(self._log)
            self._log.close()
            self._log = None


def _daily_backup(config) -> None:
    """Today's automatic backup of a local store (services/store/backup.py); a failed backup
    is a warning, never the command's failure."""
    if config.db_url:
        return
    try:
        from pathlib import Path

        from services.store.backup import daily_backup

        vectors = config.vector_location
        daily_backup(
            config.data_dir, Path(config.database_url), None if "://" in vectors else Path(vectors)
        )
    except Exception as exc:
        logging.getLogger(__name__).warning("daily backup not taken: %s", exc)


# the same table is in README.md ("Exit codes"); tests/core/test_cli_options.py keeps them equal
EXIT_CODES = """exit codes:
  0    done
  1    failed: the error is on stderr (no such agent or fact, unreadable file, nothing
       imported, `verify` found inconsistencies)
  2    wrong usage: unknown command or option, invalid value, no store at --data-dir
  3    not done, for a reason outside the command: a forget rule blocked `remember`,
       the sync server is offline (changes stay queued)
  4    conflicts to resolve: `writeback` or `sync` found a file and Engram both changed
       (or a fact edited on two machines: the other wording waits in `engram review`),
       or the store is older than the links in an agent's files (restored): nothing written
  5    the store was written by a newer Engram: nothing was read or written
  130  interrupted (Ctrl+C): what was kept is said; running the command again finishes it
"""

SERVERS = ("mcp", "serve")  # commands that run until stopped


def emit_json(obj) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line too (a hook's stderr is read by a person in a log)."""

    _words: list[str] = []

    def parse_known_args(self, args=None, namespace=None):
        self._words = list(sys.argv[1:] if args is None else args)  # for error()'s hint
        ns, extras = super().parse_known_args(args, namespace)
        typo = self._typo(extras)
        if typo:  # said by the subcommand that knows its options, not by `engram` above it
            self.error(f"unknown option {typo[0]}: did you mean {typo[1]}?")
        return ns, extras

    def error(self, message: str) -> NoReturn:
        # a missing required option may be a mistyped one (`--agnet` for --agent)
        typo = self._typo(self._words) if "required" in message else None
        if typo:  # `--agnet` is a typo of --agent, not a missing --agent
            given, meant = typo
            message = f"unknown option {given}: did you mean {meant}?"
        hint = ""
        if not typo and (
            "expected one argument" in message or "unrecognized arguments: -" in message
        ):
            hint = " (a value that starts with '-' is written --option=VALUE)"
        self.exit(2, f"engram: {message}{hint} (see `{self.prog} --help`)\n")

    def _typo(self, words: list[str]) -> tuple[str, str] | None:
        import difflib

        known = [o for o in self._option_string_actions if o.startswith("--")]
        for word in words:
            if word == "--":
                break
            name = word.split("=", 1)[0]
            if not name.startswith("--") or name in self._option_string_actions:
                continue
            if any(k.startswith(name) for k in known):
                continue  # an abbreviation argparse accepts
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            if close:
                return name, close[0]
        return None


def _os_error(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return f"{exc.filename or exc}: symbolic link loop"
    return str(exc)


class _Version(argparse.Action):
    """``--version``, its number read when asked: the package's metadata costs every other
    command ~20 ms."""

    def __init__(
        self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None
    ):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from app import __version__

        sys.stdout.write(f"engram {__version__}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="engram",
        description="See, search, correct and erase what your AI agents remember.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--data-dir", help="store directory (default: $ENGRAM_HOME or the user data dir)"
    )
    p.add_argument(
        "--init",
        action="store_true",
        help="create the store when --data-dir names a folder that does not exist yet "
        "(also ENGRAM_INIT=1)",
    )
    p.add_argument("--version", action=_Version, help="show the version and exit")
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
    from app.commands.help_text import fill

    fill(p)
    return p


NO_STORE_NEEDED = {"completion", "model"}


def _missing_store(args) -> str | None:
    """A --data-dir that does not exist is a typo more often than a wish for a new empty
    store; the default folder is still made on a first run."""
    if not args.data_dir or args.init or os.environ.get("ENGRAM_INIT") == "1":
        return None
    if args.command in NO_STORE_NEEDED:
        return None
    from pathlib import Path

    from app.settings import default_data_dir

    given = Path(args.data_dir).expanduser()
    if given.exists() or given.resolve() == default_data_dir().resolve():
        return None
    return f"no Engram store at {given}; pass --init to create one"


def _hint(exc, ctx) -> str:
    """Read-only, full or damaged store: say so (services/store/health.py)."""
    try:
        from app.settings import store_config
        from services.store.health import explain

        return explain(exc, store_config(ctx.data_dir, semantic=False).data_dir)
    except Exception:  # a hint must never hide the error itself
        return ""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    from app.daemon_client import try_daemon

    rc = try_daemon(argv)  # a resident Engram answers in milliseconds (hooks, recall)
    if rc is not None:
        return rc
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:  # stderr: warnings, or everything with -v
        handler.setLevel(logging.INFO if args.verbose else logging.WARNING)
    logging.getLogger().setLevel(logging.INFO)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    missing = _missing_store(args)
    if missing:
        print(f"engram: {missing}", file=sys.stderr)
        return 2
    from models.identity import set_origin

    set_origin("cli")  # provenance on every write (the hook runtime narrows it to "hook")
    ctx = Context(
        args.data_dir,
        recompile="debounce" if args.command in SERVERS else "sync",
        daily_backup=args.command != "hook-run",
    )
    try:
        return run(args, ctx)
    finally:
        ctx.close()


EXIT_SCHEMA_TOO_NEW = 5


def run(args, ctx) -> int:
    """One parsed command, its errors as one line on stderr (also what the daemon runs)."""
    import sqlite3

    import peewee

    from models.schema import SchemaTooNew
    from services.errors import EngramError
    from services.interop.importers.base import ImportFormatError

    try:
        rc = args.func(args, ctx)
        return int(rc or 0)
    except SchemaTooNew as exc:  # its own code: a script must not read it as a damaged store
        print(f"engram: {exc}", file=sys.stderr)
        return EXIT_SCHEMA_TOO_NEW
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
        if getattr(args, "verbose", False):
            logging.exception("unexpected error")
        print(
            f"engram: unexpected error ({type(exc).__name__}): {exc} (run with -v for details)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())

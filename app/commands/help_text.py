"""Help for the options every command shares, written once.

Most commands take `--json`, `--agent` or a fact id; their help would otherwise be copied
into forty `add_argument` calls (or, as before, left out). `fill` gives each action without
help the shared text for its destination; `tests/core/test_cli_help.py` fails when an action
is left with none.
"""

from __future__ import annotations

import argparse

SHARED = {
    "json": "machine-readable output: one JSON document on stdout, no progress bars",
    "agent": "the agent's slug (`engram agents` lists them)",
    "id": "fact id (`engram list` and `engram recall` show them)",
    "ids": "fact ids (`engram list` and `engram recall` show them)",
    "slug": "the agent's slug (`engram agents` lists them)",
    "category": "the fact's category, e.g. fact, preference, rule, decision",
    "status": "only facts in this state: active, archived, superseded, deleted",
    "importance": "importance from 0 to 1 (0.5 is ordinary, 1 is essential)",
    "query": "what to look for, in plain words",
    "path": "the file or folder to read",
    "out": "the file to write",
    "entity": "the entity's name or id (`engram entities` lists them)",
    "yes": "act: without it the command only shows what it would do",
    "dry_run": "only show what would be done (the default of destructive commands)",
    "limit": "at most this many results",
}


def fill(parser: argparse.ArgumentParser) -> None:
    """Give every option and argument of every subcommand a help text."""
    seen: set[int] = set()

    def walk(p: argparse.ArgumentParser) -> None:
        if id(p) in seen:
            return
        seen.add(id(p))
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)
            elif action.help is None and action.dest in SHARED:
                action.help = SHARED[action.dest]

    walk(parser)


def without_help(parser: argparse.ArgumentParser) -> list[str]:
    """`command option` for every action that still has no help (the test's view)."""
    missing: list[str] = []
    seen: set[int] = set()

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        if id(p) in seen:
            return
        seen.add(id(p))
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                helped = {choice.dest for choice in action._choices_actions}
                for name, sub in action.choices.items():
                    if name not in helped:
                        missing.append(f"{path} {name} (the command itself)")
                    walk(sub, f"{path} {name}")
            elif action.help is None:
                missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")

    walk(parser, "engram")
    return missing


def old_spelling(parser: argparse.ArgumentParser, *flags: str, dest: str, **kw) -> None:
    """A spelling kept for a release so scripts keep working; hidden from help and completion
    (docs/cli.md lists the one spelling per idea)."""
    parser.add_argument(*flags, dest=dest, help=argparse.SUPPRESS, default=argparse.SUPPRESS, **kw)


# The options several commands declare alike: one spelling, destination and hidden old
# spelling everywhere, and short `register` functions.


def flag(parser: argparse._ActionsContainer, *flags: str, help: str | None = None, **kw) -> None:
    """An on/off option (absent: False)."""
    parser.add_argument(*flags, action="store_true", help=help, **kw)


def with_json(parser: argparse.ArgumentParser, func, **defaults) -> None:
    """The command's `--json` (help from SHARED) and the function that runs it."""
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=func, **defaults)


def keyword_only(parser: argparse.ArgumentParser, help: str) -> None:
    """`--keyword-only` (args.keyword): no embedding model; `--keyword` still accepted."""
    flag(parser, "--keyword-only", dest="keyword", help=help)
    old_spelling(parser, "--keyword", dest="keyword", action="store_true")


def minutes(parser: argparse.ArgumentParser, option: str, default: float, help: str) -> None:
    """A period in minutes (a float: tests pass fractions)."""
    parser.add_argument(option, type=float, default=default, metavar="MINUTES", help=help)

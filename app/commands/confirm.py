"""One rule for every destructive command (issue 35): without ``--yes`` it only shows what
would happen, in the same words as ``engram forget``; ``--yes`` does it."""

from __future__ import annotations

import argparse

from app.cli import emit_json
from services.consequences import Consequence

YES_HELP = "do it (without --yes: only show what would change)"


def add_yes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true", help=YES_HELP)


def show_preview(
    args, lines: list[str], data: dict, action: str, then: Consequence | None = None
) -> int:
    """Print what would happen (or {"preview": true, ...} with --json) and change nothing.
    ``then`` is what acting would mean, in the words the app's dialog uses."""
    if getattr(args, "json", False):
        emit_json({"preview": True, **data, **({"consequence": then.what} if then else {})})
        return 0
    for line in lines:
        print(line)
    if then is not None:
        print(then.for_cli())
    print(f"Nothing changed. Run again with --yes to {action}.")
    return 0

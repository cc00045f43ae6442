"""One rule for every destructive command (issue 35): without ``--yes`` it only shows what
would happen, in the same words as ``engram forget``; ``--yes`` does it."""

from __future__ import annotations

import argparse

from app.cli import emit_json

YES_HELP = "do it (without --yes: only show what would change)"


def add_yes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true", help=YES_HELP)


def show_preview(args, lines: list[str], data: dict, action: str) -> int:
    """Print what would happen (or {"preview": true, ...} with --json) and change nothing."""
    if getattr(args, "json", False):
        emit_json({"preview": True, **data})
        return 0
    for line in lines:
        print(line)
    print(f"Nothing changed. Run again with --yes to {action}.")
    return 0

"""The `engram` CLI run in this process on a data dir, as a user types it, and what it
printed."""

from __future__ import annotations

from pathlib import Path

from app.cli import main


def engram_cli(capsys, data: str | Path, *args: str) -> tuple[int, str, str]:
    """`engram --data-dir DATA ARGS…`: (exit code, stdout, stderr)."""
    rc = main(["--data-dir", str(data), *args])
    out, err = capsys.readouterr()
    return rc, out, err


def engram_ok(capsys, data: str | Path, *args: str) -> str:
    """The same, which must succeed: its stdout."""
    rc, out, err = engram_cli(capsys, data, *args)
    assert rc == 0, (args, out, err)
    return out

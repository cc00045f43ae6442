"""The CLI's first step: when a resident Engram (``engram serve``, the app) serves this store,
hand it the command line and print its answer. Standard library only: this runs before any of
Engram is imported, on every hook an agent fires.

Only the commands an agent runs on every turn go to the daemon; everything else (and every
command when no daemon answers) runs in this process as before, with the same output.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

# command → does it read stdin. `hook-run claude-code` (a whole session's ingest, seconds) stays
# in-process: the daemon serves one request at a time and prompts must not wait behind it.
DAEMON_COMMANDS = {"recall": False, "remember": False, "context": False, "hook-run": True}
DAEMON_HOOKS = {"claude-code-context"}
# the environment that decides which store a command opens: the daemon serves only its own
STORE_ENV = ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL", "ENGRAM_MODEL_DIR")
# the hook that runs on every prompt starts a daemon when none answers (app/daemon_autostart.py)
AUTOSTART = ["hook-run", "claude-code-context"]


def split_globals(argv: list[str]) -> tuple[str | None, list[str]]:
    """(--data-dir value, the words from the command on); the command is words[0]."""
    data_dir = None
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--data-dir" and i + 1 < len(argv):
            data_dir, i = argv[i + 1], i + 2
        elif word.startswith("--data-dir="):
            data_dir, i = word.split("=", 1)[1], i + 1
        elif word in ("-v", "--verbose"):
            i += 1
        else:
            return data_dir, argv[i:]
    return data_dir, []


def data_dir_for(given: str | None) -> Path:
    if given:
        return Path(given).expanduser()
    env = os.environ.get("ENGRAM_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("engram", appauthor=False))


def eligible(words: list[str]) -> bool:
    if not words or words[0] not in DAEMON_COMMANDS or "-h" in words or "--help" in words:
        return False
    if words[0] == "hook-run":
        return len(words) > 1 and words[1] in DAEMON_HOOKS
    return True


def try_daemon(argv: list[str]) -> int | None:
    """The command's exit status when the daemon ran it, None when this process must."""
    if os.environ.get("ENGRAM_NO_DAEMON"):
        return None
    given, words = split_globals(argv)
    if not eligible(words):
        return None
    # -v: say on stderr who answered (the agent shows a hook's stdout only)
    verbose = any(w in ("-v", "--verbose") for w in argv[: len(argv) - len(words)])
    data_dir = data_dir_for(given)
    from services.integrations.daemon import request, socket_path

    if not socket_path(data_dir).exists():
        _autostart(data_dir, words, verbose)
        return None
    stdin = sys.stdin.read() if DAEMON_COMMANDS[words[0]] else ""
    reply = request(
        data_dir,
        {
            "op": "cli",
            "argv": argv,
            "stdin": stdin,
            "env": {k: os.environ.get(k) or None for k in STORE_ENV},
            "user": os.environ.get("ENGRAM_USER") or None,
        },
        timeout=180 if words[0] == "remember" else 60,  # remember waits for the model
    )
    if reply and reply.get("sent") and words[0] == "remember":
        # running it here as well could store it twice (the daemon may still store it)
        print(f"engram: {reply.get('error')}; check with `engram list`", file=sys.stderr)
        return 1
    if reply is None:  # a socket file nobody listens on: the daemon died
        _autostart(data_dir, words, verbose)
    if not reply or not reply.get("ok"):
        if DAEMON_COMMANDS[words[0]]:
            sys.stdin = io.StringIO(stdin)  # this process runs it now: give the input back
        return None
    if verbose:
        print(f"engram: answered by the resident daemon (pid {reply.get('pid')})", file=sys.stderr)
    sys.stdout.write(reply.get("stdout", ""))
    sys.stderr.write(reply.get("stderr", ""))
    sys.stdout.flush()
    return int(reply.get("rc", 0))


def _autostart(data_dir: Path, words: list[str], verbose: bool) -> None:
    if words[:2] != AUTOSTART:
        return
    from app.daemon_autostart import start

    pid = start(data_dir)
    if verbose:
        said = f"started one (pid {pid})" if pid else "none started"
        print(f"engram: no resident daemon answered: {said}; answering here", file=sys.stderr)

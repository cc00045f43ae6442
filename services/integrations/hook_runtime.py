"""Running an installed hook: read the agent's hook JSON, ingest the finished session, log the run.

Installing the hooks lives in ``hooks.py``; this is what runs each time an agent fires one.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from services.errors import InvalidInput
from services.store.atomic import atomic_write

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle


def read_hook_input(stream) -> dict:
    """Claude Code's hook JSON from stdin; a clear error when it is not there."""
    raw = stream.read()
    if not raw.strip():
        raise InvalidInput(
            "hook-run expects the hook's JSON on stdin "
            '({"transcript_path": ..., "session_id": ...})'
        )
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"hook input is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidInput("hook input is not a JSON object")
    return data


def has_transcript(hook: dict) -> bool:
    """Whether the hook names a transcript that exists. Claude Code fires ``SessionEnd`` for
    commands that never write one (``claude mcp list``, ``claude -p`` that failed early):
    such a run has nothing to ingest and must end quietly, not as a hook error."""
    path = hook.get("transcript_path")
    return bool(path) and Path(os.path.expanduser(str(path))).is_file()


HOOK_LOG = "hook.log"
HOOK_LOG_MAX = 256 * 1024


def log_hook_run(
    data_dir: Path, target: str, agent: str, session_id: str | None, outcome: str
) -> None:
    """One line per hook run (ids, counts, errors; never memory text), trimmed to the last
    half when it grows past 256 KB. Logging must never fail the hook."""
    try:
        path = Path(data_dir) / HOOK_LOG
        line = (
            f"{datetime.now().isoformat(timespec='seconds')} {target} agent={agent} "
            f"session={session_id or '-'} {outcome}"
        ).replace("\n", " ") + "\n"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line)
        if path.stat().st_size > HOOK_LOG_MAX:
            keep = path.read_text(encoding="utf-8").splitlines(keepends=True)
            atomic_write(path, "".join(keep[len(keep) // 2 :]))
    except OSError:
        pass


def read_prompt_input(stream) -> str:
    """The user's prompt from a UserPromptSubmit hook's JSON (empty when absent)."""
    raw = stream.read()
    try:
        data = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"hook input is not JSON: {exc}") from None
    return str(data.get("prompt") or "") if isinstance(data, dict) else ""


def run_hook(memory: MemoryHandle, hook: dict):
    """Ingest the finished session (idempotent per session id: the lifecycle's sessions
    service records each session once)."""
    from models.identity import set_origin
    from services.capture.sessions import ingest_session

    set_origin("hook")  # provenance: these writes come from an agent's hook

    path = Path(os.path.expanduser(hook["transcript_path"]))
    if not path.exists():
        raise InvalidInput(f"transcript {path} does not exist")
    return ingest_session(memory, path, session_id=hook.get("session_id") or None)

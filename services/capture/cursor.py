"""Cursor agent transcripts → a ``Transcript`` (Cursor keeps no other memory since Memories
were removed). Cursor writes them per project under ``~/.cursor/projects/<project slug>/
agent-transcripts/``: current builds ``<uuid>/<uuid>.jsonl`` (one ``{"role", "message":
{"content": [...]}}`` object per line), older ones ``<uuid>.txt`` (``user:`` / ``assistant:``
blocks, the prompt inside ``<user_query>``, ``[Thinking]`` / ``[Tool call]`` / ``[Tool
result]`` blocks that are not conversation). The slug is the project path with ``/`` as ``-``.
"""

from __future__ import annotations

import re
from pathlib import Path

from services.capture.transcripts import Message, Transcript, _lines, content_text

_ROLE = re.compile(r"^(user|assistant|A):\s*$")
_QUERY = re.compile(r"</?user_query>")
_BLOCK = re.compile(r"^\[(Thinking|Tool call|Tool result)\]")


def looks_like_cursor(obj: dict) -> bool:
    msg = obj.get("message")
    return obj.get("role") in ("user", "assistant") and isinstance(msg, dict) and "content" in msg


def is_cursor_txt(path: Path) -> bool:
    if path.suffix != ".txt" or path.parent.name != "agent-transcripts":
        return False
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        return False
    return bool(re.match(r"\s*user:\s*\n", head))


def read_cursor(path: Path) -> Transcript:
    t = Transcript(format="cursor", session_id=path.stem, source="cursor")
    t.cwd = project_path(path)
    if path.suffix == ".txt":
        _read_txt(path, t)
        return t
    for n, obj, bad in _lines(path):
        if bad:
            t.bad_line(n, bad)
            continue
        if not looks_like_cursor(obj):
            continue
        text = _QUERY.sub("", content_text(obj["message"].get("content"))).strip()
        if text:
            t.messages.append(Message(obj["role"], text, None))
    return t


def _read_txt(path: Path, t: Transcript) -> None:
    role, skipping = None, False
    buf: list[str] = []

    def flush():
        text = _QUERY.sub("", "\n".join(buf)).strip()
        if role and text:
            t.messages.append(Message(role, text, None))

    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _ROLE.match(line)
        if m:
            flush()
            role, buf, skipping = ("user" if m.group(1) == "user" else "assistant"), [], False
            continue
        if _BLOCK.match(line):
            skipping = True  # thinking and tool traffic run until the next blank line
            continue
        if skipping:
            skipping = bool(line.strip())
            continue
        buf.append(line)
    flush()


def project_path(path: Path) -> str | None:
    """``~/.cursor/projects/home-me-code-shop/agent-transcripts/...`` → ``/home/me/code/shop``
    when that folder exists (walked on disk: ``-`` may be a ``/`` or part of a name), else
    the slug's last word."""
    for parent in path.parents:
        if parent.parent.name == "projects" and parent.parent.parent.name == ".cursor":
            from services.interop.importers.claude_memory import _decode

            real = _decode("-" + parent.name)
            return str(real) if real else "/" + parent.name.rsplit("-", 1)[-1]
    return None

"""Agent session transcripts → the conversation a person actually had.

Two shapes:
* generic JSONL, one ``{"role": ..., "content": ...}`` message per line (optional
  ``timestamp``/``session_id``);
* Claude Code session JSONL, 1.0 → 2.1 (see ../shared/formats/FORMAT-claude-code.md): lines
  form a tree via ``uuid``/``parentUuid`` where rewinds leave abandoned branches (only the
  chain that ends at the latest leaf is what happened), one assistant response spans several
  lines sharing ``message.id``, and ``progress``/``system``/``summary`` lines, ``isMeta``
  preambles, tool results and sub-agent (sidechain) copies are not conversation.

The file is read once, line by line, keeping only each line's tree links and its text, so a
200 MB transcript (70 % of it tool output and progress) costs memory in proportion to what
people typed and read, not to the file. Lines that are not valid UTF-8 or not JSON are
counted and skipped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from services.errors import InvalidInput

FORMATS = ("claude-code", "codex", "cursor", "jsonl")
MAX_LINE_BYTES = 32 << 20  # a longer line is skipped and counted, never parsed
_COMMAND = re.compile(r"<command-name>\s*(/?[\w:-]+)\s*</command-name>")
_TAGGED = re.compile(
    r"<(system-reminder|command-message|command-name|command-args|local-command-stdout|"
    r"local-command-stderr|user-prompt-submit-hook)>.*?</\1>",
    re.S,
)
_NOISE = ("[Request interrupted by user", "Caveat: The messages below were generated")


@dataclass
class Message:
    role: str  # "user" | "assistant"
    text: str
    timestamp: datetime | None = None  # naive UTC
    uuid: str | None = None  # the transcript line it came from (provenance)


@dataclass
class Compaction:
    """A summary the agent wrote of the conversation so far (Claude Code ``/compact``, Codex
    ``compacted``): where a long session's durable knowledge ends up."""

    text: str
    uuid: str | None = None
    timestamp: datetime | None = None


@dataclass
class Event:
    """Something that happened besides talk: a tool call and how it ended, a rejection, an
    interrupt. ``kind`` is "edit" | "command" | "tool" | "rejected" | "interrupted"."""

    kind: str
    detail: str = ""
    ok: bool = True
    timestamp: datetime | None = None
    uuid: str | None = None
    call_id: str | None = None  # pairs a tool call with its result


@dataclass
class Exchange:
    """One turn: what the user said and what the assistant answered."""

    user: str
    assistant: str
    started_at: datetime | None
    ended_at: datetime | None


@dataclass
class Transcript:
    format: str
    session_id: str | None
    messages: list[Message] = field(default_factory=list)
    skipped_lines: int = 0
    problems: list[str] = field(default_factory=list)
    cwd: str | None = None
    branch: str | None = None  # the git branch the session ran on (Claude Code, Codex say so)
    title: str | None = None  # Claude Code ``summary`` line, kept as the session's title
    compactions: list[Compaction] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    warmup: bool = False  # an automatic probe session: nothing in it is the user's
    # instructions the harness put into the session (CLAUDE.md contents, hook context): the
    # user's rules even when no file Engram imports holds them
    injected: list[Message] = field(default_factory=list)
    source: str = ""  # "claude-code" | "codex" | "jsonl"

    @property
    def project(self) -> str | None:
        from services.capture.project import project_name

        return project_name(self.cwd, self.branch)

    @property
    def files_touched(self) -> list[str]:
        out: list[str] = []
        for e in self.events:
            if e.kind == "edit" and e.ok and e.detail not in out:
                out.append(e.detail)
        return out

    def bad_line(self, n: int, reason: str) -> None:
        self.skipped_lines += 1
        if len(self.problems) < 50:  # a broken file must not grow a list as long as itself
            self.problems.append(f"line {n}: {reason}")

    @property
    def started_at(self) -> datetime | None:
        return next((m.timestamp for m in self.messages if m.timestamp), None)

    @property
    def ended_at(self) -> datetime | None:
        return next((m.timestamp for m in reversed(self.messages) if m.timestamp), None)

    def exchanges(self) -> list[Exchange]:
        out: list[Exchange] = []
        for m in self.messages:
            if m.role == "user" or not out:
                out.append(
                    Exchange(
                        m.text if m.role == "user" else "",
                        m.text if m.role == "assistant" else "",
                        m.timestamp,
                        m.timestamp,
                    )
                )
                continue
            cur = out[-1]
            cur.assistant = f"{cur.assistant}\n\n{m.text}" if cur.assistant else m.text
            cur.ended_at = m.timestamp or cur.ended_at
        return out


def parse_timestamp(value) -> datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        secs = value / 1000 if value > 1e11 else value  # epoch ms or s
        try:
            return datetime.fromtimestamp(secs, tz=UTC).replace(tzinfo=None)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC).replace(tzinfo=None)
    return dt


def clean_text(text: str) -> str:
    text = _COMMAND.sub(r"\1", text or "")  # keep "/init", drop the markup around it
    text = _TAGGED.sub("", text).strip()
    if any(text.startswith(n) for n in _NOISE):
        return ""
    return text


def content_text(content) -> str:
    """Text the person typed or read: strings and ``text`` blocks; never tool input/output
    or hidden reasoning."""
    if isinstance(content, str):
        return clean_text(content)
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in (
                "text",
                "input_text",
                "output_text",
            ):
                t = block.get("text")
                if isinstance(t, str):
                    parts.append(t)
        return clean_text("\n".join(parts))
    return ""


def _raw_lines(fh, limit: int):
    """Lines of a binary file; a line longer than ``limit`` comes back as ``None`` (skipped
    chunk by chunk, never held whole in memory)."""
    n = 0
    while True:
        raw = fh.readline(limit + 1)
        if not raw:
            return
        n += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while True:  # drain the rest of the oversized line
                more = fh.readline(1 << 20)
                if not more or more.endswith(b"\n"):
                    break
            yield n, None
            continue
        yield n, raw


def _decode(raw: bytes):
    """(object, None) or (None, reason)."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not valid UTF-8"
    except RecursionError:
        return None, "nested too deeply"
    except ValueError:
        return None, "not valid JSON"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    return obj, None


def _lines(path: Path):
    """(line number, parsed object, None) for good lines; a bad line yields (n, None, reason)."""
    with open(path, "rb") as fh:
        for n, raw in _raw_lines(fh, MAX_LINE_BYTES):
            if raw is None:
                yield n, None, f"longer than {MAX_LINE_BYTES:,} bytes"
                continue
            raw = raw.strip()
            if not raw:
                continue
            obj, bad = _decode(raw)
            yield n, obj, bad


def detect_format(path: Path) -> str:
    """Peek at the first lines: Claude Code lines carry ``uuid``/``sessionId``/``type``."""
    from services.capture.codex import looks_like_codex
    from services.capture.cursor import is_cursor_txt, looks_like_cursor

    if is_cursor_txt(path):
        return "cursor"
    seen = 0
    for _, obj, bad in _lines(path):
        if bad:
            continue
        if looks_like_codex(obj):
            return "codex"
        if looks_like_cursor(obj):
            return "cursor"
        if (
            "sessionId" in obj
            or "parentUuid" in obj
            or obj.get("type")
            in ("summary", "file-history-snapshot", "queue-operation", "progress")
        ):
            return "claude-code"
        if "role" in obj and "content" in obj:
            return "jsonl"
        seen += 1
        if seen >= 50:
            break
    raise InvalidInput(
        f"{path}: not a transcript Engram can read (a JSONL of "
        "{role, content} messages, a Claude Code session .jsonl or a Codex rollout)"
    )


def peek_session_id(path: Path, lines: int = 50) -> str | None:
    """The session id the parse would find, from the first lines only (so a hook firing a
    second time can stop before reading a large file again)."""
    try:
        for n, obj, bad in _lines(path):
            if n > lines:
                break
            if bad or obj.get("isSidechain") or obj.get("agentId"):
                continue
            sid = obj.get("sessionId") or obj.get("session_id")
            if isinstance(sid, str) and sid:
                return sid
    except OSError:
        return None
    return None


def parse_transcript(path: str | Path, fmt: str | None = None) -> Transcript:
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(
            f"{path}: no such transcript file"
            if not path.exists()
            else f"{path}: not a transcript file"
        )
    fmt = fmt or detect_format(path)
    if fmt == "claude-code":
        return _parse_claude_code(path)
    if fmt == "codex":
        from services.capture.codex import CodexReader

        return CodexReader(path).read()
    if fmt == "cursor":
        from services.capture.cursor import read_cursor

        return read_cursor(path)
    if fmt in ("jsonl", "generic"):
        return _parse_generic(path)
    raise InvalidInput(f"unknown transcript format {fmt!r}; known: {', '.join(FORMATS)}")


def _parse_generic(path: Path) -> Transcript:
    t = Transcript(format="jsonl", session_id=None)
    for n, obj, bad in _lines(path):
        if bad:
            t.bad_line(n, bad)
            continue
        role = obj.get("role")
        if t.session_id is None:
            sid = obj.get("session_id") or obj.get("sessionId")
            t.session_id = str(sid) if sid else None
        if role not in ("user", "assistant", "human", "ai"):
            continue  # system prompts, tool messages
        role = "user" if role in ("user", "human") else "assistant"
        text = content_text(obj.get("content"))
        if not text:
            continue
        ts = parse_timestamp(obj.get("timestamp") or obj.get("time") or obj.get("created_at"))
        t.messages.append(Message(role, text, ts))
    return t


def _parse_claude_code(path: Path) -> Transcript:
    from services.capture.claude_code import ClaudeCodeReader

    return ClaudeCodeReader(path).read()

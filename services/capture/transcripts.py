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

FORMATS = ("claude-code", "jsonl")
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


def _lines(path: Path):
    """(line number, parsed object) for good lines; a bad line yields (n, None, reason)."""
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            raw = raw.strip()
            if not raw:
                continue
            try:
                obj = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError:
                yield n, None, "not valid UTF-8"
                continue
            except ValueError:
                yield n, None, "not valid JSON"
                continue
            if not isinstance(obj, dict):
                yield n, None, "not a JSON object"
                continue
            yield n, obj, None


def detect_format(path: Path) -> str:
    """Peek at the first lines: Claude Code lines carry ``uuid``/``sessionId``/``type``."""
    seen = 0
    for _, obj, bad in _lines(path):
        if bad:
            continue
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
        "{role, content} messages or a Claude Code session .jsonl)"
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
    if fmt in ("jsonl", "generic"):
        return _parse_generic(path)
    raise InvalidInput(f"unknown transcript format {fmt!r}; known: {', '.join(FORMATS)}")


def _parse_generic(path: Path) -> Transcript:
    t = Transcript(format="jsonl", session_id=None)
    for n, obj, bad in _lines(path):
        if bad:
            t.skipped_lines += 1
            t.problems.append(f"line {n}: {bad}")
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


@dataclass
class _Rec:
    uuid: str | None
    role: str
    text: str
    ts: datetime | None
    msg_id: str | None


def _parse_claude_code(path: Path) -> Transcript:
    t = Transcript(format="claude-code", session_id=None)
    parent: dict[str, str | None] = {}
    logical: dict[str, str] = {}
    last_leaf_candidate: str | None = None
    recs: list[_Rec] = []
    for n, obj, bad in _lines(path):
        if bad:
            t.skipped_lines += 1
            t.problems.append(f"line {n}: {bad}")
            continue
        kind = obj.get("type")
        if obj.get("isSidechain") or obj.get("agentId"):
            continue  # a sub-agent's conversation (or its copy), not the user's
        uid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        if t.session_id is None and isinstance(obj.get("sessionId"), str):
            t.session_id = obj["sessionId"]
        if t.cwd is None and isinstance(obj.get("cwd"), str):
            t.cwd = obj["cwd"]
        if uid and kind in ("user", "assistant", "system", "progress", "attachment"):
            p = obj.get("parentUuid")
            parent[uid] = p if isinstance(p, str) else None
            lp = obj.get("logicalParentUuid")
            if isinstance(lp, str):
                logical[uid] = lp  # a compaction restarts the chain; follow it back
            if kind in ("user", "assistant"):
                last_leaf_candidate = uid  # lines are appended: the newest branch ends last
        if kind not in ("user", "assistant"):
            continue
        if obj.get("isMeta") or obj.get("isCompactSummary") or obj.get("isVisibleInTranscriptOnly"):
            continue
        msg = obj.get("message")
        if not isinstance(msg, dict):
            continue
        text = content_text(msg.get("content"))
        msg_id = msg.get("id") if kind == "assistant" and isinstance(msg.get("id"), str) else None
        if not text and msg_id is None:
            continue
        recs.append(_Rec(uid, kind, text, parse_timestamp(obj.get("timestamp")), msg_id))

    chain = _chain(last_leaf_candidate, parent, logical) if parent else None
    on_chain_msgs = {r.msg_id for r in recs if r.msg_id and (chain is None or r.uuid in chain)}
    merged: dict[str, Message] = {}
    for r in recs:
        if r.msg_id:
            if r.msg_id not in on_chain_msgs:
                continue
            m = merged.get(r.msg_id)
            if m is None:
                m = merged[r.msg_id] = Message("assistant", "", r.ts)
                t.messages.append(m)
            if r.text:
                m.text = f"{m.text}\n\n{r.text}" if m.text else r.text
            continue
        if chain is not None and r.uuid is not None and r.uuid not in chain:
            continue  # an abandoned (rewound) branch
        if r.text:
            t.messages.append(Message(r.role, r.text, r.ts))
    t.messages = [m for m in t.messages if m.text]
    return t


def _chain(leaf: str | None, parent: dict, logical: dict) -> set[str]:
    out: set[str] = set()
    node = leaf
    while node is not None and node not in out:
        out.add(node)
        nxt = parent.get(node)
        if nxt is None:
            nxt = logical.get(node)
        node = nxt
    return out

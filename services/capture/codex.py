"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``) → a
``Transcript``.

Each line is ``{"timestamp", "type", "payload"}``: ``session_meta`` (id, cwd, git),
``response_item`` (``message`` with ``input_text``/``output_text`` blocks, ``function_call`` /
``function_call_output``, ``custom_tool_call`` such as ``apply_patch``, ``local_shell_call``,
``reasoning``), ``event_msg`` (``user_message``, ``agent_message``, ``turn_aborted``,
``token_count`` …), ``turn_context`` and ``compacted`` (``payload.message`` = the summary that
replaced the history). Older rollouts have no envelope: a first ``{"id", "timestamp",
"instructions"}`` line, then bare items. The reader is tolerant: unknown types are ignored,
a malformed line is counted and skipped.

The user's words come from ``response_item`` user messages, except the injected context
(``<user_instructions>``, ``<environment_context>``); when a rollout has none (some versions
only log ``event_msg``), the ``user_message`` events are used instead — never both, so nothing
is read twice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from services.capture.transcripts import (
    Compaction,
    Event,
    Message,
    Transcript,
    _lines,
    content_text,
    parse_timestamp,
)

_INJECTED = re.compile(r"^\s*<(user_instructions|environment_context|permissions|INSTRUCTIONS)\b")
_USER_INSTRUCTIONS = re.compile(r"<user_instructions>(.*?)</user_instructions>", re.S)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add) File: (.+)$", re.M)
_SHELL = ("shell", "exec_command", "local_shell", "container.exec")


def looks_like_codex(obj: dict) -> bool:
    kind = obj.get("type")
    if kind in ("session_meta", "response_item", "event_msg", "turn_context", "compacted"):
        return isinstance(obj.get("payload"), dict)
    return "instructions" in obj and "id" in obj and "timestamp" in obj  # pre-envelope header


class CodexReader:
    def __init__(self, path: Path):
        self.path = path
        self.t = Transcript(format="codex", session_id=None, source="codex")
        # (arrival order, message): lines are appended as things happen
        self.items: list[tuple[int, Message]] = []
        self.events_user: list[tuple[int, Message]] = []
        self.seq = 0
        self.calls: dict[str, Event] = {}

    def read(self) -> Transcript:
        for n, obj, bad in _lines(self.path):
            if bad:
                self.t.bad_line(n, bad)
                continue
            try:
                self._feed(obj)
            except (TypeError, AttributeError, ValueError, KeyError, RecursionError):
                self.t.bad_line(n, "unexpected shape")
        if any(m.role == "user" for _, m in self.items):
            talk = self.items
        else:  # this version logged what the user typed only as events
            talk = sorted(self.items + self.events_user, key=lambda sm: sm[0])
        self.t.messages = [m for _, m in talk if m.text]
        if self.t.session_id is None:
            m = re.search(
                r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", self.path.stem
            )
            self.t.session_id = m.group(1) if m else None
        return self.t

    def _feed(self, obj: dict) -> None:
        kind, payload = obj.get("type"), obj.get("payload")
        ts = parse_timestamp(obj.get("timestamp"))
        if not isinstance(payload, dict):  # pre-envelope rollouts: the line is the item
            if "instructions" in obj and "id" in obj:
                self._meta(obj)
                return
            payload, kind = obj, "response_item"
        if kind == "session_meta":
            meta = payload.get("meta")
            self._meta(meta if isinstance(meta, dict) else payload)
        elif kind == "turn_context" and self.t.cwd is None and isinstance(payload.get("cwd"), str):
            self.t.cwd = payload["cwd"]
        elif kind == "response_item":
            self._item(payload, ts)
        elif kind == "event_msg":
            self._event(payload, ts)
        elif kind == "compacted":
            text = payload.get("message")
            if isinstance(text, str) and text.strip():
                self.t.compactions.append(Compaction(text, None, ts))

    def _meta(self, meta: dict) -> None:
        if self.t.session_id is None and isinstance(meta.get("id"), str):
            self.t.session_id = meta["id"]
        if self.t.cwd is None and isinstance(meta.get("cwd"), str):
            self.t.cwd = meta["cwd"]
        git = meta.get("git")
        if self.t.branch is None and isinstance(git, dict) and isinstance(git.get("branch"), str):
            self.t.branch = git["branch"] or None

    def _item(self, item: dict, ts) -> None:
        kind = item.get("type")
        if kind == "message":
            role = item.get("role")
            if role not in ("user", "assistant"):
                return  # developer/system prompts
            raw = item.get("content")
            first = (
                raw[0].get("text", "")
                if isinstance(raw, list) and raw and isinstance(raw[0], dict)
                else raw
            )
            if role == "user" and isinstance(first, str) and _INJECTED.match(first):
                m = _USER_INSTRUCTIONS.search(first)
                if m and m.group(1).strip():  # the AGENTS.md files Codex loaded
                    self.t.injected.append(Message("injected", m.group(1).strip(), ts))
                return
            self.seq += 1
            self.items.append((self.seq, Message(role, content_text(raw), ts)))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self._call(item, ts)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._output(item)

    def _call(self, item: dict, ts) -> None:
        name = str(item.get("name") or item.get("type") or "tool")
        call_id = item.get("call_id") or item.get("id")
        args = item.get("arguments") if isinstance(item.get("arguments"), str) else None
        action = item.get("action")
        parsed: dict = _json(args) if args else (action if isinstance(action, dict) else {})
        if name == "apply_patch" or "*** Begin Patch" in str(item.get("input") or ""):
            for f in _PATCH_FILE.findall(str(item.get("input") or parsed.get("input") or "")):
                self.t.events.append(Event("edit", f.strip(), True, ts, call_id=call_id))
            return
        if name in _SHELL or item.get("type") == "local_shell_call":
            cmd = parsed.get("command") or parsed.get("cmd") or ""
            cmd = _shell_text(cmd)
            ev = Event("command", cmd, True, ts, call_id=call_id)
        else:
            ev = Event("tool", name, True, ts, call_id=call_id)
        self.t.events.append(ev)
        if isinstance(call_id, str):
            self.calls[call_id] = ev

    def _output(self, item: dict) -> None:
        ev = self.calls.get(str(item.get("call_id")))
        if ev is None:
            return
        out = item.get("output")
        data = _json(out) if isinstance(out, str) else out
        meta = data.get("metadata") if isinstance(data, dict) else None
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        text = out if isinstance(out, str) else ""
        if isinstance(code, int):
            ev.ok = code == 0
        elif re.search(r"(?:Exit code|exit_code)\D{0,3}([1-9]\d*)", text):
            ev.ok = False
        if "rejected by user" in text[:200].lower() or "user denied" in text[:200].lower():
            ev.ok = False
            self.t.events.append(Event("rejected", text[:200], False, ev.timestamp))

    def _event(self, payload: dict, ts) -> None:
        kind = payload.get("type")
        if kind == "user_message" and isinstance(payload.get("message"), str):
            text = payload["message"]
            if not _INJECTED.match(text):
                self.seq += 1
                self.events_user.append((self.seq, Message("user", content_text(text), ts)))
        elif kind == "turn_aborted":
            self.t.events.append(Event("interrupted", str(payload.get("reason") or ""), False, ts))
        # agent_message repeats the response_item message; token counts and the rest are
        # bookkeeping


def _json(text) -> dict:
    try:
        data = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _shell_text(cmd) -> str:
    if isinstance(cmd, list):
        parts = [str(c) for c in cmd]
        if len(parts) >= 3 and parts[0] in ("bash", "sh", "zsh") and parts[1] in ("-lc", "-c"):
            return parts[2]
        return " ".join(parts)
    return str(cmd)

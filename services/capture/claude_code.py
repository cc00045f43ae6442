"""Claude Code session JSONL (1.0 → 2.1) → a ``Transcript``.

Lines form a tree via ``uuid``/``parentUuid``: rewinds leave abandoned branches and only the
chain that ends at the latest leaf is what happened (a compaction restarts the chain; its
``logicalParentUuid`` links back). One assistant response spans several lines sharing
``message.id``. Besides the talk, the reader keeps what teaches: compaction summaries
(``isCompactSummary`` lines, or the ``agent-acompact-*`` worker's answer), the ``summary``
title line, rejected tool uses and interrupts, and the tool calls (files edited, commands run
and whether they worked). Sub-agent copies, progress and hook lines are not conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
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

REJECTED = "doesn't want to proceed with this tool use"
INTERRUPTED = "[Request interrupted by user"
EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
MAX_DETAIL = 500  # a heredoc command is not kept whole: only its runner matters
_CHAIN_KINDS = ("user", "assistant", "system", "progress", "attachment")


@dataclass
class _Rec:
    uuid: str | None
    kind: str  # "user" | "assistant" | "compact" | "event"
    text: str = ""
    ts: datetime | None = None
    msg_id: str | None = None
    event: Event | None = None
    tool_id: str | None = None


@dataclass
class _Tree:
    parent: dict[str, str | None] = field(default_factory=dict)
    logical: dict[str, str] = field(default_factory=dict)
    leaf: str | None = None

    def add(self, obj: dict, uid: str) -> None:
        p = obj.get("parentUuid")
        self.parent[uid] = p if isinstance(p, str) else None
        lp = obj.get("logicalParentUuid")
        if isinstance(lp, str):
            self.logical[uid] = lp  # a compaction restarts the chain; follow it back
        if obj.get("type") in ("user", "assistant"):
            self.leaf = uid  # lines are appended: the newest branch ends last

    def chain(self) -> set[str] | None:
        if not self.parent:
            return None
        out: set[str] = set()
        node = self.leaf
        while node is not None and node not in out:
            out.add(node)
            nxt = self.parent.get(node)
            node = nxt if nxt is not None else self.logical.get(node)
        return out


def _is_compaction_worker(path: Path) -> bool:
    return path.name.startswith("agent-acompact")


class ClaudeCodeReader:
    def __init__(self, path: Path):
        self.path = path
        self.t = Transcript(format="claude-code", session_id=None, source="claude-code")
        self.tree = _Tree()
        self.recs: list[_Rec] = []
        self.titles: list[tuple[str, str | None]] = []
        self.worker = _is_compaction_worker(path)
        self.worker_answer: _Rec | None = None
        self.first_user: str | None = None

    def read(self) -> Transcript:
        for n, obj, bad in _lines(self.path):
            if bad:
                self.t.bad_line(n, bad)
                continue
            try:
                self._feed(obj)
            except (TypeError, AttributeError, ValueError, RecursionError):
                self.t.bad_line(n, "unexpected shape")
        return self._finish()

    # -- per line ------------------------------------------------------------------------
    def _feed(self, obj: dict) -> None:
        kind = obj.get("type")
        if kind == "summary":
            text = obj.get("summary")
            if isinstance(text, str) and text.strip():
                leaf = obj.get("leafUuid")
                self.titles.append(
                    (" ".join(text.split()), leaf if isinstance(leaf, str) else None)
                )
            return
        if obj.get("isSidechain") or obj.get("agentId"):
            if self.worker:
                self._worker_line(obj)
            return  # a sub-agent's conversation (or its copy), not the user's
        self._envelope(obj)
        uid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        if uid and kind in _CHAIN_KINDS:
            self.tree.add(obj, uid)
        if kind == "attachment":
            self._attachment(obj)
        if kind == "user":
            self._user(obj, uid)
        elif kind == "assistant":
            self._assistant(obj, uid)

    def _envelope(self, obj: dict) -> None:
        if self.t.session_id is None and isinstance(obj.get("sessionId"), str):
            self.t.session_id = obj["sessionId"]
        if self.t.cwd is None and isinstance(obj.get("cwd"), str):
            self.t.cwd = obj["cwd"]
        if self.t.branch is None and isinstance(obj.get("gitBranch"), str) and obj["gitBranch"]:
            self.t.branch = obj["gitBranch"]

    def _worker_line(self, obj: dict) -> None:
        """The compaction worker's transcript: its last assistant text is the summary."""
        self._envelope(obj)
        msg = obj.get("message")
        if obj.get("type") != "assistant" or not isinstance(msg, dict):
            return
        text = content_text(msg.get("content"))
        if text:
            uid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
            ts = parse_timestamp(obj.get("timestamp"))
            self.worker_answer = _Rec(uid, "compact", text, ts)

    def _user(self, obj: dict, uid: str | None) -> None:
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return
        ts = parse_timestamp(obj.get("timestamp"))
        content = msg.get("content")
        if obj.get("isCompactSummary"):
            text = content_text(content)
            if text:
                self.recs.append(_Rec(uid, "compact", text, ts))
            return
        self._injected(content, uid, ts)
        if obj.get("isMeta") or obj.get("isVisibleInTranscriptOnly"):
            return
        if isinstance(content, list):
            self._tool_results(content, obj, uid, ts)
        raw = content if isinstance(content, str) else _texts(content)
        if raw.lstrip().startswith(INTERRUPTED):
            self.recs.append(
                _Rec(uid, "event", ts=ts, event=Event("interrupted", "", False, ts, uid))
            )
            return
        text = content_text(content)
        if text:
            if self.first_user is None:
                self.first_user = text
            self.recs.append(_Rec(uid, "user", text, ts))

    def _injected(self, content, uid: str | None, ts) -> None:
        raw = content if isinstance(content, str) else _texts(content)
        for text in injected_blocks(raw):
            self.t.injected.append(Message("injected", text, ts, uid))

    def _attachment(self, obj: dict) -> None:
        """Hook output Claude Code records as an attachment (``hook_additional_context``)."""
        att = obj.get("attachment")
        if not isinstance(att, dict) or "hook" not in str(att.get("type", "")):
            return
        body = att.get("content")
        text = body if isinstance(body, str) else _texts(body) if isinstance(body, list) else ""
        if text.strip():
            uid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
            ts = parse_timestamp(obj.get("timestamp"))
            self.t.injected.append(Message("injected", text.strip(), ts, uid))

    def _tool_results(self, content: list, obj: dict, uid: str | None, ts) -> None:
        rejected_all = obj.get("toolUseResult") == "User rejected tool use"
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            body = block.get("content")
            body_text = body if isinstance(body, str) else _texts(body)
            rejected = rejected_all or REJECTED in body_text[:300]
            ok = not block.get("is_error") and not rejected
            ev = Event("rejected" if rejected else "result", body_text[:200], ok, ts, uid)
            tid = block.get("tool_use_id")
            self.recs.append(
                _Rec(uid, "event", ts=ts, event=ev, tool_id=tid if isinstance(tid, str) else None)
            )

    def _assistant(self, obj: dict, uid: str | None) -> None:
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return
        ts = parse_timestamp(obj.get("timestamp"))
        content = msg.get("content")
        msg_id = msg.get("id") if isinstance(msg.get("id"), str) else None
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    self._tool_use(block, uid, ts)
        text = content_text(content)
        if text or msg_id is not None:
            self.recs.append(_Rec(uid, "assistant", text, ts, msg_id))

    def _tool_use(self, block: dict, uid: str | None, ts) -> None:
        name: str = block["name"] if isinstance(block.get("name"), str) else "tool"
        inp: dict = block["input"] if isinstance(block.get("input"), dict) else {}
        if name in EDIT_TOOLS:
            path = inp.get("file_path") or inp.get("notebook_path") or ""
            ev = Event("edit", str(path), True, ts, uid)
        elif name == "Bash":
            ev = Event("command", str(inp.get("command") or "")[:MAX_DETAIL], True, ts, uid)
        elif name == "Read" and inp.get("file_path"):
            ev = Event("read", str(inp.get("file_path")), True, ts, uid)
        else:
            ev = Event("tool", name, True, ts, uid)
        tid = block.get("id")
        self.recs.append(
            _Rec(uid, "event", ts=ts, event=ev, tool_id=tid if isinstance(tid, str) else None)
        )

    # -- assembly ------------------------------------------------------------------------
    def _finish(self) -> Transcript:
        t = self.t
        t.title = self._title()
        t.warmup = (self.first_user or "").strip().lower() == "warmup"
        chain = self.tree.chain()
        on_chain = [r for r in self.recs if chain is None or r.uuid is None or r.uuid in chain]
        on_chain_msgs = {r.msg_id for r in on_chain if r.msg_id}
        merged: dict[str, Message] = {}
        for r in self.recs:
            if r.msg_id:
                if r.msg_id in on_chain_msgs:
                    self._merge(r, merged)
                continue
            if chain is not None and r.uuid is not None and r.uuid not in chain:
                continue  # an abandoned (rewound) branch
            self._place(r)
        if self.worker_answer is not None:
            a = self.worker_answer
            t.compactions.append(Compaction(a.text, a.uuid, a.ts))
            t.messages = []  # the worker's prompt and answer are not the user's conversation
            if t.session_id:  # its own id: the parent session is ingested on its own
                t.session_id = f"{t.session_id}/{self.path.stem}"
        _settle_tools(t)
        t.messages = [m for m in t.messages if m.text]
        return t

    def _merge(self, r: _Rec, merged: dict[str, Message]) -> None:
        assert r.msg_id is not None
        m = merged.get(r.msg_id)
        if m is None:
            m = merged[r.msg_id] = Message("assistant", "", r.ts, r.uuid)
            self.t.messages.append(m)
        if r.text:
            m.text = f"{m.text}\n\n{r.text}" if m.text else r.text

    def _place(self, r: _Rec) -> None:
        if r.kind == "compact":
            self.t.compactions.append(Compaction(r.text, r.uuid, r.ts))
        elif r.kind == "event" and r.event is not None:
            r.event.call_id = r.tool_id  # results find their call by tool id
            self.t.events.append(r.event)
        elif r.text:
            self.t.messages.append(Message(r.kind, r.text, r.ts, r.uuid))

    def _title(self) -> str | None:
        if not self.titles:
            return None
        # a summary whose leafUuid is not in this file titles another session (Claude Code
        # writes those into the next session's file): never borrow its topic
        own = [s for s, leaf in self.titles if leaf is None or leaf in self.tree.parent]
        return own[-1] if own else None


def _settle_tools(t: Transcript) -> None:
    """Pair tool calls with their results: a call whose result was an error or a rejection
    did not happen (a rejected edit wrote nothing); the results themselves are dropped."""
    results = {e.call_id: e for e in t.events if e.kind in ("result", "rejected") and e.call_id}
    kept: list[Event] = []
    for e in t.events:
        if e.kind == "result":
            continue
        if e.kind in ("edit", "command", "tool", "read"):
            res = results.get(e.call_id) if e.call_id else None
            e.ok = res is not None and res.ok
        kept.append(e)
    t.events = kept


def _texts(content) -> str:
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b.get("text", "")
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


_CLAUDE_MD = re.compile(
    r"Contents of (\S+?) \((?:project|user|local|enterprise)[^)]*\):\s*\n(.*?)"
    r"(?=\n\s*Contents of \S+ \(|\n\s*IMPORTANT: this context may|\Z)",
    re.S,
)
_HOOK = re.compile(r"<user-prompt-submit-hook>(.*?)</user-prompt-submit-hook>", re.S)
_REMINDER = re.compile(r"<system-reminder>(.*?)</system-reminder>", re.S)


def injected_blocks(raw: str) -> list[str]:
    """Instruction text the harness injected into a user line: each CLAUDE.md it loaded
    (``Contents of PATH (project instructions…):``) and prompt-submit hook output. Claude
    Code's own reminders (todo nudges, malware notes) are not the user's and are left out."""
    if not raw or ("Contents of " not in raw and "<user-prompt-submit-hook>" not in raw):
        return []
    out = []
    for rem in _REMINDER.findall(raw):
        for m in _CLAUDE_MD.finditer(rem):
            body = m.group(2).strip()
            if body:
                out.append(f"<!-- {m.group(1)} -->\n{body}")
    out += [h.strip() for h in _HOOK.findall(raw) if h.strip()]
    return out

"""What a session (or a stretch of it) did, for its episode: title, what was asked, what was
done (files edited, commands that ran), and how it ended — done, rejected by the user,
interrupted, failed or still open. Deterministic and extractive: the words are the user's and
the agent's own, cut short."""

from __future__ import annotations

import re
from pathlib import PurePath

from services.capture.extract import sentences

# Commands that change the tool, not the work: a session of only these did nothing.
_SLASH_ONLY = re.compile(
    r"^/(?:clear|exit|quit|model|compact|help|status|cost|config|login|logout|resume|mcp|"
    r"doctor|memory|permissions|vim|theme|context|usage|hooks|agents|ide|bug|release-notes)"
    r"(?:\s+\S+)?$",
    re.I,
)
_DONE = re.compile(
    r"\b(?:done|completed?|fixed|all tests pass|tests pass|created|updated|implemented|"
    r"works now|finished|resolved|added|removed|renamed)\b",
    re.I,
)
_FAILED = re.compile(
    r"\b(?:fail(?:ed|s|ing)?|error|couldn'?t|could not|unable to|still broken)\b", re.I
)
_PLAN = re.compile(r"^(?:let me|i'?ll|i will|now let me|first,? let me)\b", re.I)


def real_asks(exchanges) -> list[str]:
    """What the user asked, without bare slash commands (/clear, /exit, /model …)."""
    out = []
    for x in exchanges:
        text = " ".join((x.user or "").split())
        if text and not _SLASH_ONLY.match(text):
            out.append(text)
    return out


def short(text: str, limit: int) -> str:
    for s in sentences(text):
        s = " ".join(s.split())
        if len(s) >= 3:
            return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"
    return ""


def outcome(transcript) -> str:
    """How the session ended, from the last things that happened in it."""
    last_msg = transcript.messages[-1] if transcript.messages else None
    stops = [e for e in transcript.events if e.kind in ("rejected", "interrupted")]
    last_stop = stops[-1] if stops else None
    if last_stop and (
        last_msg is None
        or (
            last_stop.timestamp and last_msg.timestamp and last_stop.timestamp >= last_msg.timestamp
        )
    ):
        return "rejected" if last_stop.kind == "rejected" else "interrupted"
    if last_msg is None or last_msg.role == "user":
        return "open"
    calls = [e for e in transcript.events if e.kind in ("command", "edit", "tool")]
    edits = [e for e in calls if e.kind == "edit"]
    if edits and not any(e.ok for e in edits):
        return "failed"  # whatever the last words claim, no write landed
    final = final_words(last_msg.text)
    if calls and not calls[-1].ok and _FAILED.search(final):
        return "failed"
    if final.rstrip().endswith("?"):
        return "open"
    if _DONE.search(final):
        return "done"
    return "failed" if _FAILED.search(final) else "open"


def unwritten(transcript) -> str:
    """For a session whose every write failed: which files were not written."""
    edits = [e for e in transcript.events if e.kind == "edit"]
    if not edits or any(e.ok for e in edits):
        return ""
    names = []
    for e in edits:
        name = PurePath(e.detail).name or e.detail
        if name not in names:
            names.append(name)
    return ", ".join(names[:3]) + " not written (the change was refused or failed)"


def final_words(text: str) -> str:
    """The assistant's closing statement, not its plans ("Let me …")."""
    said = [s for s in sentences(text) if not _PLAN.match(s)]
    return " ".join(said[:3]) if said else ""


def did(transcript, chunk_events=None) -> str:
    events = transcript.events if chunk_events is None else chunk_events
    files: list[str] = []
    for e in events:
        if e.kind == "edit" and e.ok:
            name = PurePath(e.detail).name or e.detail
            if name and name not in files:
                files.append(name)
    ran = sum(1 for e in events if e.kind == "command" and e.ok)
    parts = []
    if files:
        parts.append("edited " + ", ".join(files[:5]) + (" …" if len(files) > 5 else ""))
    if ran:
        parts.append(f"ran {ran} command{'s' if ran != 1 else ''}")
    return "; ".join(parts)


def compose(title, asks, done, ending, closing="", decided=()) -> str:
    parts = []
    if title:
        parts.append(title.rstrip("."))
    if asks:
        parts.append(
            "Asked: "
            + "; ".join(a.rstrip(".!;: ") for a in asks[:3])
            + (" …" if len(asks) > 3 else "")
        )
    if decided:
        parts.append("Decided: " + "; ".join(short(d, 120).rstrip(".!;: ") for d in decided[:3]))
    if done:
        parts.append("Did: " + done)
    if ending:
        parts.append(f"Ended: {ending}" + (f" — {closing.rstrip('.')}" if closing else ""))
    return " ".join(p if p.endswith((".", "…", "!", "?")) else p + "." for p in parts)[:900]

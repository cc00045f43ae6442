"""Deterministic, offline fact extraction from what the USER said in a session.

Only the user's own messages are read: an assistant's claim ("you prefer tabs") is never
promoted to a fact about the user. Each sentence is matched against a few statement shapes
(preferences, decisions, environment, tasks, rules, personal facts) and kept verbatim, so the
subject keys in ``services.ingest.subjects`` still see "my editor is …" and a later restatement
supersedes it. The text is untrusted data: it is stored and shown, never run or obeyed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from services.store.text import normalize

MAX_LEN = 280
_FENCE = re.compile(r"```.*?(```|\Z)", re.S)
_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_HYPOTHETICAL = re.compile(
    r"^(?:if|what if|suppose|do you|does|did you|can you|could you|"
    r"would you|should i|when you|you)\b",
    re.I,
)

_OS = r"(?:macos|mac ?os x|mac|osx|linux|ubuntu|debian|fedora|arch(?: linux)?|windows(?: \d+)?|wsl2?|nixos|freebsd)"
_TOOLS = (
    r"(?:vim|neovim|nvim|emacs|vs ?code|visual studio code|cursor|zed|helix|sublime(?: text)?|"
    r"intellij|pycharm|webstorm|zsh|bash|fish|tmux|iterm2?|warp|kitty|alacritty|docker|podman)"
)

# (kind, category, importance, pattern). First match wins, so specific shapes come first.
RULES: list[tuple[str, str, float, re.Pattern]] = [
    (
        "rule",
        "rule",
        0.8,
        re.compile(
            r"^(?:please\s+|and\s+)?(?:always|never|don'?t ever|do not ever|from now on|"
            r"in (?:the )?future)\b",
            re.I,
        ),
    ),
    (
        "task",
        "task",
        0.5,
        re.compile(
            r"^(?:todo|to-do|to do)\b\s*[:\-]|\bremind me (?:to|about|that)\b|"
            r"\bdon'?t (?:let me )?forget (?:to|about)\b|\bI (?:still )?(?:need|have|must) to\b",
            re.I,
        ),
    ),
    (
        "decision",
        "decision",
        0.7,
        re.compile(
            r"\b(?:we|i)(?:'ve| have)? (?:decided|agreed|chose|settled on|picked|opted)\b|"
            r"\blet'?s (?:go with|use|stick with|switch to|keep)\b|"
            r"\bwe(?:'re| are|'ll| will) (?:go(?:ing)? with|using|switch(?:ing)? to|stick(?:ing)? with)\b",
            re.I,
        ),
    ),
    (
        "environment",
        "env",
        0.55,
        re.compile(
            rf"\bi(?:'m| am) (?:on|running|using) (?:an? )?{_OS}\b|"
            r"\bmy (?:editor|ide|shell|terminal|os|operating system|machine|laptop|computer|"
            r"setup|python version|node version|distro|keyboard layout) (?:is|runs|uses)\b|"
            rf"\bi (?:use|run|work in|code in) {_TOOLS}\b",
            re.I,
        ),
    ),
    (
        "personal",
        "fact",
        0.7,
        re.compile(
            r"\bmy name is\b|\bcall me\b|\bi live in\b|\bi(?:'m| am) based in\b|"
            r"\bi (?:work|am working) (?:at|for|as)\b|\bmy (?:time ?zone|pronouns|role|job) (?:is|are)\b|"
            r"\bi moved to\b",
            re.I,
        ),
    ),
    (
        "preference",
        "pref",
        0.6,
        re.compile(
            r"\bi (?:really |strongly |generally |usually )?(?:prefer|like|love|hate|dislike|"
            r"always|never|tend to|use)\b|\bi don'?t (?:like|want|use)\b|\bi(?:'d| would) rather\b|"
            r"\bmy (?:favou?rite|preferred) \w+",
            re.I,
        ),
    ),
]


# How often each shape is a durable statement in real sessions: "I use …"/"I like …" is as
# often a one-off ("I use this script to…") as a preference, so it goes to review.
CONFIDENCE = {
    "rule": 0.75,
    "decision": 0.7,
    "personal": 0.7,
    "environment": 0.65,
    "task": 0.65,
    "preference": 0.55,
}


_REMINDER = re.compile(r"^(?:todo|to-do|to do)\b|\bremind me\b|\bdon'?t (?:let me )?forget\b", re.I)
_VAGUE_DECISION = re.compile(
    r"\blet'?s (?:go with|use|stick with|switch to|keep)\s+(?:going|it|this|that|them|those|"
    r"the same|on|trying|at it)\b",
    re.I,
)
_FIRM = re.compile(r"\b(?:prefer|rather|favou?rite|always|never)\b", re.I)


@dataclass
class ExtractedFact:
    content: str
    category: str
    importance: float
    kind: str
    timestamp: datetime | None = None
    tags: list[str] = field(default_factory=list)
    confidence: float = 0.7  # how sure the heuristic is; below the review bar → the inbox
    provenance: dict = field(default_factory=dict)  # session, line uuid, section, …


def project_category(project: str | None) -> str:
    name = re.sub(r"[^\w.-]+", "-", (project or "").strip().lower()).strip("-")
    return f"proj:{name}" if name else "fact"


def sentences(text: str) -> list[str]:
    text = _FENCE.sub(" ", text or "")  # code is not a statement about the user
    out = []
    for s in _SPLIT.split(text):
        s = s.strip().lstrip("-*• ").strip()
        if s:
            out.append(s)
    return out


def classify(sentence: str, project: str | None = None) -> ExtractedFact | None:
    s = sentence.strip()
    if len(s) < 8 or len(s) > MAX_LEN or s.endswith("?") or _HYPOTHETICAL.match(s):
        return None
    if s.startswith((">", "$", "#", "|", "`")):
        return None  # quoted text, shell lines, headings, tables, code
    for kind, category, importance, pat in RULES:
        if pat.search(s):
            if kind == "decision" and _VAGUE_DECISION.search(s):
                return None  # "let's keep going", "let's use that": no decision named
            if category == "decision":
                category = project_category(project)
            text = s[0].upper() + s[1:]
            conf = CONFIDENCE.get(kind, 0.6)
            if kind == "preference" and _FIRM.search(s):
                conf = 0.7
            if kind == "task" and not _REMINDER.search(s):
                conf = 0.55  # "I need to …" is as often this minute's step as a task
            return ExtractedFact(
                text, category, importance, kind, tags=["session", kind], confidence=conf
            )
    return None


def extract_from_text(
    text: str, project: str | None = None, timestamp: datetime | None = None
) -> list[ExtractedFact]:
    out = []
    for s in sentences(text):
        f = classify(s, project)
        if f is not None:
            f.timestamp = timestamp
            out.append(f)
    return out


def extract_facts(messages: Iterable, project: str | None = None) -> list[ExtractedFact]:
    """Facts from the user's messages (``Message`` objects with role/text/timestamp)."""
    seen: set[str] = set()
    out: list[ExtractedFact] = []
    for m in messages:
        if getattr(m, "role", None) != "user":
            continue  # never promote the assistant's words to user facts
        for f in extract_from_text(m.text, project, getattr(m, "timestamp", None)):
            key = normalize(f.content)
            if key in seen:
                continue
            seen.add(key)
            f.provenance = {"line": getattr(m, "uuid", None), "section": "user"}
            out.append(f)
    return out

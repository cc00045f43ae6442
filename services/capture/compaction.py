"""Compaction summaries → durable facts, read by section.

When a Claude Code session runs out of context, the agent writes a structured summary
(``isCompactSummary`` line, or the ``agent-acompact-*`` worker's answer): "Primary Request and
Intent", "Key Technical Concepts", "Files and Code Sections", "Errors and fixes", "Problem
Solving", "All user messages", "Pending Tasks", "Current Work", "Optional Next Step". Codex
``compacted`` items hold a free-form handoff note of the same kind. Each section teaches
something different:

* key technical concepts → how the project works (project facts);
* errors and fixes → what broke and what fixed it (project facts); "user feedback" items there
  are the user's own rules;
* intent items that carry a constraint ("recover gracefully, not just fail") → preferences;
* the user's messages → the same statement shapes as typed text, plus corrections;
* pending tasks → open tasks (unless the session went on and finished);
* code, file listings, the analysis narrative, current work and next steps → never facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.capture.extract import ExtractedFact, classify, project_category

_SECTIONS = (
    ("intent", ("request", "intent")),
    ("concepts", ("technical concept", "key concept", "concepts", "tech stack", "stack")),
    ("files", ("files and code", "code sections", "files")),
    ("errors", ("error",)),
    ("problem", ("problem solving",)),
    ("user_messages", ("user message",)),
    ("pending", ("pending",)),
    ("current", ("current work",)),
    ("next", ("next step",)),
    ("decisions", ("decision", "convention", "constraint", "preference")),
)
_HEADING = re.compile(
    r"^\s*(?:#{1,4}\s*)?(?:\d+\.\s*)?\**\s*(?P<name>[A-Za-z][A-Za-z &/,()'-]{2,60}?)\s*\**\s*:?\s*\**\s*$"
)
_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*•]|\d+[.)])\s+(?P<text>.+)$")
_ANALYSIS = re.compile(r"<analysis>.*?</analysis>", re.S)
_SUMMARY_START = re.compile(r"^\s*(?:<summary>|Summary:)\s*$", re.M)
_CONSTRAINT = re.compile(
    r"\b(?:not just|instead of|rather than|without|don'?t|do not|never|always|must|only)\b", re.I
)
_USER_VOICE = re.compile(r"\buser (?:feedback|said|asked|wants|prefers|noted|insisted)\b", re.I)
_FILE_HEAD = re.compile(r"^\**\s*`?(?P<path>[\w./-]+\.\w{1,8})`?\s*\**$")
_NOTHING = re.compile(
    r"^\W*(?:none|n/?a|nothing|no (?:errors?|issues?|problems?|pending|open|remaining|"
    r"explicit|specific|other|further|outstanding)\b)",
    re.I,
)
MIN_LEN, MAX_LEN = 12, 400


@dataclass
class Item:
    text: str
    children: list[str] = field(default_factory=list)


@dataclass
class Digest:
    facts: list[ExtractedFact] = field(default_factory=list)
    asks: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)


def section_of(heading: str) -> str | None:
    name = heading.lower()
    for key, words in _SECTIONS:
        if any(w in name for w in words):
            return key
    return None


def _body(text: str) -> str:
    text = _ANALYSIS.sub("", text or "")
    m = _SUMMARY_START.search(text)
    return text[m.end() :] if m else text  # the "Analysis:" narrative comes before it


def split_sections(text: str) -> dict[str, list[str]]:
    """Canonical section → its raw lines (code fences removed)."""
    out: dict[str, list[str]] = {}
    current: str | None = None
    fenced = False
    for line in _body(text).splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        head = _HEADING.match(line)
        key = section_of(head.group("name")) if head and _top_level(line) else None
        if key is not None:
            current = key
            out.setdefault(key, [])
            continue
        if current is not None:
            out[current].append(line)
    return out


def _top_level(line: str) -> bool:
    """Headings sit at the left margin ("2. Key Technical Concepts:"); an indented bullet
    that happens to read like one ("- Errors:") is content."""
    return not line[:1].isspace() and not line.lstrip().startswith(("-", "*", "•"))


def items(lines: list[str]) -> list[Item]:
    """Top-level bullets with their sub-bullets (the shallowest indent is the top level)."""
    parsed = [
        (len(m.group("indent").expandtabs(4)), _clean(m.group("text")))
        for m in map(_BULLET.match, lines)
        if m
    ]
    if not parsed:
        return []
    top = min(i for i, _ in parsed)
    out: list[Item] = []
    for indent, text in parsed:
        if indent <= top or not out:
            out.append(Item(text))
        else:
            out[-1].children.append(text)
    return [i for i in out if i.text and not _NOTHING.match(i.text)]


def _clean(text: str) -> str:
    return " ".join(text.replace("**", "").split()).strip()


def _unquote(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] in "\"'“" and t[-1] in "\"'”":
        t = t[1:-1]
    return t.strip()


def _fact(
    text: str, category: str, kind: str, conf: float, importance: float
) -> ExtractedFact | None:
    text = _clean(text)
    if len(text) < MIN_LEN:
        return None
    if len(text) > MAX_LEN:
        text = text[: MAX_LEN - 1].rstrip() + "…"
    return ExtractedFact(
        text, category, importance, kind, tags=["session", "compaction", kind], confidence=conf
    )


def _joined(item: Item, limit: int = 3) -> str:
    head = item.text.rstrip(":")
    if not item.children:
        return head
    return f"{head}: " + "; ".join(c.rstrip(".") for c in item.children[:limit]) + "."


def _concepts(lines: list[str], proj: str, project: str | None) -> list[ExtractedFact]:
    """One fact per explained concept; bare names ("Phoenix LiveView", "Ecto") are grouped
    into one line about the project, not a fact each."""
    out, names = [], []
    for it in items(lines):
        text = _joined(it)
        if len(text.split()) < 4 and not re.search(r"[`:/=(]", text):
            names.append(text.rstrip("."))
            continue
        f = _fact(text, proj, "concept", 0.75, 0.6)
        if f:
            out.append(f)
    if names:
        f = _fact(
            f"Project {project or 'this project'} uses: " + ", ".join(names),
            proj,
            "concept",
            0.7,
            0.55,
        )
        if f:
            out.append(f)
    return out


def _errors(lines: list[str], proj: str) -> list[ExtractedFact]:
    out = []
    for it in items(lines):
        text = _joined(it)
        if _USER_VOICE.search(text):
            f = _fact(text, "rule", "rule", 0.7, 0.75)
        else:
            f = _fact(text, proj, "fix", 0.75, 0.6)
        if f:
            out.append(f)
    return out


def _intent(lines: list[str], digest: Digest) -> list[ExtractedFact]:
    out = []
    for it in items(lines):
        digest.asks.append(it.text)
        if _CONSTRAINT.search(it.text):  # often a one-off ask: the user decides
            f = _fact(it.text, "pref", "preference", 0.55, 0.6)
            if f:
                out.append(f)
    return out


def _user_messages(lines: list[str], project: str | None) -> list[ExtractedFact]:
    from services.capture.corrections import correction_rule

    out = []
    for it in items(lines):
        said = _unquote(it.text)
        f = classify(said, project) or correction_rule(said)
        if f is not None:
            f.confidence = min(f.confidence, 0.7)
            f.tags = [*f.tags, "compaction"]
            out.append(f)
    return out


def _files(lines: list[str]) -> list[str]:
    out = []
    for it in items(lines):
        m = _FILE_HEAD.match(it.text.replace("`", "").strip())
        if m and m.group("path") not in out:
            out.append(m.group("path"))
    return out


def digest(text: str, project: str | None, finished_after: bool = False) -> Digest:
    """What a compaction summary teaches. ``finished_after``: the session went on past this
    summary and ended done, so its pending tasks are not open any more."""
    sections = split_sections(text)
    proj = project_category(project)
    d = Digest()
    d.facts += _concepts(sections.get("concepts", []), proj, project)
    d.facts += _concepts(sections.get("decisions", []), proj, project)
    d.facts += _errors(sections.get("errors", []), proj)
    d.facts += _intent(sections.get("intent", []), d)
    d.facts += _user_messages(sections.get("user_messages", []), project)
    d.files = _files(sections.get("files", []))
    for it in items(sections.get("pending", [])):
        d.pending.append(it.text)
        f = None if finished_after else _fact(it.text, "task", "task", 0.6, 0.5)
        if f:
            d.facts.append(f)
    return d

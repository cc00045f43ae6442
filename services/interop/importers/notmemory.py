"""Files that look like memory but are not: a skill (``SKILL.md``), a slash command or subagent
definition, a README or a spec that *describes* a memory system. Their frontmatter
(``name`` + ``description``) makes them look like Claude Code topic files, and importing one
fills an agent with dozens of false "facts" (how a tool works, not what the agent learned).

They are recognised by their name, where they live, their frontmatter keys and the shape of
their content, and refused with a one-line reason; ``engram import --format NAME`` still
imports one on purpose.
"""

from __future__ import annotations

import re
from pathlib import Path

from services.interop.importers import frontmatter

_DOC_NAMES = re.compile(
    r"^(readme|changelog|contributing|license|licence|code_of_conduct|security|install|"
    r"skill)(\.[\w-]+)?\.mdx?$",
    re.I,
)
# Folders whose Markdown files define tools for an agent rather than remember anything.
_TOOL_DIRS = {"skills", "skill", "commands", "agents", "prompts", "templates", "docs"}
# Frontmatter keys of skills, commands and subagents, never of a memory.
_TOOL_KEYS = set(
    (
        "allowed-tools allowed_tools tools model argument-hint disable-model-invocation "
        "user-invocable license version author color when_to_use"
    ).split()
)
# Sections a manual has and a memory does not.
_MANUAL_HEADINGS = re.compile(
    r"^#{1,3}\s*(when to use|usage|how to use|installation|install|quick ?start|examples?|"
    r"instructions|workflow|overview|api|parameters|arguments|options|commands|"
    r"output format|troubleshooting|getting started|configuration|features)\b",
    re.I | re.M,
)
_MEMORY_HEADINGS = re.compile(r"^#{1,3}\s*(gemini added memories|memory index)\b", re.I | re.M)


def _head(path: Path, limit: int = 65536) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def refusal(path: Path) -> str | None:
    """Why ``path`` (a Markdown file) is not memory, or None when it may be."""
    if not path.is_file() or path.suffix.lower() not in (".md", ".mdx", ".markdown"):
        return None
    text = _head(path)
    fm, body, _ = frontmatter.split(text)
    if _MEMORY_HEADINGS.search(body):
        return None
    name = path.name
    if _memory_type(fm) and name.lower() != "skill.md":
        return None  # says it is a memory (type: user|feedback|project|reference)
    if name.lower() == "skill.md" or (fm.get("name") and _in_tool_dir(path, "skills")):
        return f"{name} is an agent skill (instructions for a tool), not memory"
    keys = {str(k).lower() for k in fm}
    tool_keys = sorted(keys & _TOOL_KEYS)
    if fm.get("name") and fm.get("description") and tool_keys:
        return (
            f"{name} defines a skill, command or subagent (frontmatter {', '.join(tool_keys)}), "
            "not memory"
        )
    if _DOC_NAMES.match(name):
        return f"{name} is documentation, not memory"
    manual = len(set(m.lower() for m in _MANUAL_HEADINGS.findall(body)))
    if manual >= 3 and (fm.get("name") or _in_tool_dir(path)):
        return f"{name} reads as a manual or spec ({manual} manual sections), not memory"
    return None


def _in_tool_dir(path: Path, only: str | None = None) -> bool:
    parts = [p.lower() for p in path.parent.parts[-3:]]
    if only is not None:
        return only in parts
    return any(p in _TOOL_DIRS for p in parts)


def folder_refusal(path: Path) -> str | None:
    """Why a folder holds no memory, when every Markdown file in it is refused (a skill's
    folder), else None."""
    if not path.is_dir():
        return None
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".md", ".mdx"))[:50]
    reasons = [refusal(p) for p in files]
    if files and all(reasons):
        return reasons[0]
    return None


def _memory_type(fm: dict) -> bool:
    t = fm.get("type")
    if t is None and isinstance(fm.get("metadata"), dict):
        t = fm["metadata"].get("type")
    return str(t).strip().lower() in ("user", "feedback", "project", "reference")

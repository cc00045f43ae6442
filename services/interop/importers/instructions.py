"""Instruction files: the rules a user writes for their agents.

``CLAUDE.md`` / ``.claude/CLAUDE.md`` / ``CLAUDE.local.md`` / ``.claude/rules/*.md`` (Claude
Code, ``@path`` imports followed up to five hops, never twice), ``AGENTS.md`` (Codex, OpenCode,
Cursor, Windsurf), ``GEMINI.md`` (its ``## Gemini Added Memories`` section is what the agent
saved; the rest is the user's), Cursor ``.cursor/rules/*.mdc`` and ``.cursorrules``, Windsurf
``global_rules.md`` / ``.windsurf/rules/*.md`` / ``.windsurfrules``, Aider ``CONVENTIONS.md``.

Accepts one file or a project folder (every instruction file in it). Statements come from
``mdsplit``; frontmatter (``description``/``globs``/``alwaysApply``, ``trigger``, ``paths``)
goes to metadata, never into a fact.
"""

from __future__ import annotations

import re
from pathlib import Path

from services.interop.importers import frontmatter, gemini
from services.interop.importers.base import ImportProblem, ParsedSource
from services.interop.importers.common import file_time, infer_category, read_text
from services.interop.importers.mdreader import split_statements
from services.interop.importers.native import (
    rel_name,
    rule_category,
    section_tags,
    source_meta,
    statement_fact,
)

FORMAT = "instructions"
MAX_HOPS = 5
GEMINI_SECTION = gemini.SECTION
# "This file provides guidance to Claude Code …": says what the file is, not a rule.
_ABOUT_FILE = re.compile(
    r"^this (file|document)\b[^.\n]{0,80}\b(provides|stores|contains|is|gives)\b|"
    r"\bthe sections? below\b[^.\n]{0,40}\b(are|is|cover|describe)",
    re.I,
)
_IMPORT = re.compile(r"(?<![\w`])@((?:~/|\.{1,2}/|/)?[\w.\-][\w.\-/]*\.\w+)")

ROOT_FILES = {
    "claude.md": ("claude-code", "claude-md"),
    "claude.local.md": ("claude-code", "claude-md"),
    "agents.md": ("codex", "agents-md"),
    "gemini.md": ("gemini", "gemini-md"),
    ".cursorrules": ("cursor", "cursor-rules"),
    ".windsurfrules": ("windsurf", "windsurf-rules"),
    "global_rules.md": ("windsurf", "windsurf-rules"),
    "conventions.md": ("aider", "aider-conventions"),
}
RULE_DIRS = {
    (".cursor", "rules"): ("cursor", "cursor-rules", (".mdc", ".md")),
    (".claude", "rules"): ("claude-code", "claude-md", (".md",)),
    (".windsurf", "rules"): ("windsurf", "windsurf-rules", (".md",)),
}


def file_kind(path: Path) -> tuple[str, str] | None:
    """(agent kind, file kind) for a file Engram reads as instructions, else None."""
    name = path.name.lower()
    if name in ROOT_FILES:
        return ROOT_FILES[name]
    parts = tuple(p.lower() for p in path.parts[-3:-1])
    for (a, b), (agent, kind, exts) in RULE_DIRS.items():
        if parts == (a, b) and path.suffix.lower() in exts:
            return agent, kind
    if path.suffix.lower() == ".mdc":
        return "cursor", "cursor-rules"
    return None


def project_files(root: Path) -> list[Path]:
    """The instruction files of a project folder, in the order the agents load them (not
    the ones Engram generated)."""
    from services.interop.engram_outputs import is_engram_output

    return [p for p in _project_files(root) if not is_engram_output(p)]


def _project_files(root: Path) -> list[Path]:
    out = []
    own = RULE_DIRS.get((root.parent.name, root.name))
    if own is not None:  # the rules folder itself (`.cursor/rules`), as a user may point at it
        return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in own[2])
    for name in ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "GEMINI.md"):
        p = root / name
        if p.is_file():
            out.append(p)
    for (a, b), (_, _, exts) in RULE_DIRS.items():
        d = root / a / b
        if d.is_dir():
            out += sorted(p for p in d.rglob("*") if p.is_file() and p.suffix.lower() in exts)
    for name in (".cursorrules", ".windsurfrules", "CONVENTIONS.md", "global_rules.md"):
        p = root / name
        if p.is_file():
            out.append(p)
    return out


def detect(path: Path) -> bool:
    if path.is_file():
        return file_kind(path) is not None
    return path.is_dir() and bool(project_files(path))


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    root = path.parent if path.is_file() else path
    out = ParsedSource(format=FORMAT, root=root.resolve())
    files = [path] if path.is_file() else project_files(path)
    seen: set[Path] = set()
    for f in files:
        parse_file(f, out, root, seen)
    return out


def parse_file(
    f: Path,
    out: ParsedSource,
    root: Path,
    seen: set[Path],
    hops: int = 0,
    via: str | None = None,
    inherit: tuple[str, str] | None = None,
) -> None:
    real = f.resolve()  # AGENTS.md is often a symlink to CLAUDE.md: read the target once
    if real in seen:
        return
    seen.add(real)
    rel = rel_name(f, root)
    text, problems = read_text(real, rel)
    out.problems.extend(problems)
    if text is None:
        return
    target = _link_blob(real, text)
    if target is not None:  # a git symlink checked out as a file holding the target's path
        parse_file(target, out, root, seen, hops + 1, via=rel, inherit=file_kind(f))
        return
    out.sources.append(str(real))
    agent, kind = file_kind(f) or file_kind(real) or inherit or ("generic", "imported")
    fm, body, first = frontmatter.split(text)
    extra = {
        "agent": agent,
        "file": kind,
        "description": frontmatter.text_of(fm.get("description")),
        "globs": frontmatter.text_of(fm.get("globs") or fm.get("paths")),
        "always_apply": fm.get("alwaysApply"),
        "trigger": frontmatter.text_of(fm.get("trigger")),
        "imported_from": via,
    }
    instruction = {k: v for k, v in extra.items() if v not in (None, "")}
    meta = source_meta(FORMAT, real, instruction=instruction)
    created = file_time(real)
    stmts = split_statements(body, first)
    if kind == "gemini-md":
        stmts = gemini.replace_section(stmts, body, first)
    for st in stmts:
        agent_written = kind == "gemini-md" and GEMINI_SECTION in st.sections
        if _only_imports(st.text) or (st.kind == "para" and _ABOUT_FILE.search(st.text)):
            continue
        tags = [kind, *section_tags(st.sections)]
        if agent_written:
            cat = infer_category(st.fact)
            m = {**meta, "origin": "agent", "gemini_memory": True}
            tags.append("gemini-memory")
        else:
            cat = rule_category(st.fact, st.sections)
            m = {**meta, "origin": "user"}
        fact = statement_fact(st, rel, category=cat, meta=m, created=created, tags=tags)
        if not agent_written:
            # every rule in the file holds at once: one must not supersede another because
            # both happen to read like "… lives in …" (a subject of its own per statement)
            fact.subject = f"stmt:{fact.metadata['source_hash'][:16]}"
        out.facts.append(fact)
    if kind == "claude-md" or kind == "gemini-md" or kind == "agents-md":
        _follow_imports(f, body, out, root, seen, hops, rel, (agent, kind))


def _link_blob(real: Path, text: str) -> Path | None:
    line = text.strip()
    if not line or "\n" in line or " " in line or len(line) > 255:
        return None
    target = (real.parent / line).resolve()
    return target if target.is_file() and target != real else None


def _only_imports(text: str) -> bool:
    rest = _IMPORT.sub("", text)
    return rest != text and not re.sub(r"[\s\-*:,.]|and|see|also", "", rest, flags=re.I)


def _follow_imports(f, body, out, root, seen, hops, rel, kinds) -> None:
    from services.interop.engram_outputs import MARK

    in_fence = ours = False
    for line in body.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if in_fence:
            continue
        if ours or line.startswith(MARK):  # Engram's own import of its compiled memory
            ours = line.startswith(MARK)
            continue
        for target in _IMPORT.findall(re.sub(r"`[^`]*`", "", line)):
            p = Path(target).expanduser()
            p = p if p.is_absolute() else f.parent / p
            if not p.is_file():
                continue
            if hops + 1 > MAX_HOPS:
                out.problems.append(
                    ImportProblem(rel, None, f"@{target}: more than {MAX_HOPS} import hops")
                )
                continue
            parse_file(p, out, root, seen, hops + 1, via=rel, inherit=kinds)

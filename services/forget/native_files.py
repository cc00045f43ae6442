"""Which native files a forget must reach, and whether Engram may write each one.

*Linked* to an agent: the write-back links, every file its facts were imported from, the
``MEMORY.md`` index beside a Claude Code topic file. *Discovered* on the machine: where the
agents keep memory under ``$HOME`` and in the current project (the places ``engram discover``
looks, by path only), and the files ``engram hooks install`` wrote. A file Engram may not
write: read-only, outside the allowed roots (``$HOME``, the current project, the agent's
workspace, the data dir, the folders the user imported from, ``ENGRAM_FORGET_ROOTS``), or a
symlink to a file another user owns.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from services.store.handle import EngramHandle

_TEXT_SUFFIXES = {".md", ".mdc", ".txt", ".jsonl", ".markdown", ""}


def linked_files(engram: EngramHandle, agent) -> dict[Path, str]:
    """Native files linked to one Engram agent: path → import format."""
    out: dict[Path, str] = {}
    state = engram.config.agent_dir(agent.slug) / "writeback.json"
    try:
        links = json.loads(state.read_text(encoding="utf-8")).get("links", {})
    except (OSError, ValueError):
        links = {}
    for link in links.values():
        out.setdefault(Path(link["file"]), link.get("format", ""))
    for src, fmt in _import_sources(engram, agent.id):
        out.setdefault(Path(src), fmt)
    for p, fmt in list(out.items()):
        if fmt == "claude-code-memory" and (p.parent / "MEMORY.md").is_file():
            out.setdefault(p.parent / "MEMORY.md", fmt)
    return {p: f for p, f in out.items() if _is_text(p)}


def _import_sources(engram: EngramHandle, agent_id: int) -> list[tuple[str, str]]:
    """(file, format) of every file the agent's facts were imported from: one pass in SQL
    on SQLite (a million-fact agent is not decoded row by row)."""
    from models.db import is_postgres
    from services.store import imported_rows

    return imported_rows.sources(agent_id, postgres=is_postgres(engram.db))


def installed_files(data_dir: Path | None) -> dict[Path, str]:
    """Files ``engram hooks install`` wrote for agents (a Cursor rule embeds the compiled
    memory) and the copies it kept of the files it edited (``*.engram-bak-*``)."""
    out: dict[Path, str] = {}
    if data_dir is None:
        return out
    try:
        manifest = json.loads((Path(data_dir) / "hooks-installed.json").read_text("utf-8"))
    except (OSError, ValueError):
        return out
    for key, rec in manifest.items() if isinstance(manifest, dict) else ():
        path = rec.get("path") if isinstance(rec, dict) else None
        p = Path(path or key.split("#", 1)[0])  # keys are "<path>#<agent>"
        if p.is_file() and _is_text(p) and not p.is_symlink():
            out[p] = "engram-rule" if p.suffix == ".mdc" else "instructions"
        for b in (rec or {}).get("backups", []) if isinstance(rec, dict) else ():
            if Path(b).is_file():
                out[Path(b)] = "engram-backup"
    return out


def discovered_files(data_dir: Path | None = None) -> dict[Path, str]:
    """Memory files agents load, found where the agents keep them under ``$HOME`` and in the
    current project (the places ``engram discover`` looks; paths only: nothing is parsed,
    so a huge or hostile file cannot slow a forget down), and the files Engram's hook
    installer wrote."""
    from services.interop.discover import _mcp_memory_files
    from services.interop.importers import claude_memory
    from services.interop.importers.instructions import project_files

    home = Path.home()
    codex = Path(os.environ.get("CODEX_HOME") or home / ".codex")
    out: dict[Path, str] = {}

    def add(paths, fmt: str) -> None:
        for p in paths:
            if p.is_file() and _is_text(p):
                out.setdefault(p, fmt)

    claude = home / ".claude"
    add([claude / "CLAUDE.md", *sorted((claude / "rules").glob("*.md"))], "instructions")
    add(sorted((claude / "projects").glob("*/memory/*.md")), "claude-code-memory")
    add(sorted((codex / "memories").glob("**/memory/**/*.md")), "codex-memory")
    add([codex / "AGENTS.md", home / ".gemini" / "GEMINI.md"], "instructions")
    add([home / ".config" / "opencode" / "AGENTS.md"], "instructions")
    add([home / ".codeium" / "windsurf" / "memories" / "global_rules.md"], "instructions")
    for d in (home / ".hermes" / "memories", home / ".hermes"):
        add([d / "MEMORY.md", d / "USER.md"], "hermes")
    add(_mcp_memory_files(home), "mcp-memory")
    project = Path.cwd()
    if project.resolve() != home.resolve():
        add(project_files(project), "instructions")
        for d in (project / ".claude" / "memory", project / "memory"):
            if d.is_dir() and claude_memory.detect(d):  # a docs folder called memory is not
                add(sorted(d.glob("*.md")), "claude-code-memory")
        add([project / "memory.jsonl", project / ".mcp" / "memory.jsonl"], "mcp-memory")
    _agents_of_2026(home, project if project.resolve() != home.resolve() else None, add)
    out.update(installed_files(data_dir))  # what Engram wrote is known for what it is
    return out


def _agents_of_2026(home: Path, project: Path | None, add) -> None:
    """Subagent memory, Gemini's private memory and the other agents' rule and memory files
    (the locations ``engram discover`` knows)."""
    from services.interop.importers import agent_rules, claude_agent_memory

    folders = claude_agent_memory.memory_folders(home / ".claude")
    if project is not None:
        folders += claude_agent_memory.memory_folders(project / ".claude")
        add([f for f, _ in agent_rules.files_under(project)], "agent-rules")
    for d in folders:
        add(sorted(d.glob("*.md")), "claude-code-memory")
    add(sorted((home / ".gemini" / "tmp").glob("*/memory/*.md")), "gemini-memory")
    add([f for f, _ in agent_rules.files_under(home, home=True)], "agent-rules")


def _is_text(p: Path) -> bool:
    if ".engram-bak-" in p.name:
        return True
    return p.suffix.lower() in _TEXT_SUFFIXES and p.name != "writeback.json"


def allowed_roots(engram: EngramHandle, agents, linked: dict[Path, str]) -> list[Path]:
    roots = [Path.home(), Path.cwd(), Path(engram.config.data_dir)]
    roots += [Path(a.workspace).expanduser() for a in agents if a.workspace]
    roots += [p.parent for p in linked]
    extra = os.environ.get("ENGRAM_FORGET_ROOTS", "")
    roots += [Path(r).expanduser() for r in extra.split(os.pathsep) if r]
    out = []
    for r in roots:
        try:
            out.append(r.resolve())
        except OSError:
            continue
    return out


def not_writable(path: Path, roots: list[Path]) -> str | None:
    """Why Engram may not rewrite ``path`` (None: it may)."""
    try:
        real = path.resolve(strict=True)
        st = real.stat()
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if path.is_symlink() and st.st_uid != os.getuid():
        return f"a symlink to {real}, a file Engram does not own (owner uid {st.st_uid})"
    if not any(real == r or r in real.parents for r in roots):
        return f"outside the folders Engram may write ({real}; see ENGRAM_FORGET_ROOTS)"
    if not st.st_mode & 0o222:
        return f"read-only (mode {st.st_mode & 0o777:04o})"
    if not os.access(real.parent, os.W_OK):
        return f"its folder {real.parent} is not writable"
    return None

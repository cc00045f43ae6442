"""Claude Code subagent memory (since 2.1.33): a subagent whose frontmatter in
``.claude/agents/<name>.md`` says ``memory: user | project | local`` keeps
``~/.claude/agent-memory/<name>/``, ``<repo>/.claude/agent-memory/<name>/`` or
``<repo>/.claude/agent-memory-local/<name>/``: a ``MEMORY.md`` index (its first 200 lines go
into the subagent's prompt) and topic files in the auto-memory schema. Read with the auto
memory reader (so write-back and removals work the same), each fact tagged with its subagent
and scope."""

from __future__ import annotations

from pathlib import Path

from services.interop.importers import claude_memory
from services.interop.importers.base import ImportFormatError, ParsedSource
from services.interop.importers.common import slug

FORMAT = claude_memory.FORMAT
SCOPES = {"agent-memory": "project", "agent-memory-local": "local"}


def folder_of(path: Path) -> Path | None:
    d = path if path.is_dir() else path.parent
    if d.parent.name in SCOPES and d.parent.parent.name == ".claude" and d.is_dir():
        return d
    return None


def scope_of(folder: Path) -> str:
    """``user`` for ``~/.claude/agent-memory`` (the .claude folder in $HOME), else the
    folder's scope."""
    claude = folder.parent.parent
    if folder.parent.name == "agent-memory" and claude == Path.home() / ".claude":
        return "user"
    return SCOPES[folder.parent.name]


def detect(path: Path) -> bool:
    return folder_of(path) is not None


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    folder = folder_of(path)
    if folder is None:
        raise ImportFormatError(
            f"{path}: not a Claude Code subagent memory folder "
            "(.claude/agent-memory/<agent>/ or .claude/agent-memory-local/<agent>/)"
        )
    agent, scope = folder.name, scope_of(folder)
    repo = folder.parent.parent.parent
    project = slug(agent) if scope == "user" else slug(repo.name)
    out = ParsedSource(format=FORMAT, root=folder.resolve())
    names = {p.name for p in folder.glob("*.md")}
    files = (
        [path]
        if path.is_file()
        else sorted(p for p in folder.glob("*.md") if p.name != claude_memory.INDEX)
    )
    if path.is_dir() and (folder / claude_memory.INDEX).is_file():
        files.append(folder / claude_memory.INDEX)
    for f in files:
        claude_memory.parse_file(f, folder, project, names, out)
    for fact in out.facts:
        fact.tags = list(dict.fromkeys([*fact.tags, "subagent", slug(agent)]))
        fact.metadata["subagent"] = {"name": agent, "scope": scope}
    return out


def memory_folders(claude_dir: Path) -> list[Path]:
    """Subagent memory folders under a ``.claude`` folder (user's or a repo's)."""
    return sorted(
        d
        for name in SCOPES
        for d in (claude_dir / name).glob("*")
        if d.is_dir() and any(d.glob("*.md"))
    )

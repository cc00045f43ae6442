"""Find every agent memory source on this machine: under ``$HOME`` (Claude Code, Codex, Gemini,
OpenCode, Windsurf, Hermes, basic-memory, MCP memory server files, OpenMemory exports) and in the
current project (instruction files, a committed ``.claude/memory/``, ``memory.jsonl``).

Each source says what it is (``kind``: an import format name, or ``claude-code-transcripts`` /
``codex-sessions`` for transcript folders, which are reported, not imported here), how many
entries it holds, the Engram agent it suggests (one per agent + project) and which agent already
imports it. ``import_discovered`` creates those agents and imports. The CLI's ``engram
discover`` and the desktop app's first-run page both call these."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from services.interop.importers.common import slug as _slug

TRANSCRIPT_KINDS = ("claude-code-transcripts", "codex-sessions")
_LABELS = {
    "claude-code-memory": "Claude Code auto memory",
    "instructions": "instruction file",
    "codex-memory": "Codex memories",
    "hermes": "Hermes memory",
    "basic-memory": "basic-memory notes",
    "mcp-memory": "MCP memory server file",
    "openmemory": "OpenMemory export",
    "claude-code-transcripts": "Claude Code transcripts",
    "codex-sessions": "Codex sessions",
}


@dataclass
class DiscoveredSource:
    kind: str  # import format name, or a transcript kind
    path: Path
    entries: int  # facts the import would read (files, for transcript folders)
    agent_kind: str  # claude-code, codex, gemini, cursor, windsurf, aider, opencode, …
    suggested_agent: str  # the Engram agent slug an import would use
    imported_by: str | None = None  # slug of an Engram agent that already imports it
    project: str | None = None  # the project it belongs to (None: user-wide)
    problem: str | None = None  # why it could not be read

    @property
    def importable(self) -> bool:
        return self.kind not in TRANSCRIPT_KINDS and self.problem is None

    @property
    def label(self) -> str:
        what = _LABELS.get(self.kind, self.kind)
        if self.kind == "instructions":
            what = f"{self.path.name} ({self.agent_kind})"
        return f"{what} · {self.project}" if self.project else what

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "path": str(self.path),
            "entries": self.entries,
            "agent_kind": self.agent_kind,
            "suggested_agent": self.suggested_agent,
            "imported_by": self.imported_by,
            "project": self.project,
            "importable": self.importable,
            "label": self.label,
            "problem": self.problem,
        }


def _agent_slug(agent_kind: str, project: str | None) -> str:
    s = _slug(f"{agent_kind}-{project}" if project else agent_kind, 60)
    s = re.sub(r"[^a-z0-9_.-]", "-", s.lower()).strip("-.") or "agent"
    return s if s[0].isalnum() else "a" + s


def _count(kind: str, path: Path) -> tuple[int, str | None]:
    from services.interop.importers.base import ImportFormatError
    from services.interop.importers.service import parse_source

    if kind == "claude-code-transcripts":
        return sum(1 for _ in path.glob("*.jsonl")), None
    if kind == "codex-sessions":
        return sum(1 for _ in path.rglob("rollout-*.jsonl")), None
    try:
        parsed = parse_source(path, kind)
        if not parsed.facts and parsed.problems:
            return 0, parsed.problems[0].reason
        return len(parsed.facts), None
    except ImportFormatError as exc:
        return 0, str(exc)
    except Exception as exc:  # one damaged file must not stop the survey of the machine
        return 0, f"cannot read it: {type(exc).__name__}: {exc}"


def _add(found: dict, kind: str, path: Path, agent_kind: str, project: str | None) -> None:
    key = (kind, str(path.resolve()))
    if key in found or not path.exists():
        return
    entries, problem = _count(kind, path)
    if kind not in TRANSCRIPT_KINDS and entries == 0 and problem is None:
        return  # an empty template is not a memory source
    found[key] = DiscoveredSource(
        kind, path, entries, agent_kind, _agent_slug(agent_kind, project), None, project, problem
    )


def _home_sources(home: Path, codex: Path, found: dict) -> None:
    claude = home / ".claude"
    for f in [claude / "CLAUDE.md", *sorted((claude / "rules").glob("*.md"))]:
        _add(found, "instructions", f, "claude-code", None)
    custom = _setting(claude / "settings.json", "autoMemoryDirectory")
    if custom:
        _add(found, "claude-code-memory", Path(custom).expanduser(), "claude-code", None)
    projects = claude / "projects"
    if projects.is_dir():
        for d in sorted(p for p in projects.iterdir() if p.is_dir()):
            _claude_project(d, found)
    _add(found, "instructions", codex / "AGENTS.md", "codex", None)
    mem = codex / "memories"
    if mem.is_dir():
        for d in sorted(p for p in mem.iterdir() if (p / "memory").is_dir()):
            _add(found, "codex-memory", d / "memory", "codex", _codex_project(d))
    if (codex / "sessions").is_dir():
        _add(found, "codex-sessions", codex / "sessions", "codex", None)
    _add(found, "instructions", home / ".gemini" / "GEMINI.md", "gemini", None)
    _add(found, "instructions", home / ".config" / "opencode" / "AGENTS.md", "opencode", None)
    wind = home / ".codeium" / "windsurf" / "memories" / "global_rules.md"
    _add(found, "instructions", wind, "windsurf", None)
    if (home / ".hermes").is_dir():
        _add(found, "hermes", home / ".hermes", "hermes", None)
    if (home / "basic-memory").is_dir():
        _add(found, "basic-memory", home / "basic-memory", "basic-memory", None)
    for f in _mcp_memory_files(home):
        _add(found, "mcp-memory", f, "mcp-memory", None)
    for z in sorted((home / "Downloads").glob("memories_export_*.zip")):
        _add(found, "openmemory", z, "openmemory", None)


_CWD = re.compile(r"\bcwd\s*[:=]\s*`?([^`\s]+)")


def _codex_project(d: Path) -> str | None:
    """``~/.codex/memories/<first 16 hex of sha256(cwd)>``: the project whose path hashes to
    the folder's name, as the memory files mention it (``cwd: …``); ``user`` is user-wide."""
    if d.name == "user":
        return None
    seen: list[str] = []
    for f in sorted(d.rglob("*.md"))[:50]:
        try:
            seen += _CWD.findall(f.read_text(encoding="utf-8", errors="replace")[:20000])
        except OSError:
            continue
    for cwd in seen:
        if hashlib.sha256(cwd.encode()).hexdigest()[:16] == d.name:
            return _slug(Path(cwd).name)
    return _slug(Path(seen[0]).name) if seen else d.name[:8]


def _setting(path: Path, key: str):
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get(key) if isinstance(data, dict) else None


def _claude_project(d: Path, found: dict) -> None:
    from services.interop.importers.claude_memory import project_name

    mem = d / "memory"
    name = project_name(mem)
    if mem.is_dir():
        _add(found, "claude-code-memory", mem, "claude-code", name)
    if any(d.glob("*.jsonl")):
        _add(found, "claude-code-transcripts", d, "claude-code", name)


def _mcp_memory_files(home: Path) -> list[Path]:
    """memory.jsonl files the agents' MCP settings point at (MEMORY_FILE_PATH), plus the
    usual places people keep one."""
    out = [home / "memory.jsonl", home / ".mcp" / "memory.jsonl"]
    for cfg in (
        home / ".claude.json",
        home / ".cursor" / "mcp.json",
        home / ".gemini" / "settings.json",
        home / ".codeium" / "windsurf" / "mcp_config.json",
    ):
        try:
            data = json.loads(cfg.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for server in _servers(data):
            env = server.get("env") if isinstance(server, dict) else None
            p = env.get("MEMORY_FILE_PATH") if isinstance(env, dict) else None
            if isinstance(p, str) and p:
                out.append(Path(p).expanduser())
    return [p for p in out if p.is_file()]


def _servers(data) -> list:
    if not isinstance(data, dict):
        return []

    def of(d) -> list:
        m = d.get("mcpServers") if isinstance(d, dict) else None
        return list(m.values()) if isinstance(m, dict) else []

    servers = of(data)
    projects = data.get("projects")
    for proj in projects.values() if isinstance(projects, dict) else []:
        servers += of(proj)  # ~/.claude.json keeps per-project servers too
    return servers


def _project_sources(project: Path, found: dict) -> None:
    from services.interop.importers import instructions
    from services.interop.importers.claude_memory import detect

    name = _slug(project.name)
    for f in instructions.project_files(project):
        agent_kind, _ = instructions.file_kind(f) or ("generic", "")
        if f.name == "AGENTS.md":
            agent_kind = "codex"
        _add(found, "instructions", f, agent_kind, name)
    for d in (project / ".claude" / "memory", project / "memory"):
        if d.is_dir() and detect(d):
            _add(found, "claude-code-memory", d, "claude-code", name)
    for f in (project / "memory.jsonl", project / ".mcp" / "memory.jsonl"):
        _add(found, "mcp-memory", f, "mcp-memory", name)


def discover_sources(
    home: Path | None = None, project: Path | None = None, engram=None
) -> list[DiscoveredSource]:
    """Every memory source under ``home`` (default ``$HOME``) and ``project`` (default: the
    current directory, unless it is ``home`` itself). With ``engram``, ``imported_by`` names
    the agent whose facts came from it."""
    codex = (
        Path(os.environ["CODEX_HOME"]) if home is None and os.environ.get("CODEX_HOME") else None
    )
    home = Path(home or Path.home()).expanduser()
    project = Path(project) if project is not None else Path.cwd()
    found: dict = {}
    _home_sources(home, codex or home / ".codex", found)
    if project.resolve() != home.resolve() and project.is_dir():
        _project_sources(project, found)
    out = list(found.values())
    if engram is not None:
        _mark_imported(engram, out)
    return out


def _mark_imported(engram, sources: list[DiscoveredSource]) -> None:
    import peewee as pw

    from models.entities import Agent, Fact

    rows = (
        Fact.select(Agent.slug, pw.fn.json_extract(Fact.metadata, "$.source_file"))
        .join(Agent, on=(Fact.agent == Agent.id))
        .where(
            (Fact.source == "import")
            & pw.fn.json_extract(Fact.metadata, "$.source_file").is_null(False)
        )
        .distinct()
        .tuples()
    )
    seen = [(slug, str(f)) for slug, f in rows]
    for s in sources:
        if not s.importable:
            continue  # a transcript folder holds the auto-memory folder, not its facts
        root = str(s.path.resolve())
        for slug, f in seen:
            if f == root or f.startswith(root.rstrip(os.sep) + os.sep):
                s.imported_by = slug
                break


def import_discovered(engram, sources: list[DiscoveredSource], progress=None) -> list[tuple]:
    """Import every importable source no agent imports yet, each into its suggested agent
    (created when missing). Returns (source, report or None, error or None) per source."""
    results = []
    for s in sources:
        if not s.importable or s.imported_by:
            continue
        try:
            mem = engram.agent(s.suggested_agent, create=True, kind=s.agent_kind)
            rep = mem.import_path(s.path, fmt=s.kind)
            s.imported_by = s.suggested_agent
            results.append((s, rep, None))
        except Exception as exc:  # one unreadable source must not stop the others
            results.append((s, None, f"{type(exc).__name__}: {exc}"))
        if progress:
            progress(len(results), len(sources))
    return results

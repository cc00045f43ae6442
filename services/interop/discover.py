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
from services.store.handle import EngramHandle

TRANSCRIPT_KINDS = ("claude-code-transcripts", "codex-sessions", "cursor-transcripts")
VENDOR = "vendor-service"
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
    "cursor-transcripts": "Cursor agent transcripts",
    "gemini-memory": "Gemini CLI private memory",
    "claude-subagent-memory": "Claude Code subagent memory",
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
    export: str | None = None  # vendor-kept memory: the documented way to see or export it
    title: str | None = None  # vendor-kept memory: what it is called

    @property
    def importable(self) -> bool:
        return self.kind not in TRANSCRIPT_KINDS and self.kind != VENDOR and self.problem is None

    @property
    def unit(self) -> str:
        """What ``entries`` counts: facts, or sessions for a transcript folder."""
        return "sessions" if self.kind in TRANSCRIPT_KINDS else "entries"

    @property
    def label(self) -> str:
        if self.kind == VENDOR:
            return f"{self.title} (kept by the vendor's service)"
        what = _LABELS.get(self.kind, self.kind)
        if self.kind in ("instructions", "agent-rules"):
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
            "unit": self.unit,
            "export": self.export,
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
    if kind == "cursor-transcripts":  # <uuid>/<uuid>.jsonl, or <uuid>.txt from older builds
        return len(list(path.glob("*/*.jsonl"))) + len(list(path.glob("*.txt"))), None
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
    from services.interop.engram_outputs import is_engram_output

    key = (kind, str(path.resolve()))
    if key in found or not path.exists() or (path.is_file() and is_engram_output(path)):
        return
    if path.is_file() and any(k[1] == key[1] for k in found):
        return  # the same file (a symlink's target) under another name: one source
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
        known = {_encode(p): p for p in recorded_projects(home, codex)}
        for d in sorted(p for p in projects.iterdir() if p.is_dir()):
            _claude_project(d, found, known)
    _add(found, "instructions", codex / "AGENTS.md", "codex", None)
    mem = codex / "memories"
    if mem.is_dir():
        from services.interop.importers.codex_memory import folder_of

        if folder_of(mem) == mem:  # the flat layout: the folder itself (a git repository)
            _add(found, "codex-memory", mem, "codex", None)
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
    _new_home_sources(home, found)


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


def _claude_project(d: Path, found: dict, known: dict[str, str] | None = None) -> None:
    mem = d / "memory"
    name = encoded_project_name(d.name, known or {})
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
    _new_project_sources(project, name, found)
    for f in (project / "memory.jsonl", project / ".mcp" / "memory.jsonl"):
        _add(found, "mcp-memory", f, "mcp-memory", name)


def discover_sources(
    home: Path | None = None,
    project: Path | None = None,
    engram: EngramHandle | None = None,
    split: bool = False,
) -> list[DiscoveredSource]:
    """Every memory source under ``home`` (default ``$HOME``), in ``project`` (default: the
    current directory, unless it is ``home`` itself) and in every project the agents
    themselves recorded (Claude Code, Codex, Gemini CLI, Cursor), plus the memories only a
    vendor's service keeps. With ``engram``, ``imported_by`` names the agent whose facts
    came from it. One repository's sources suggest one agent unless ``split``."""
    codex = (
        Path(os.environ["CODEX_HOME"]) if home is None and os.environ.get("CODEX_HOME") else None
    )
    home = Path(home or Path.home()).expanduser()
    project = Path(project) if project is not None else Path.cwd()
    codex = codex or home / ".codex"
    found: dict = {}
    _home_sources(home, codex, found)
    projects = [project] if project.resolve() != home.resolve() and project.is_dir() else []
    for recorded in recorded_projects(home, codex):
        p = Path(recorded)
        if p.is_dir() and p.resolve() != home.resolve() and p not in projects:
            projects.append(p)
    for p in projects:
        _project_sources(p, found)
    out = list(found.values())
    if not split:
        _one_agent_per_repository(out)
    out += vendor_kept(home, projects)
    if engram is not None:
        _mark_imported(engram, out)
    return out


def _mark_imported(engram: EngramHandle, sources: list[DiscoveredSource]) -> None:
    from services.store.imported_rows import sources_by_agent

    seen = sources_by_agent()
    for s in sources:
        if not s.importable:
            continue  # a transcript folder holds the auto-memory folder, not its facts
        root = str(s.path.resolve())
        for slug, f in seen:
            if f == root or f.startswith(root.rstrip(os.sep) + os.sep):
                s.imported_by = slug
                break


def import_discovered(
    engram: EngramHandle, sources: list[DiscoveredSource], progress=None
) -> list[tuple]:
    """Import every importable source no agent imports yet, each into its suggested agent
    (created when missing). Returns (source, report or None, error or None) per source."""
    results: list[tuple] = []
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


# where agents record the projects they worked in ----------------------------------------------
def _encode(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def recorded_projects(home: Path, codex: Path, max_rollouts: int = 300) -> list[str]:
    """Project paths the agents wrote down (existing or not): Claude Code's ``~/.claude.json``
    ``projects`` and ``~/.claude/projects/<encoded path>`` (decoded on disk), Gemini CLI's
    ``~/.gemini/projects.json``, the ``cwd`` of Codex rollouts (newest first) and Cursor's
    ``~/.cursor/projects/<slug>``. A launcher's working folder is not where the user works."""
    from services.interop.importers.claude_memory import _decode

    out: list[str] = []
    data = _json(home / ".claude.json")
    if isinstance(data, dict) and isinstance(data.get("projects"), dict):
        out += [p for p in data["projects"] if isinstance(p, str) and p.startswith("/")]
    gem = _json(home / ".gemini" / "projects.json")
    if isinstance(gem, dict) and isinstance(gem.get("projects"), dict):
        out += [p for p in gem["projects"] if isinstance(p, str)]
    out += _codex_cwds(codex / "sessions", max_rollouts)
    for folder, lead in ((home / ".claude" / "projects", ""), (home / ".cursor" / "projects", "-")):
        if folder.is_dir():
            for d in sorted(folder.iterdir()):
                real = _decode(lead + d.name) if d.is_dir() else None
                if real is not None:
                    out.append(str(real))
    return list(dict.fromkeys(out))


def _codex_cwds(sessions: Path, limit: int) -> list[str]:
    if not sessions.is_dir():
        return []
    files = sorted(sessions.rglob("rollout-*.jsonl"), reverse=True)[:limit]
    out = []
    for f in files:
        try:
            with f.open("rb") as fh:
                first = json.loads(fh.readline(1 << 16) or b"{}")
        except (OSError, ValueError):
            continue
        payload = first.get("payload") if isinstance(first, dict) else None
        cwd = (payload or first).get("cwd") if isinstance(payload or first, dict) else None
        if isinstance(cwd, str) and cwd.startswith("/"):
            out.append(cwd)
    return out


def encoded_project_name(enc: str, known: dict[str, str]) -> str:
    """The project of ``~/.claude/projects/<enc>``: the recorded path that encodes to it;
    else walked on disk as far as it exists, the rest of the name being the project's own
    (a deleted ``/home/me/code/my-app`` stays "my-app", not "app")."""
    if enc in known:
        return _slug(Path(known[enc]).name)
    from services.interop.importers.claude_memory import walk_encoded

    parts = enc.lstrip("-").split("-")
    cur, i = walk_encoded(parts)
    rest = "-".join(parts[i:])
    return _slug(rest or cur.name or enc)


# sources added for the agents of late 2026 ------------------------------------------------------
def _new_home_sources(home: Path, found: dict) -> None:
    from services.interop.importers import claude_agent_memory, gemini_memory

    for d in claude_agent_memory.memory_folders(home / ".claude"):
        _add(found, "claude-subagent-memory", d, "claude-code", None)
    tmp = home / ".gemini" / "tmp"
    for d in sorted(tmp.glob("*/memory")) if tmp.is_dir() else []:
        _add(found, "gemini-memory", d, "gemini", gemini_memory.project_name(d))
    cursor = home / ".cursor" / "projects"
    for d in sorted(cursor.glob("*/agent-transcripts")) if cursor.is_dir() else []:
        _add(found, "cursor-transcripts", d, "cursor", encoded_project_name(d.parent.name, {}))
    for d in sorted((home / ".local" / "share" / "kilo" / "memory").glob("*")):
        if d.is_dir():
            _add(found, "agent-rules", d, "kilo", _slug(d.name))
    for d in sorted((home / ".letta" / "agents").glob("*/memory")):
        _add(found, "agent-rules", d, "letta", None)


def _new_project_sources(project: Path, name: str, found: dict) -> None:
    from services.interop.importers import agent_rules, claude_agent_memory

    for d in claude_agent_memory.memory_folders(project / ".claude"):
        _add(found, "claude-subagent-memory", d, "claude-code", name)
    for f, loc in agent_rules.files_under(project):
        _add(found, "agent-rules", f, loc.agent, name)
    custom = _setting(project / ".claude" / "settings.local.json", "autoMemoryDirectory")
    if custom:
        _add(found, "claude-code-memory", Path(custom).expanduser(), "claude-code", name)


# the agent kind a repository's sources are named after, first present first
PRIMARY = ("claude-code", "codex", "gemini", "cursor", "opencode", "windsurf", "copilot")


def _one_agent_per_repository(sources: list[DiscoveredSource]) -> None:
    """CLAUDE.md, AGENTS.md (often the same text, or a link), GEMINI.md, rules and the
    project's auto memory are one repository's memory: one suggested agent for all of it."""
    by_project: dict[str, list[DiscoveredSource]] = {}
    for s in sources:
        if s.project and s.importable:
            by_project.setdefault(s.project, []).append(s)
    for project, group in by_project.items():
        kinds = {s.agent_kind for s in group}
        primary = next((k for k in PRIMARY if k in kinds), sorted(kinds)[0])
        for s in group:
            s.suggested_agent = _agent_slug(primary, project)


# memory only a vendor's service keeps: listed with the documented way to see or export it
VENDOR_KEPT = (
    (
        "copilot",
        "GitHub Copilot Memory",
        (".config/github-copilot", ".copilot"),
        "stored by GitHub per repository; review or delete it under the repository's "
        "Settings → Copilot → Memory (no file export); rules to keep go in "
        ".github/copilot-instructions.md, which Engram reads",
    ),
    (
        "windsurf",
        "Windsurf Cascade memories",
        (".codeium/windsurf",),
        "kept by Windsurf; Windsurf Settings → Cascade → Manage memories lists them; copy the "
        "ones to keep into .windsurf/rules/*.md, which Engram reads",
    ),
    (
        "cursor",
        "Cursor User and Team Rules",
        (".cursor",),
        "User Rules live in Cursor Settings → Rules, Team Rules in the cursor.com team "
        "dashboard (no file export); copy them into .cursor/rules/*.mdc, which Engram reads",
    ),
    (
        "claude-ai",
        "Claude.ai memory",
        (".claude",),
        "kept by Anthropic for the claude.ai app; claude.ai Settings → Privacy → Export data "
        "sends an archive that includes it",
    ),
)


def vendor_kept(home: Path, projects: list[Path]) -> list[DiscoveredSource]:
    """One row per vendor-kept memory of an agent this machine uses (its folder exists, or a
    project uses its files), so the user knows it exists and how to get it out."""
    out = []
    used_copilot = any((p / ".github" / "copilot-instructions.md").is_file() for p in projects)
    for kind, title, marks, export in VENDOR_KEPT:
        used = any((home / m).exists() for m in marks) or (kind == "copilot" and used_copilot)
        if used:
            src = DiscoveredSource(VENDOR, home / marks[0], 0, kind, kind, None, None, None)
            src.export, src.title = export, title
            # what a reader of ``problem`` (the app's first-run list) shows: why it is not here
            src.problem = f"kept by the vendor's service, not on disk: {export}"
            out.append(src)
    return out

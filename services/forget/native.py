"""The agents' own files a forget must reach: every native file an agent loads that holds
the forgotten text, rewritten in the same run, each in its own syntax.

Which files: those *linked* to the agent (the write-back links, every file its facts were
imported from, the ``MEMORY.md`` index beside a Claude Code topic file) and those *discovered*
on the machine (``services.interop.discover``: Claude Code, Codex, Gemini, Cursor, Windsurf,
Hermes, MCP memory files under ``$HOME`` and the current project).

How each is rewritten (``plan_native``):

* agent-written memory (Claude Code topic files, Codex memories, Gemini's saved memories):
  the whole statement that mentions the text goes, as the importer cut it;
* a Claude Code ``MEMORY.md`` index line keeps its link and loses the hook that names it;
  a topic's frontmatter ``description`` becomes the topic's ``name``;
* MCP ``memory.jsonl``: the observations that mention it leave their entity's line (the other
  lines keep every byte), an entity or relation named by it goes;
* Hermes ``§`` files: the entries that mention it;
* user-owned instruction files (CLAUDE.md, AGENTS.md, GEMINI.md outside the saved memories,
  Cursor/Windsurf rules): only the lines that mention it; a copy of the file as it was, each
  removed line replaced by a marker (so the copy does not keep the text), is kept in
  ``<data dir>/forget-backups/`` and the receipt names it.

A file Engram may not write is never touched and is listed as "not erased" with the reason:
read-only, outside the allowed roots (``$HOME``, the current project, the agent's workspace,
the data dir, the folders the user imported from, ``ENGRAM_FORGET_ROOTS``), or a symlink to a file another user
owns.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path

import peewee as pw

from services.forget.files import ENTRY_SEP, FileEdit, Terms, _entries, _short

USER_OWNED = "instructions"
ENGRAM_WRITTEN = {"engram-rule", "engram-backup"}  # erased by any forget: Engram wrote them
AGENT_OWNED = {"claude-code-memory", "codex-memory"}
MARKER = "[engram forget: a line was removed here]"
_TEXT_SUFFIXES = {".md", ".mdc", ".txt", ".jsonl", ".markdown", ""}
MAX_BYTES = 8 << 20  # a memory file an agent loads is small; a larger one is not rewritten


# which files ------------------------------------------------------------------------------


def linked_files(engram, agent) -> dict[Path, str]:
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


def _import_sources(engram, agent_id: int) -> list[tuple[str, str]]:
    """(file, format) of every file the agent's facts were imported from: one pass in SQL
    on SQLite (a million-fact agent is not decoded row by row)."""
    from models import Fact
    from models.db import is_postgres

    q = (Fact.agent == agent_id) & (Fact.source == "import")
    if not is_postgres(engram.db):
        src = pw.fn.json_extract(Fact.metadata, "$.source_file")
        fmt = pw.fn.json_extract(Fact.metadata, "$.source_format")
        rows = Fact.select(src, fmt).where(q & src.is_null(False)).distinct().tuples()
        return [(str(a), str(b or "")) for a, b in rows]
    out = set()
    for (meta,) in Fact.select(Fact.metadata).where(q).tuples():
        if (meta or {}).get("source_file"):
            out.add((str(meta["source_file"]), str(meta.get("source_format") or "")))
    return sorted(out)


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
    for path, rec in manifest.items() if isinstance(manifest, dict) else ():
        p = Path(path)
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
    out.update(installed_files(data_dir))  # what Engram wrote is known for what it is
    return out


def _is_text(p: Path) -> bool:
    if ".engram-bak-" in p.name:
        return True
    return p.suffix.lower() in _TEXT_SUFFIXES and p.name != "writeback.json"


def allowed_roots(engram, agents, linked: dict[Path, str]) -> list[Path]:
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


# how each is rewritten ----------------------------------------------------------------


def plan_native(path: Path, fmt: str, terms: Terms, roots: list[Path]) -> FileEdit | None:
    """What forgetting ``terms`` changes in one native file (None: it does not mention it)."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return _problem(path, fmt, f"larger than {MAX_BYTES >> 20} MB: not rewritten")
        raw = path.read_bytes()
    except OSError:
        return None  # gone or unreadable: verify's scan says whether it holds anything
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        if terms.mentions(raw.decode("utf-8", errors="replace")):
            return _problem(path, fmt, "not UTF-8 text: Engram does not rewrite it")
        return None
    if not terms.mentions(text):
        return None
    if path.suffix.lower() == ".jsonl":
        new, gone, lines = _mcp_jsonl(text, terms)
        kind = "observations"
    elif fmt == "hermes" or ENTRY_SEP in text:
        new, gone = _entries(text, terms)
        kind, lines = "entries", []
    else:
        new, gone, lines = _markdown(path, text, fmt, terms)
        kind = "lines"
    edit = FileEdit(path, kind, [_short(g) for g in gone], new)
    edit.fmt, edit.lines, edit.base = fmt, lines, raw
    edit.user_owned = fmt == USER_OWNED
    why = not_writable(path, roots)
    if why is not None:
        edit.problem = f"not erased: {why}"
    elif new == text:
        edit.problem = "not erased: the mention is in a part Engram cannot cut out"
    return edit


def _problem(path: Path, fmt: str, why: str) -> FileEdit:
    edit = FileEdit(path, "lines", problem=f"not erased: {why}")
    edit.fmt = fmt
    return edit


_INDEX_LINE = re.compile(
    r"^(?P<pre>\s*[-*+]\s+)(?P<link>\[(?P<label>[^\]]*)\]\((?P<target>[^)\s]*)\)|\[\[[^\]]+\]\])"
    r"(?P<rest>.*)$"
)
_FM_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:(?P<sp>\s*)(?P<value>.*)$")


def _markdown(path: Path, text: str, fmt: str, terms: Terms):
    """Markdown and rules: whole statements in agent-written memory, single lines elsewhere;
    index hooks and frontmatter descriptions rewritten in place."""
    lines = text.split("\n")
    drop: set[int] = set()
    for st in _statements(path, text, fmt):
        block = lines[st.start - 1 : st.end]
        if terms.mentions("\n".join(block)):
            drop.update(range(st.start - 1, st.end))
    fm_end = _frontmatter_end(lines)
    name = _frontmatter_value(lines[:fm_end], "name")
    gone: list[str] = []
    touched: set[int] = set()
    for i, ln in enumerate(lines):
        if i in drop:
            gone.append(ln)
            continue
        if not terms.mentions(ln):
            continue
        new = _rewrite_line(ln, i < fm_end, name, path, fmt, terms)
        if new is None:
            drop.add(i)
        else:
            lines[i] = new
            touched.add(i)
        gone.append(ln)
    kept = [ln for i, ln in enumerate(lines) if i not in drop]
    return "\n".join(kept), gone, sorted(i + 1 for i in drop | touched)


def _statements(path: Path, text: str, fmt: str):
    from services.interop.importers import frontmatter, gemini
    from services.interop.writeback import statements

    if fmt in AGENT_OWNED and path.name != "MEMORY.md" or fmt == "codex-memory":
        return statements(path, text, fmt)
    if fmt == USER_OWNED:  # Gemini's saved memories are the agent's own statements
        _, body, first = frontmatter.split(text)
        return gemini.memories(body, first)
    return []


def _frontmatter_end(lines: list[str]) -> int:
    if not lines or lines[0].lstrip("\ufeff").strip() != "---":
        return 0
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            return i + 1
    return 0


def _frontmatter_value(lines: list[str], key: str) -> str | None:
    for ln in lines:
        m = _FM_KEY.match(ln.rstrip("\r"))
        if m and m.group("key") == key:
            return m.group("value").strip().strip("\"'") or None
    return None


def _rewrite_line(ln: str, in_frontmatter: bool, name, path: Path, fmt: str, terms: Terms):
    """A line that mentions the text, rewritten without it (None: the line goes)."""
    cr = "\r" if ln.endswith("\r") else ""
    body = ln[: len(ln) - len(cr)]
    if in_frontmatter:
        m = _FM_KEY.match(body)
        if m and m.group("key") in ("description", "name", "title"):
            repl = name if name and not terms.mentions(name) else ""
            value = json.dumps(repl, ensure_ascii=False)
            return f"{m.group('key')}:{m.group('sp') or ' '}{value}{cr}"
        return None
    if fmt == "claude-code-memory" and path.name == "MEMORY.md":
        return _index_line(body, terms, cr)
    return None


def _index_line(body: str, terms: Terms, cr: str) -> str | None:
    """``- [label](file.md) — hook``: the link stays (Claude Code finds the topic by it), the
    hook or label that names the forgotten text goes."""
    m = _INDEX_LINE.match(body)
    if m is None:
        return None
    link = m.group("link")
    if m.group("label") is not None and terms.mentions(m.group("label")):
        link = f"[{Path(m.group('target')).stem}]({m.group('target')})"
    out = m.group("pre") + link
    rest = m.group("rest")
    if rest and not terms.mentions(rest):
        out += rest
    return None if terms.mentions(out) else out + cr


def _mcp_jsonl(text: str, terms: Terms):
    """MCP memory server lines: observations out of their entity; entities and relations
    named by the text out whole; every other line byte for byte."""
    out: list[str] = []
    gone: list[str] = []
    lines: list[int] = []
    for no, ln in enumerate(text.splitlines(keepends=True), 1):
        if not terms.mentions(ln):
            out.append(ln)
            continue
        lines.append(no)
        new = _mcp_line(ln, terms, gone)
        if new is not None:
            out.append(new)
    return "".join(out), gone, lines


def _mcp_line(ln: str, terms: Terms, gone: list[str]) -> str | None:
    end = ln[len(ln.rstrip("\r\n")) :]
    try:
        d = json.loads(ln)
    except ValueError:
        gone.append(ln)
        return None
    kind = d.get("type") or d.get("_type") if isinstance(d, dict) else None
    obs = d.get("observations") if isinstance(d, dict) else None
    if kind != "entity" or not isinstance(obs, list) or terms.mentions(str(d.get("name"))):
        gone.append(ln)
        return None
    keep = []
    for o in obs:
        txt = o.get("text") if isinstance(o, dict) else o
        (gone.append(str(txt)) if terms.mentions(str(txt)) else keep.append(o))
    d["observations"] = keep
    if terms.mentions(json.dumps(d, ensure_ascii=False)):
        gone.append(ln)
        return None
    spaced = '": ' in ln or '", "' in ln
    seps = (", ", ": ") if spaced else (",", ":")
    return json.dumps(d, ensure_ascii=False, separators=seps) + end


# doing it ---------------------------------------------------------------------------------


def apply_native(edit: FileEdit, backup_dir: Path) -> str | None:
    """Rewrite one planned file atomically; returns the backup path it kept (or None).
    A file that changed since the preview is left alone (the caller notes it)."""
    from services.forget.scrub import scrub_replace

    try:
        now = edit.path.read_bytes()
    except OSError as exc:
        raise OSError(f"cannot read it any more: {exc.strerror or exc}") from exc
    if edit.base is not None and now != edit.base:
        raise OSError("it changed since the preview; run the forget again")
    backup = None
    if edit.user_owned:
        backup = _backup(edit, backup_dir)
    scrub_replace(edit.path, edit.new_data or "")
    return backup


def _backup(edit: FileEdit, backup_dir: Path) -> str:
    from services.store.atomic import atomic_write

    old = (edit.base or b"").decode("utf-8").split("\n")
    drop = {n - 1 for n in edit.lines}
    kept = [MARKER if i in drop else ln for i, ln in enumerate(old)]
    backup_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    n = len(list(backup_dir.iterdir())) + 1
    dest = backup_dir / f"{n:03d}-{edit.path.name}"
    atomic_write(dest, "\n".join(kept))
    return str(dest)


def backup_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "forget-backups" / datetime.now().strftime("%Y%m%d-%H%M%S-%f")


def scan_native(paths: dict[Path, str], terms: Terms) -> list[tuple[Path, list[int]]]:
    """Native files that still mention a term, with the lines (for verify)."""
    out = []
    for p in sorted(paths):
        try:
            if p.stat().st_size > 64 * MAX_BYTES:
                continue
            text = p.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        if not terms.mentions(text):
            continue
        hits = [i for i, ln in enumerate(text.split("\n"), 1) if terms.mentions(ln)]
        out.append((p, hits or [0]))
    return out

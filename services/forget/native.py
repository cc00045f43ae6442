"""Rewriting the agents' own files without the forgotten text, each in its own syntax
(which files, and whether Engram may write them: ``native_files.py``).

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

A file Engram may not write is never touched: it is listed as "not erased" with the reason.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

from services.forget.files import (
    ENTRY_SEP,
    FileEdit,
    Terms,
    Unreadable,
    _entries,
    _short,
    decode,
    lossy_text,
)
from services.forget.native_files import not_writable

USER_OWNED = "instructions"
ENGRAM_WRITTEN = {"engram-rule", "engram-backup"}  # erased by any forget: Engram wrote them
AGENT_OWNED = {"claude-code-memory", "codex-memory", "gemini-memory"}
# the agents' rule files of the one adapter (Cline, Roo, Kiro, Copilot …): the user's text,
# so only matched lines go and a backup is kept, as for CLAUDE.md
USER_RULES = "agent-rules"
MARKER = "[engram forget: a line was removed here]"
MAX_BYTES = 8 << 20  # a memory file an agent loads is small; a larger one is not rewritten


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
        text, form = decode(raw)
    except Unreadable as exc:
        # whether it holds the text is unknown: named, never skipped in silence
        return _problem(path, fmt, f"cannot read ({exc})")
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
    edit.fmt, edit.lines, edit.base, edit.form = fmt, lines, raw, form
    edit.user_owned = fmt in (USER_OWNED, USER_RULES)
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

    # Claude Code's MEMORY.md is an index (its hooks are rewritten line by line); Gemini's
    # and Codex's hold the memories themselves
    if fmt in AGENT_OWNED and (path.name != "MEMORY.md" or fmt != "claude-code-memory"):
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
    except (ValueError, RecursionError):  # nested too deep to read: unreadable, like bad JSON
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
    scrub_replace(edit.path, edit.new_bytes())
    return backup


def _backup(edit: FileEdit, backup_dir: Path) -> str:
    from services.store.atomic import atomic_write

    old = decode(edit.base or b"")[0].split("\n")
    drop = {n - 1 for n in edit.lines}
    kept = [MARKER if i in drop else ln for i, ln in enumerate(old)]
    backup_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    n = len(list(backup_dir.iterdir())) + 1
    dest = backup_dir / f"{n:03d}-{edit.path.name}"
    atomic_write(dest, edit.form.encode("\n".join(kept)))  # the file's own encoding
    return str(dest)


def scrub_earlier_backups(data_dir: Path, terms: Terms, taken: set[str]) -> list[str]:
    """The marker copies earlier forgets kept of the user's files hold the lines they did not
    forget: a line this forget erases goes from them too (the same marker), or the copy
    keeps the text the receipt says is gone. ``taken``: this run's own copies. Returns the
    copies rewritten."""
    from services.forget.scrub import scrub_replace

    root = Path(data_dir) / "forget-backups"
    done: list[str] = []
    if not root.is_dir():
        return done
    for p in sorted(x for x in root.rglob("*") if x.is_file() and str(x) not in taken):
        try:
            text, form = decode(p.read_bytes())
        except (OSError, Unreadable):
            continue  # verify names a copy it cannot read
        lines = text.split("\n")
        kept = [MARKER if terms.mentions(ln) else ln for ln in lines]
        if kept != lines:
            scrub_replace(p, form.encode("\n".join(kept)))
            done.append(str(p))
    return done


def backup_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "forget-backups" / datetime.now().strftime("%Y%m%d-%H%M%S-%f")


def scan_native(
    paths: dict[Path, str], terms: Terms, unreadable: list[tuple[Path, str]] | None = None
) -> list[tuple[Path, list[int]]]:
    """Native files that still mention a term, with the lines (for verify). A file that
    cannot be decoded and shows no term in what can be read goes to ``unreadable``."""
    out = []
    for p in sorted(paths):
        try:
            if p.stat().st_size > 64 * MAX_BYTES:
                continue
            raw = p.read_bytes()
        except OSError:
            continue
        try:
            text = decode(raw)[0]
        except Unreadable as exc:
            text = lossy_text(raw)
            if not terms.mentions(text) and unreadable is not None:
                unreadable.append((p, str(exc)))
        if not terms.mentions(text):
            continue
        hits = [i for i, ln in enumerate(text.split("\n"), 1) if terms.mentions(ln)]
        out.append((p, hits or [0]))
    return out

"""Removing forgotten entries from files Engram did not write alone: the agent's workspace
(MEMORY.md / USER.md ``§`` entries, ``episodes/*.md`` blocks), compiled layers and exports.

Only the entries that mention a forgotten term go; every other byte of the file stays as it
was. Files are replaced atomically and the old inode is zeroed (``backup.scrub_replace``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from services.forget.matching import contains, fold, found_at, spaced
from services.forget.scrub import scrub_file, scrub_replace

ENTRY_SEP = "\n§\n"
HEADING = re.compile(r"^## ", re.M)
WORKSPACE_FILES = ("memories/MEMORY.md", "memories/USER.md", "MEMORY.md", "USER.md")
WORKSPACE_DIRS = ("episodes", "memories/episodes", "memories")
PREVIEW = 80
TEXT_SUFFIXES = {".md", ".txt", ".json", ".jsonl", ".markdown", ".mdc"}


class Terms:
    """Forgotten strings, compared on folded text (``matching.fold``: default-ignorable code
    points, NFKC, case, punctuation) as whole words (``matching.found_at``).

    A few terms: plain substring tests. Many (a 10k-fact scope): terms are indexed by the
    first three characters of their first word and tested only where a word of the text
    starts with those characters, so the cost follows the text, not the number of terms.
    """

    MANY = 64

    def __init__(self, terms):
        self.norm = sorted({n for n in (fold(t) for t in terms if t) if n}, key=len)
        self._index: dict[str, list[str]] | None = None
        # sorted out once: testing every term's first character for every text cost 27 s of
        # a 1 % forget at 100k facts (116M calls), for a list that is usually empty
        self._unspaced = [t for t in self.norm if not spaced(t[0])]
        if len(self.norm) > self.MANY:
            self._index = {}
            for t in self.norm:
                self._index.setdefault(t[:3], []).append(t)

    def __bool__(self):
        return bool(self.norm)

    def mentions(self, text: str | None) -> bool:
        if not text or not self.norm:
            return False
        n = fold(text)
        if self._index is None:
            return any(contains(n, t) for t in self.norm)
        for m in _WORD_START.finditer(n):
            i = m.start()
            for t in self._index.get(n[i : i + 3], ()):
                if found_at(n, t, i):
                    return True
        # a term in a script written without spaces may start inside a "word"
        return any(contains(n, t) for t in self._unspaced)

    def which(self, text: str | None) -> list[str]:
        """The folded terms a text mentions (for the reason shown beside a match)."""
        n = fold(text)
        return [t for t in self.norm if contains(n, t)] if n else []


_WORD_START = re.compile(r"(?<!\S)\S")


class Unreadable(ValueError):
    """A file whose bytes are not text Engram can cut entries out of (the message says why)."""


@dataclass(frozen=True)
class TextForm:
    """How a file's text was stored, so a rewrite keeps its encoding and byte order mark."""

    codec: str = "utf-8"
    bom: bytes = b""

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.codec)


_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"), (b"\xef\xbb\xbf", "utf-8"))


def decode(raw: bytes) -> tuple[str, TextForm]:
    """The text of a file as the importers read it (``importers.common.read_text``: UTF-16
    with a BOM as Windows editors save it, UTF-8 with or without a BOM), so a forget and its
    verification see every file an import did. Raises ``Unreadable``."""
    form = next((TextForm(c, b) for b, c in _BOMS if raw.startswith(b)), TextForm())
    body = raw[len(form.bom) :]
    try:
        text = body.decode(form.codec)
    except UnicodeDecodeError as exc:
        name = "UTF-16" if form.codec.startswith("utf-16") else "UTF-8"
        raise Unreadable(f"not valid {name} at byte {exc.start + len(form.bom)}") from exc
    if "\0" in text[:65536]:
        raise Unreadable("binary data, not text")
    return text, form


def lossy_text(raw: bytes) -> str:
    """What can still be read of an unreadable file: enough to tell it holds a term."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", errors="replace")
    return raw.decode("utf-8", errors="replace")


@dataclass
class FileEdit:
    path: Path
    kind: str  # entries | blocks | lines | json | whole
    removed: list[str] = field(default_factory=list)  # short previews for the user's review
    new_data: str | None = None  # None: the file goes entirely
    problem: str | None = None  # unreadable: listed, left alone
    # an agent's native file (services.forget.native): its format, the 1-based lines that
    # go, the bytes the plan was made from, and whether the user wrote it (a backup is kept)
    fmt: str = ""
    lines: list[int] = field(default_factory=list)
    base: bytes | None = field(default=None, repr=False)
    user_owned: bool = False
    form: TextForm = TextForm()

    def new_bytes(self) -> bytes:
        return self.form.encode(self.new_data or "")

    def to_json(self) -> dict:
        out = {
            "path": str(self.path),
            "kind": self.kind,
            "entries": len(self.removed),
            "preview": self.removed[:20],
            "delete_file": self.new_data is None and self.problem is None,
            "problem": self.problem,
        }
        if self.fmt:
            out.update(format=self.fmt, lines=self.lines, backup=self.user_owned)
        return out


def _short(s: str) -> str:
    s = " ".join(s.split())
    return s if len(s) <= PREVIEW else s[: PREVIEW - 1] + "…"


def _keep_ending(orig: str, new: str) -> str:
    if orig.endswith("\n") and new and not new.endswith("\n"):
        new += "\n"
    return new


def _entries(text: str, terms: Terms) -> tuple[str, list[str]]:
    parts = text.split(ENTRY_SEP)
    keep: list[str] = []
    gone: list[str] = []
    for _i, p in enumerate(parts):
        (gone if terms.mentions(p) else keep).append(p)
    return _keep_ending(text, ENTRY_SEP.join(keep)), gone


def _blocks(text: str, terms: Terms) -> tuple[str, list[str]]:
    starts = [m.start() for m in HEADING.finditer(text)]
    if not starts:
        return _lines(text, terms)
    chunks = [text[: starts[0]]] + [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
    keep: list[str] = []
    gone: list[str] = []
    for _i, c in enumerate(chunks):
        (gone if terms.mentions(c) else keep).append(c)
    return "".join(keep), gone


def _lines(text: str, terms: Terms) -> tuple[str, list[str]]:
    lines = text.splitlines(keepends=True)
    keep = [ln for ln in lines if not terms.mentions(ln)]
    gone = [ln for ln in lines if terms.mentions(ln)]
    return "".join(keep), gone


def _jsonl(text: str, terms: Terms, ids: set[int]) -> tuple[str, list[str]]:
    """JSON lines (agent archives): drop a line that mentions a term or belongs to a
    forgotten fact by id (an archived vector or audit event carries no text)."""
    keep: list[str] = []
    gone: list[str] = []
    for ln in text.splitlines(keepends=True):
        drop = terms.mentions(ln)
        if not drop and ids:
            try:
                d = json.loads(ln)
            except ValueError:
                d = None
            if isinstance(d, dict):
                drop = (
                    d.get("fact") in ids
                    or d.get("fact_id") in ids
                    or (d.get("type") == "fact" and d.get("id") in ids)
                )
        (gone if drop else keep).append(ln)
    return "".join(keep), gone


def _json(text: str, terms: Terms) -> tuple[str, list[str]]:
    data = json.loads(text)
    gone: list[str] = []

    def prune(v):
        if isinstance(v, list):
            out = []
            for x in v:
                if isinstance(x, (dict, str)) and terms.mentions(
                    json.dumps(x, ensure_ascii=False) if isinstance(x, dict) else x
                ):
                    gone.append(json.dumps(x, ensure_ascii=False) if isinstance(x, dict) else x)
                else:
                    out.append(prune(x))
            return out
        if isinstance(v, dict):
            return {k: prune(x) for k, x in v.items()}
        return v

    data = prune(data)
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n", gone


def plan_file(
    path: Path, terms: Terms, whole: bool = False, ids: set[int] | None = None
) -> FileEdit | None:
    """What forgetting ``terms`` changes in one file (None: nothing)."""
    path = Path(path)
    if whole:
        return FileEdit(path, "whole", ["(whole file)"], None)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return FileEdit(path, "lines", problem=f"cannot read: {exc.strerror or exc}")
    try:
        text, form = decode(raw)
    except Unreadable as exc:
        if path.suffix.lower() not in TEXT_SUFFIXES:
            return None  # an archive or a binary: the raw-bytes verifier names a plain term
        return FileEdit(path, "lines", problem=f"not erased: cannot read ({exc})")
    ids = ids or set()
    if path.suffix == ".jsonl":
        new, gone = _jsonl(text, terms, ids)
        if not gone:
            return None
        ed = FileEdit(path, "lines", [_short(g) for g in gone], new if new.strip() else None)
        ed.form = form
        return ed
    if not terms.mentions(text):
        return None
    name = path.name
    try:
        if path.suffix == ".json":
            kind, (new, gone) = "json", _json(text, terms)
        elif name in ("MEMORY.md", "USER.md") or ENTRY_SEP in text:
            kind, (new, gone) = "entries", _entries(text, terms)
        elif "episodes" in path.parts or HEADING.search(text):
            kind, (new, gone) = "blocks", _blocks(text, terms)
        else:
            kind, (new, gone) = "lines", _lines(text, terms)
    except ValueError:
        kind, (new, gone) = "lines", _lines(text, terms)
    if not gone:
        return None
    edit = FileEdit(path, kind, [_short(g) for g in gone], new, form=form)
    if not new.strip() or (kind == "entries" and not new.replace(ENTRY_SEP, "").strip()):
        edit.new_data = None
    return edit


def apply_edit(edit: FileEdit) -> bool:
    if edit.problem:
        return False
    if edit.new_data is None:
        scrub_file(edit.path)
    else:
        scrub_replace(edit.path, edit.new_bytes())
    return True


def workspace_files(workspace: str | Path | None) -> list[Path]:
    """The memory files of an agent's workspace (never its source code)."""
    if not workspace:
        return []
    ws = Path(workspace).expanduser()
    out: list[Path] = []
    for rel in WORKSPACE_FILES:
        p = ws / rel
        if p.is_file():
            out.append(p)
    for rel in WORKSPACE_DIRS:
        d = ws / rel
        if d.is_dir():
            out += sorted(p for p in d.rglob("*") if p.is_file() and not p.name.endswith(".lock"))
    seen, uniq = set(), []
    for p in out:
        if p.resolve() not in seen:
            seen.add(p.resolve())
            uniq.append(p)
    return uniq

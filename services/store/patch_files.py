"""Applying a unified diff an agent proposed for its own memory files (Gemini CLI's Auto
Memory writes ``memory/.inbox/<kind>/extraction.patch`` and waits for approval).

All or nothing: every hunk of every file is placed first (at its line, or the nearest place
its context matches); only when all fit are the files written, each atomically. A patch that
no longer fits (the file changed since) is refused with the file and hunk it stopped at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from services.errors import InvalidInput
from services.store.atomic import atomic_write

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class FilePatch:
    old: str | None  # None: the file is new
    new: str | None  # None: the file is removed
    hunks: list[tuple[int, list[str]]] = field(default_factory=list)  # (old start, lines)


def _path(word: str) -> str | None:
    word = word.split("\t", 1)[0].strip()
    if word == "/dev/null":
        return None
    return word[2:] if word.startswith(("a/", "b/")) and not Path(word).is_absolute() else word


def parse_patch(text: str) -> list[FilePatch]:
    out: list[FilePatch] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            out.append(FilePatch(_path(lines[i][4:]), _path(lines[i + 1][4:])))
            i += 2
            continue
        m = _HUNK.match(lines[i])
        if m and out:
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i][:1] in (" ", "+", "-", "\\", ""):
                if (
                    lines[i].startswith("--- ")
                    and i + 1 < len(lines)
                    and lines[i + 1].startswith("+++ ")
                ):
                    break
                if not lines[i].startswith("\\"):
                    body.append(lines[i] if lines[i] else " ")
                i += 1
            out[-1].hunks.append((int(m.group(1)), body))
            continue
        i += 1
    if not out or not any(fp.hunks for fp in out):
        raise InvalidInput("the patch holds no change Engram can read (not a unified diff)")
    return out


def _place(src: list[str], start: int, body: list[str]) -> int | None:
    want = [ln[1:] for ln in body if ln[:1] in (" ", "-")]
    if not want:
        return min(max(start, 0), len(src))
    for off in range(len(src) + 1):
        for at in (start - off, start + off):
            if 0 <= at <= len(src) - len(want) and src[at : at + len(want)] == want:
                return at
    return None


def _inside(name: str, base: Path | None) -> Path:
    """Where ``name`` points, refused unless it stays inside ``base`` once ``~``, ``..`` and
    symlinks are resolved: Gemini CLI only ever writes its own memory folder, and a proposal
    is text an agent wrote, so it must not reach ``~/.bashrc``."""
    path = Path(name).expanduser() if name.startswith("~") else Path(name)
    target = path if path.is_absolute() or base is None else base / path
    if base is not None:
        root = base.resolve()
        if not target.resolve().is_relative_to(root):
            raise InvalidInput(
                f"the patch changes {name}, outside the Gemini memory folder {root}; "
                "nothing was applied"
            )
    return target


def patched(patch: FilePatch, base: Path | None = None) -> tuple[Path, str | None]:
    """The file the patch changes and its new text (None: removed)."""
    name = patch.new or patch.old
    assert name is not None
    for other in {patch.old, patch.new} - {None, name}:
        _inside(str(other), base)
    target = _inside(name, base)
    src = target.read_text(encoding="utf-8").splitlines() if patch.old is not None else []
    if patch.old is not None and not target.exists():
        raise InvalidInput(f"{target} does not exist any more; the patch cannot be applied")
    shift = 0
    for n, (start, body) in enumerate(patch.hunks, 1):
        at = _place(src, start - 1 + shift, body)
        if at is None:
            raise InvalidInput(
                f"{target} changed since the patch was written (hunk {n} no longer fits); "
                "nothing was applied"
            )
        old_len = sum(1 for ln in body if ln[:1] in (" ", "-"))
        new = [ln[1:] for ln in body if ln[:1] in (" ", "+")]
        src[at : at + old_len] = new
        shift += len(new) - old_len
    return target, (None if patch.new is None else "\n".join(src) + ("\n" if src else ""))


def apply_patch_file(patch_file: Path) -> list[Path]:
    """Apply ``patch_file`` to the files it names (relative names: beside the patch's memory
    folder) and return them."""
    text = Path(patch_file).read_text(encoding="utf-8")
    base = _memory_root(Path(patch_file))
    results = [patched(fp, base) for fp in parse_patch(text)]  # all placed before any write
    for target, body in results:
        if body is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, body)
    return [t for t, _ in results]


def _memory_root(patch_file: Path) -> Path:
    """``<memory>/.inbox/<kind>/extraction.patch`` → ``<memory>``."""
    for parent in patch_file.parents:
        if parent.name == ".inbox":
            return parent.parent
    return patch_file.parent

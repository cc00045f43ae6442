"""Gemini CLI's private project memory (since ``save_memory`` went away in 2026):
``~/.gemini/tmp/<project slug>/memory/`` holds ``MEMORY.md`` (the index loaded into every
session) and sibling topic notes ``*.md``. The slug comes from ``~/.gemini/projects.json``
(``{"projects": {"/abs/path": "slug"}}``); builds before it used the sha256 of the project
path as the folder name.

Auto Memory proposes changes as unified diffs in ``memory/.inbox/<kind>/extraction.patch``
(``private`` or ``global``) and waits for approval: each pending patch becomes one item in
Engram's review inbox (accept applies it, reject removes it; see ``services.store.review``).
Index lines that only point at a sibling note are not facts; ``skills/`` are not memory.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from services.interop.importers.base import ImportedFact, ParsedSource
from services.interop.importers.claude_memory import _only_links
from services.interop.importers.common import file_time, infer_category, read_text, slug
from services.interop.importers.mdsplit import split_statements
from services.interop.importers.native import (
    open_note,
    rel_name,
    section_tags,
    source_meta,
    statement_fact,
)

FORMAT = "gemini-memory"
INDEX = "MEMORY.md"
INBOX = ".inbox"


def folder_of(path: Path) -> Path | None:
    d = path if path.is_dir() else path.parent
    if d.name != "memory" and (d / "memory").is_dir():
        d = d / "memory"
    parts = d.resolve().parts
    if len(parts) >= 4 and parts[-1] == "memory" and parts[-3] == "tmp" and parts[-4] == ".gemini":
        return d if d.is_dir() else None
    return None


def detect(path: Path) -> bool:
    return folder_of(path) is not None


def project_name(folder: Path) -> str:
    """The project a memory folder belongs to: its path in ``projects.json`` (or, for a hash
    folder, the recorded path whose sha256 it is)."""
    gemini, key = folder.parent.parent.parent, folder.parent.name
    for path in known_projects(gemini):
        if registry_slug(gemini, path) == key or hashlib.sha256(path.encode()).hexdigest() == key:
            return slug(Path(path).name)
    root = folder.parent / ".project_root"  # the ownership marker Gemini CLI leaves
    try:
        return slug(Path(root.read_text(encoding="utf-8").strip()).name)
    except OSError:
        return slug(key if len(key) < 40 else key[:8])


def _registry(gemini: Path) -> dict[str, str]:
    try:
        data = json.loads((gemini / "projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return {k: v for k, v in (projects or {}).items() if isinstance(v, str)}


def known_projects(gemini: Path) -> list[str]:
    return sorted(_registry(gemini))


def registry_slug(gemini: Path, project_path: str) -> str | None:
    return _registry(gemini).get(project_path)


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    folder = folder_of(path) or (path if path.is_dir() else path.parent)
    out = ParsedSource(format=FORMAT, root=folder.resolve())
    project = project_name(folder.resolve())
    names = {p.name for p in folder.glob("*.md")}
    files = [path] if path.is_file() else sorted(p for p in folder.glob("*.md") if p.name != INDEX)
    if path.is_dir() and (folder / INDEX).is_file():
        files.insert(0, folder / INDEX)
    for f in files:
        _parse_file(f, folder, project, names, out)
    if path.is_dir():
        for patch in sorted((folder / INBOX).glob("*/extraction.patch")):
            _proposal(patch, folder, project, out)
    return out


def _parse_file(f: Path, folder: Path, project: str, names: set[str], out: ParsedSource) -> None:
    note = open_note(f, folder, out)
    if note is None:
        return
    rel, _, body, first = note
    meta = source_meta(FORMAT, f.resolve(), agent="gemini", project=project, origin="agent")
    created = file_time(f)
    for st in split_statements(body, first):
        if f.name == INDEX and _only_links(st.text, names):
            continue
        tags = ["gemini-memory", *section_tags(st.sections)]
        out.facts.append(
            statement_fact(
                st, rel, category=infer_category(st.text), meta=meta, created=created, tags=tags
            )
        )


def _proposal(patch: Path, folder: Path, project: str, out: ParsedSource) -> None:
    """One pending Auto Memory patch: the lines it would add, waiting in the review inbox."""
    from services.store.patch_files import parse_patch
    from services.store.review import review_metadata

    rel = rel_name(patch, folder)
    text, problems = read_text(patch, rel)
    out.problems.extend(problems)
    if text is None:
        return
    try:
        files = parse_patch(text)
    except Exception as exc:  # a damaged proposal is reported, the memory still imports
        from services.interop.importers.base import ImportProblem

        out.problems.append(ImportProblem(rel, None, str(exc)))
        return
    added = [
        ln[1:].strip()
        for fp in files
        for _, body in fp.hunks
        for ln in body
        if ln.startswith("+")
        and ln[1:].strip()
        and not _only_links(
            ln[1:], {p.name for p in folder.glob("*.md")} | {Path(fp.new or "").name}
        )
    ]
    if not added:
        return
    kind = patch.parent.name
    targets = sorted({Path(fp.new or fp.old or "").name for fp in files})
    meta = {
        **source_meta(FORMAT, patch.resolve(), agent="gemini", project=project, origin="agent"),
        **review_metadata("agent-inbox", patch_file=str(patch.resolve()), files=targets, kind=kind),
    }
    out.facts.append(
        ImportedFact(
            content="\n".join(added),
            category=infer_category(" ".join(added)),
            created_at=file_time(patch),
            event_date=file_time(patch).date(),
            tags=["gemini-memory", "gemini-inbox", kind],
            source_ref=f"{rel}:1",
            status="pending",
            confidence=0.6,
            metadata=meta,
        )
    )

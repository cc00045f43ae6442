"""Verifying the agents' own files: every native file linked to the verified agents and
every one discovered on the machine is read as folded text (``matching.fold``: the same
comparison the forget made), and the history of a Codex memories repository is read with
``git log -p``. A file linked only to another Engram agent is that agent's (``shared``)."""

from __future__ import annotations

from pathlib import Path

from services.forget.files import Terms
from services.store.handle import EngramHandle


def _real(p: Path) -> Path:
    try:
        return Path(p).resolve()
    except OSError:
        return Path(p)


def native_places(engram: EngramHandle, target, others) -> tuple[dict[Path, str], dict[Path, str]]:
    """(files an agent loads that this verify answers for, files of other agents only)."""
    from services.forget.native_files import discovered_files, linked_files

    mine: dict[Path, str] = {}
    for a in target:
        for p, f in linked_files(engram, a).items():
            mine.setdefault(_real(p), f)
    theirs: dict[Path, str] = {}
    for a in others:
        for p, f in linked_files(engram, a).items():
            if _real(p) not in mine:
                theirs.setdefault(_real(p), f)
    for p, f in discovered_files(engram.config.data_dir).items():
        if _real(p) not in theirs:
            mine.setdefault(_real(p), f)
    return mine, theirs


def engram_text_files(engram: EngramHandle, target) -> list[Path]:
    """Engram's own text files about the verified agents (compiled layers, exports,
    workspace memory files): read folded too, since a raw byte scan does not see
    "Frob\u00adnitz" as "Frobnitz"."""
    from services.forget.files import workspace_files
    from services.forget.raw_scan import iter_files
    from services.interop.export_log import exports

    out: list[Path] = []
    slugs = {a.slug for a in target}
    for a in target:
        out += [p for p in iter_files(engram.config.agent_dir(a.slug)) if p.suffix in _TEXT]
        out += workspace_files(a.workspace)
    for ex in exports(engram.config.data_dir):
        if ex.get("agent") in slugs and Path(ex["path"]).suffix in _TEXT:
            out.append(Path(ex["path"]))
    return out


_TEXT = {".md", ".json", ".jsonl", ".txt"}


class _Unreadable(list):
    """A file verify cannot decode: it cannot say the text is gone, so the file is named
    among what remains, with why."""

    def __init__(self, rep) -> None:
        super().__init__()
        self.rep = rep

    def append(self, item: tuple[Path, str]) -> None:
        p, why = item
        self.rep.remaining.append(("unreadable", f"{p}: cannot read ({why})"))


def check_engram_text(engram: EngramHandle, rep, t: Terms, target) -> None:
    from services.forget.native import scan_native

    files = {_real(p): "" for p in engram_text_files(engram, target) if p.is_file()}
    said = " ".join(d for _, d in rep.remaining)
    for p, lines in scan_native(files, t, _Unreadable(rep)):
        if str(p) not in said:
            rep.remaining.append(("text", f"{p}, line(s) {', '.join(map(str, lines[:20]))}"))
    rep.checked.append(
        ("Engram's text files", f"{len(files)} file(s) (layers, exports, workspace), folded text")
    )


def check_native(engram: EngramHandle, rep, t: Terms, texts: list[str], target, others) -> None:
    from services.forget.git_history import history_mentions, is_agent_memory_repo, repo_of
    from services.forget.native import scan_native

    check_engram_text(engram, rep, t, target)
    mine, theirs = native_places(engram, target, others)
    hits = dict(scan_native(mine, t, _Unreadable(rep)))
    for p in sorted(mine):
        rep.checked.append((f"checked {p}", f"{mine[p] or 'native file'}, folded text"))
        if p in hits:
            at = ", ".join(map(str, hits[p][:20]))
            rep.remaining.append(("native", f"{p} ({mine[p]}), line(s) {at}"))
    for p, lines in scan_native(theirs, t):
        rep.shared.append(("native", f"{p} (imported by another agent), line(s) {lines[:20]}"))
    repos = {r for p in mine if (r := repo_of(p)) is not None and is_agent_memory_repo(r)}
    for r in sorted(repos):
        rep.checked.append((f"checked {r}/.git", "every commit's patch and message"))
        if history_mentions(r, texts):
            rep.remaining.append(("git history", f"{r}: some commits still hold it"))

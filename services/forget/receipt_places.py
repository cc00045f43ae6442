"""The forget receipt as places (issue 36): each place a forgotten memory could live — its
rows, the full-text index, the vectors, the compiled files, each agent file, git history —
with what the forget did there, and the verification that read the store's bytes after it.
Counts and paths only, as the receipt keeps them (never the text)."""

from __future__ import annotations

from dataclasses import dataclass, field

OK, NOTHING, LEFT, PENDING = "erased", "nothing there", "left", "not done"


@dataclass(frozen=True)
class Place:
    name: str
    count: int  # items erased there
    outcome: str  # erased | nothing there | left | not done
    detail: str = ""


@dataclass
class ReceiptPicture:
    id: int
    created_at: str
    agent: str | None
    kind: str
    places: list[Place] = field(default_factory=list)
    verified: bool = False  # the raw-bytes check found nothing left
    remaining: int = 0
    strings_verified: int = 0
    incomplete: list[str] = field(default_factory=list)


# a place, the receipt's counts that erased there, and the counts that say something is left
_PLACES: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    ("Rows", ("facts", "history_events", "episodes", "session_logs", "kept_facts_metadata"), ()),
    ("Full-text index", ("fts_entries",), ()),
    ("Vectors", ("vectors",), ()),
    ("Compiled files", ("compiled_layers", "layer_files", "exports"), ()),
    ("Workspace files", ("workspace_entries", "workspace_files", "files_rewritten"), ()),
    ("Git history", ("git_histories_rewritten",), ("git_histories_keeping_text",)),
    ("Backups", ("backups", "native_backups"), ()),
]  # fmt: skip


def _agent_files(c: dict) -> list[Place]:
    """One place per agent file the forget touched (the receipt names each path)."""
    out = [Place(f"Agent file {p}", 1, OK) for p in c.get("native_rewritten_files", []) or []]
    for entry in c.get("native_not_erased_files", []) or []:
        path, _sep, why = str(entry).partition(": ")
        out.append(Place(f"Agent file {path}", 0, LEFT, why))
    if not out:
        n = int(c.get("native_files_rewritten", 0) or 0)
        left = int(c.get("native_not_erased", 0) or 0)
        out.append(
            Place(
                "Agent files",
                n,
                LEFT if left else (OK if n else NOTHING),
                f"{left} not erased" if left else "",
            )
        )
    return out


def picture(receipt: dict) -> ReceiptPicture:
    c = dict(receipt.get("counts") or {})
    incomplete = (
        [str(s) for s in c.get("incomplete", []) or []]
        if isinstance(c.get("incomplete"), list)
        else []
    )
    pic = ReceiptPicture(
        int(receipt["id"]),
        str(receipt.get("created_at", "")),
        receipt.get("agent"),
        str((receipt.get("scope") or {}).get("kind", "")),
        incomplete=incomplete,
    )
    for name, erased, left in _PLACES:
        n = sum(int(c.get(k, 0) or 0) for k in erased)
        kept = sum(int(c.get(k, 0) or 0) for k in left)
        outcome = LEFT if kept else (OK if n else NOTHING)
        detail = f"{kept} kept the text" if kept else ""
        if name == "Rows" and n:
            detail = "facts, their history, episodes and session logs"
        pic.places.append(Place(name, n, outcome, detail))
    pic.places[4:4] = _agent_files(c)
    if incomplete:
        pic.places.append(
            Place("Steps still to run", len(incomplete), PENDING, ", ".join(incomplete))
        )
    pic.remaining = int(c.get("remaining_after_verify", 0) or 0)
    pic.strings_verified = int(c.get("strings_verified", 0) or 0)
    pic.verified = "remaining_after_verify" in c and pic.remaining == 0 and not incomplete
    return pic

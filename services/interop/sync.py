"""Two-way sync between an agent's facts and its Memory Setup workspace files.

``<workspace>/memories/MEMORY.md`` (and ``USER.md``) hold ``§``-separated entries
``[YYYY-MM-DD][category] content`` after a header preamble. Engram and the agent both edit
them; ``sync_workspace`` reconciles the two:

* every synced entry is *linked* to one fact. The link remembers, as hashes only (no memory
  text on disk outside the store), the entry text and the fact's rendering at the last sync,
  in ``<agent data dir>/sync-state.json``;
* a side whose hash moved has changed. One side changed → the change is copied to the other
  (an entry edit edits the fact, a removed entry archives the fact, a fact edit rewrites the
  entry, a fact deleted/archived/superseded removes the entry). Both changed to different
  texts → a *conflict*: neither side is touched and the report says so until the user makes
  them agree (or syncs with ``prefer="engram"|"file"``);
* entries new in the file become facts (through the ingest pipeline: redaction, forget rules,
  dedup); active facts not in any file are appended to MEMORY.md.

Entries are matched to their links by hash wherever they moved, and changed ones by
resemblance to the fact's text, so an agent that rewrites an entry is seen as editing it,
one that reorders entries changes nothing, and one that removes an entry and writes another
is not mistaken for an edit. Entries are read with the Memory Setup importer (``parse_source(path,
"memory-setup")``: its category aliases and date checks), so a synced entry becomes the
same fact an import makes. Blocks that are not single entries (the preamble, free text,
Hermes-style undated lines, several entries in one block) are kept byte for byte and not
synced. Files are written atomically and only if nobody changed them while we were syncing.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import overload

from services.errors import InvalidInput
from services.ingest.pipeline import NewFact
from services.interop.export import memory_md_entry, render_memory_md
from services.records import RememberStatus
from services.store.atomic import atomic_write
from services.store.facts import FactFilters
from services.store.filelock import exclusive_lock
from services.store.handle import MemoryHandle
from services.store.text import content_hash

STATE_FILE = "sync-state.json"
FILES = ("MEMORY.md", "USER.md")
ENTRY = re.compile(r"^\[(\d{4}-\d{2}-\d{2})\]\[([^\]\n]+)\][ \t]*(.*)\Z", re.S)
SEP = re.compile(r"(\n[ \t]*§[ \t]*\n)")
LINE_PREFIX = re.compile(r"^\[\d{4}-\d{2}-\d{2}\]\[", re.M)


@dataclass
class SyncConflict:
    file: str
    fact_id: int | None
    file_text: str | None  # None: the entry was removed from the file
    engram_text: str | None  # None: the fact was deleted or is no longer active
    reason: str

    def to_json(self) -> dict:
        return self.__dict__.copy()


@dataclass
class SyncReport:
    pulled: int = 0  # changes taken from the files into Engram
    pushed: int = 0  # changes written from Engram into the files
    conflicts: list[SyncConflict] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # one readable line per change
    files: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "pulled": self.pulled,
            "pushed": self.pushed,
            "conflicts": [c.to_json() for c in self.conflicts],
            "changes": self.changes,
            "files": self.files,
        }


# the file's layout -------------------------------------------------------------------------
class EntryFile:
    """A ``§`` file as blocks; block 0 is the preamble. Joining gives the bytes back."""

    def __init__(self, path: Path):
        self.path = path
        self.present: set[str] = set()  # content hashes of every memory the file holds
        self.raw = path.read_bytes() if path.exists() else None
        text = "\n" + (self.raw or b"").decode("utf-8")
        parts = SEP.split(text)
        self.blocks = parts[0::2]
        self.seps = parts[1::2]
        self.plain = self._plain_style()

    def _plain_style(self) -> bool:
        """A Hermes-style file: its entries are bare text between ``§`` lines, with no
        ``[date][category]`` prefix and no header. Entries read and written in it keep that
        syntax (a Memory Setup entry appended to it would be another tool's syntax)."""
        # one ``§`` at least: a Markdown note without separators is not a Hermes file
        if not self.raw or not self.seps or any(_is_entry(b) for b in self.blocks[1:]):
            return False
        first = self.blocks[0].strip()
        return not (LINE_PREFIX.search(first) or first.startswith("#"))

    def render(self, fact) -> str:
        """A fact as an entry of this file, in the file's own syntax."""
        return fact.content if self.plain else memory_md_entry(fact)

    def text(self) -> str:
        out = [self.blocks[0]]
        for sep, block in zip(self.seps, self.blocks[1:]):
            out += [sep, block]
        return "".join(out)[1:]

    def entries(self) -> list[tuple[int, str]]:
        """(block index, entry text) for every block that is an entry."""
        if self.plain:  # every block with text is an entry, the first one included
            return [(i, b.strip()) for i, b in enumerate(self.blocks) if b and b.strip()]
        return [(i, b.strip()) for i, b in enumerate(self.blocks) if i > 0 and _is_entry(b)]

    def first_lines(self) -> dict[int, int]:
        """Block index → 1-based line number of its first non-blank line."""
        out, line = {}, 0  # the virtual leading "\n" makes block 0 start on line 1
        for i, block in enumerate(self.blocks):
            if i > 0:
                line += self.seps[i - 1].count("\n")
            lead = block[: len(block) - len(block.lstrip())]
            out[i] = line + lead.count("\n") + (1 if i == 0 and not lead else 0)
            line += block.count("\n")
        return out

    def parsed(self) -> dict[int, object]:
        """Block index → the Memory Setup importer's reading of that entry (its category
        aliases and date checks, so a synced entry becomes the same fact an import makes).
        Blocks the importer splits into several facts are left to ``parse_entry``."""
        if self.raw is None:
            return {}
        from services.interop.importers.base import ImportFormatError
        from services.interop.importers.service import parse_source

        try:
            facts = parse_source(self.path, "memory-setup").facts
        except ImportFormatError:  # the importer refuses the file: the plain reading stays
            return {}
        self.present = {content_hash(f.content) for f in facts}
        by_line: dict[int, list] = {}
        for f in facts:
            try:
                by_line.setdefault(int(str(f.source_ref).rsplit(":", 1)[1]), []).append(f)
            except (IndexError, ValueError):
                continue
        starts = self.first_lines()
        ends = {i: starts.get(i + 1, 10**9) for i in starts}
        out = {}
        for i, start in starts.items():
            inside = [f for ln, fs in by_line.items() if start <= ln < ends[i] for f in fs]
            if i > 0 and len(inside) == 1 and start in by_line:
                out[i] = inside[0]
        return out

    def replace(self, i: int, entry: str) -> None:
        b = self.blocks[i]
        lead = b[: len(b) - len(b.lstrip())]
        trail = b[len(b.rstrip()) :]
        self.blocks[i] = lead + entry + trail

    def remove(self, i: int) -> None:
        self.blocks[i] = None

    def append(self, entry: str) -> None:
        last = self.blocks[-1]
        trail = last[len(last.rstrip()) :] if last is not None else "\n"
        if len(self.blocks) > 1 or (last or "").strip():
            self.blocks[-1] = last.rstrip() if last is not None else last
        self.seps.append("\n§\n")
        self.blocks.append(entry + (trail or "\n"))

    def compact(self) -> None:
        if self.blocks[0] is None:  # a plain file's first entry went: the next one is first
            nxt = next((i for i, b in enumerate(self.blocks) if b is not None), None)
            if nxt is None:
                self.blocks, self.seps = ["\n"], []
                return
            self.blocks = ["\n" + self.blocks[nxt]] + self.blocks[nxt + 1 :]
            self.seps = self.seps[nxt:]
        blocks, seps = [self.blocks[0]], []
        for sep, block in zip(self.seps, self.blocks[1:]):
            if block is not None:
                seps.append(sep)
                blocks.append(block)
        if self.blocks[-1] is None and len(blocks) > 1 and not blocks[-1].endswith("\n"):
            blocks[-1] += "\n"  # the removed last entry carried the file's final newline
        self.blocks, self.seps = blocks, seps


def _is_entry(block: str | None) -> bool:
    m = ENTRY.match((block or "").strip())
    if m is None or not m.group(3).strip():
        return False
    if LINE_PREFIX.search(m.group(3)):
        return False  # several entries in one block: kept as written, not synced
    try:
        date.fromisoformat(m.group(1))
    except ValueError:
        return False  # an impossible date: not an entry we can sync, kept as it is
    return True


def parse_entry(text: str, imported=None) -> tuple[date, str, str, dict]:
    """(day, category, content, extra NewFact fields) of one entry."""
    if imported is not None and imported.event_date is not None:
        return (
            imported.event_date,
            imported.category,
            imported.content,
            {"tags": list(imported.tags), "metadata": dict(imported.metadata)},
        )
    m = ENTRY.match(text.strip())
    if m is None:
        raise InvalidInput(f"not a Memory Setup entry: {text[:60]!r}")
    try:
        day = date.fromisoformat(m.group(1))
    except ValueError:
        raise InvalidInput(f"impossible date in entry {text[:60]!r}") from None
    return day, m.group(2).strip(), m.group(3).strip(), {}


SIMILAR = 0.5  # difflib ratio from which a changed entry counts as an edit of the old one
MAX_COMPARISONS = 40_000  # beyond this many changed pairs, changes count as remove + add


def _similarity(entry: str, fact) -> float:
    m = ENTRY.match(entry)
    body = m.group(3) if m else entry
    return difflib.SequenceMatcher(a=body, b=fact.content, autojunk=False).ratio()


@overload
def _h(text: str) -> str: ...
@overload
def _h(text: None) -> None: ...
@overload
def _h(text: str | None) -> str | None: ...
def _h(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:32]


# where -------------------------------------------------------------------------------------
def memories_dir(memory: MemoryHandle) -> Path:
    ws = memory.info.workspace
    if not ws:
        raise InvalidInput(
            f"agent {memory.slug!r} has no workspace; set one with "
            f"`engram agent add {memory.slug} --workspace DIR` or in the app"
        )
    root = Path(ws).expanduser()
    if (root / "memories").is_dir() or not (root / "MEMORY.md").exists():
        return root / "memories"
    return root


def _load_state(memory: MemoryHandle) -> dict:
    p = memory.data_dir / STATE_FILE
    try:
        state = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"version": 1, "files": {}}
    except json.JSONDecodeError:
        raise InvalidInput(
            f"{p} is damaged; delete it to start the sync over "
            "(entries are then matched by their text)"
        ) from None
    return state


def _save_state(memory: MemoryHandle, state: dict) -> None:
    atomic_write(memory.data_dir / STATE_FILE, json.dumps(state, indent=1, sort_keys=True) + "\n")


def watched_paths(memory: MemoryHandle) -> list[Path]:
    """What the app's file watcher watches to sync when an agent writes (the folder too, so
    a file created or replaced by rename is seen)."""
    folder = memories_dir(memory)
    return [folder] + [folder / name for name in FILES]


def workspace_signature(memory: MemoryHandle) -> tuple:
    """Cheap to poll (stat only): changes when an agent writes MEMORY.md/USER.md, so an
    app timer can run ``sync_workspace`` only then (QFileSystemWatcher loses files that
    are replaced by rename, as atomic writers do)."""
    out: list[tuple[str, int | None, int | None, int | None]] = []
    for p in watched_paths(memory)[1:]:
        try:
            st = p.stat()
            out.append((p.name, st.st_mtime_ns, st.st_size, st.st_ino))
        except FileNotFoundError:
            out.append((p.name, None, None, None))
    return tuple(out)


def sync_lock(agent_dir: Path):
    """One sync per agent at a time (the app's watcher and `engram sync` may overlap, and a
    forget holds it while the workspace's files and the rows disagree)."""
    return exclusive_lock(agent_dir / ".sync.lock")


# the sync ----------------------------------------------------------------------------------
def sync_workspace(
    memory: MemoryHandle, direction: str = "both", prefer: str | None = None, dry_run: bool = False
) -> SyncReport:
    if direction not in ("both", "pull", "push"):
        raise InvalidInput("direction must be both, pull or push")
    if prefer not in (None, "engram", "file"):
        raise InvalidInput("prefer must be engram or file")
    with sync_lock(memory.data_dir):
        return _sync(memory, direction, prefer, dry_run)


def _sync(memory: MemoryHandle, direction, prefer, dry_run) -> SyncReport:
    pull, push = direction in ("both", "pull"), direction in ("both", "push")
    folder = memories_dir(memory)
    state = _load_state(memory)
    report = SyncReport()
    if state.get("folder") not in (None, str(folder)):
        # another workspace: its links say nothing about these files (and must not read as
        # "every entry was removed"); start over, matching entries to facts by their text
        report.changes.append(f"workspace changed from {state['folder']}: links reset")
        state["files"] = {}
    state["folder"] = str(folder)
    linked_anywhere = {l["fact"] for f in state["files"].values() for l in f["links"]}
    files = {name: EntryFile(folder / name) for name in FILES}
    new_links: dict[str, list[dict]] = {}
    for name, ef in files.items():
        links = state["files"].get(name, {}).get("links", [])
        if ef.raw is None and (links or name != "MEMORY.md"):
            # a file that vanished (unmounted workspace?) must not archive every fact in it
            new_links[name] = links
            if links:
                report.changes.append(f"{ef.path} is missing: skipped, nothing changed")
            continue
        report.files.append(str(ef.path))
        new_links[name] = _sync_file(
            memory, name, ef, links, linked_anywhere, report, pull, push, prefer, dry_run
        )
    if push and str(files["MEMORY.md"].path) in report.files:
        _push_new(memory, files, new_links, report, dry_run)
    if dry_run:
        return report
    for ef in files.values():
        if str(ef.path) in report.files:
            _write(ef, report)
    state["files"] = {name: {"links": links} for name, links in new_links.items() if links}
    state["synced_at"] = datetime.now().isoformat(timespec="seconds")
    _save_state(memory, state)
    if report.pulled or report.pushed:
        memory.engram.bus.emit(
            "sync.done",
            agent_id=memory.agent_id,
            pulled=report.pulled,
            pushed=report.pushed,
            conflicts=len(report.conflicts),
        )
    return report


def _sync_file(
    memory: MemoryHandle,
    name,
    ef: EntryFile,
    links,
    linked_anywhere,
    report,
    pull,
    push,
    prefer,
    dry_run,
) -> list[dict]:
    entries = ef.entries()
    parsed = ef.parsed()
    facts = memory.facts.rows([l["fact"] for l in links])
    pairs = _pair(links, entries, facts)

    kept: list[tuple[int, dict]] = []  # (block index for ordering, link)
    end = 10**9
    for link, j in pairs:
        if link is None:
            continue
        f = facts.get(link["fact"])
        alive = f is not None and f.status == "active"
        e_text = entries[j][1] if j is not None else None
        f_text = ef.render(f) if alive else None
        block = entries[j][0] if j is not None else None
        pos = block if block is not None else end
        file_moved = _h(e_text) != link["file"]
        fact_moved = _h(f_text) != link["fact_h"]
        if not file_moved and not fact_moved:
            kept.append((pos, link))
            continue
        if e_text is None and f_text is None:
            continue  # gone on both sides
        if file_moved and fact_moved and e_text != f_text and prefer is None:
            report.conflicts.append(
                SyncConflict(
                    name,
                    link["fact"],
                    e_text,
                    f_text,
                    "changed in Engram and in the file since the last sync",
                )
            )
            kept.append((pos, link))  # hashes stay: still a conflict next time, until resolved
            continue
        take_file = file_moved and (not fact_moved or prefer == "file" or e_text == f_text)
        if take_file and pull:
            new = _pull_change(
                memory,
                f,
                e_text,
                parsed.get(block) if block is not None else None,
                report,
                name,
                dry_run,
                ef,
            )
            if new is not None:
                kept.append((pos, {"fact": link["fact"], "file": _h(e_text), "fact_h": _h(new)}))
            continue
        if not take_file and push:
            if f_text is None:
                if block is not None:
                    ef.remove(block)
                report.changes.append(
                    f"{name}: removed entry of fact {link['fact']} "
                    f"({'deleted' if f is None else f.status} in Engram)"
                )
            else:
                if block is None:
                    ef.append(f_text)
                    pos = len(ef.blocks) - 1
                else:
                    ef.replace(block, f_text)
                report.changes.append(f"{name}: wrote fact {link['fact']}")
                kept.append((pos, {"fact": link["fact"], "file": _h(f_text), "fact_h": _h(f_text)}))
            report.pushed += 1
            continue
        kept.append((pos, link))  # the other direction was not asked for

    fresh = [entries[j] for link, j in pairs if link is None and j is not None]
    if fresh and pull:
        kept += _pull_new(memory, name, ef, fresh, parsed, linked_anywhere, report, dry_run)
    # links in file order: the next sync's diff of hash sequences relies on it
    return [link for _, link in sorted(kept, key=lambda t: t[0])]


def _pair(links, entries, facts) -> list[tuple[dict | None, int | None]]:
    """(link, entry index) pairs; a link without entry was removed from the file, an entry
    without link is new. Unchanged entries pair by hash wherever they moved to; a changed
    entry pairs with the link whose fact it still resembles (the fact's text is the old
    entry's: hashes are all the state keeps), best match first; else the agent removed one
    entry and wrote another."""
    free: dict[str, list[int]] = {}
    for j, (_, t) in enumerate(entries):
        free.setdefault(_h(t), []).append(j)
    pairs: list[tuple[dict | None, int | None]] = []
    lost: list[dict] = []
    for link in links:
        js = free.get(link["file"])
        if js:
            pairs.append((link, js.pop(0)))
        else:
            lost.append(link)
    left = sorted(j for js in free.values() for j in js)
    if lost and left and len(lost) * len(left) <= MAX_COMPARISONS:
        scored = []
        for a, link in enumerate(lost):
            f = facts.get(link["fact"])
            if f is None:
                continue
            for j in left:
                r = _similarity(entries[j][1], f)
                if r >= SIMILAR:
                    scored.append((-r, a, j))
        used_a, used_j = set(), set()
        for _, a, j in sorted(scored):
            if a not in used_a and j not in used_j:
                used_a.add(a)
                used_j.add(j)
                pairs.append((lost[a], j))
        lost = [l for a, l in enumerate(lost) if a not in used_a]
        left = [j for j in left if j not in used_j]
    pairs += [(link, None) for link in lost]
    pairs += [(None, j) for j in left]
    return pairs


def _pull_change(
    memory: MemoryHandle, f, e_text, imported, report, name, dry_run, ef
) -> str | None:
    """Copy a file-side change into the fact; returns the fact's new rendering."""
    if f is None:
        return None
    if e_text is None:  # the agent removed the entry: archive (reversible), don't delete
        if not dry_run:
            memory.facts.edit(f.id, status="archived", actor="sync")
        report.pulled += 1
        report.changes.append(f"{name}: entry removed → archived fact {f.id}")
        return None
    day, cat, content, _ = _read_entry(ef, e_text, imported, f)
    changes: dict = {}
    if content != f.content:
        changes["content"] = content
    if cat != f.category:
        changes["category"] = cat
    if day != (f.event_date or f.created_at.date()):
        changes["event_date"] = day
    if f.status != "active":
        changes["status"] = "active"
    if dry_run or not changes:
        new = f
    else:
        new = memory.edit(f.id, actor="sync", **changes)
    report.pulled += 1
    report.changes.append(f"{name}: entry edited → fact {f.id} updated")
    return ef.render(new)


def _read_entry(ef, text: str, imported=None, fact=None) -> tuple[date, str, str, dict]:
    """An entry's (day, category, content, extra); a plain (Hermes) entry is its text, with
    the fact's own day and category kept (the file says nothing about them)."""
    if not ef.plain:
        return parse_entry(text, imported)
    if fact is not None:
        return fact.event_date or fact.created_at.date(), fact.category, text.strip(), {}
    if imported is not None:
        return parse_entry(text, imported)
    return date.today(), "fact", text.strip(), {}


def _pull_new(
    memory: MemoryHandle, name, ef, entries, parsed, linked_anywhere, report, dry_run
) -> list[tuple[int, dict]]:
    items, texts = [], []
    for block, t in entries:
        day, cat, content, extra = _read_entry(ef, t, parsed.get(block))
        items.append(
            NewFact(
                content=content,
                category=cat,
                event_date=day,
                created_at=datetime(day.year, day.month, day.day),
                source="sync",
                source_ref=f"{ef.path}",
                tags=extra.get("tags", []),
                metadata={**extra.get("metadata", {}), "workspace_file": name},
            )
        )
        texts.append(t)
    if dry_run:
        report.pulled += len(items)
        return []
    links = []
    results = memory.remember_many(items, actor="sync", bump=False)
    for (block, t), r in zip(entries, results):
        if r.fact_id is None or r.fact_id in linked_anywhere:
            # blocked by a forget rule, empty, or a second copy of a synced entry: left alone
            if r.status == RememberStatus.BLOCKED:
                report.changes.append(f"{name}: entry not taken ({r.reason})")
            continue
        linked_anywhere.add(r.fact_id)
        f = memory.get(r.fact_id)
        links.append((block, {"fact": r.fact_id, "file": _h(t), "fact_h": _h(ef.render(f))}))
        if r.stored_new:
            report.pulled += 1
            report.changes.append(f"{name}: new entry → fact {r.fact_id}")
    return links


def _push_new(memory: MemoryHandle, files: dict, new_links, report, dry_run) -> None:
    ef = files["MEMORY.md"]
    linked = {l["fact"] for links in new_links.values() for l in links}
    # a memory the files already hold where sync does not link it (a block with several
    # entries, a USER.md profile line) is not appended a second time
    present = set().union(*(f.present for f in files.values()))
    facts = [
        f
        for f in memory.list(FactFilters(status="active"), order="created_at")
        if f.id not in linked and not _from_user_file(f) and content_hash(f.content) not in present
    ]
    if not facts:
        return
    if ef.raw is None and len(ef.blocks) == 1 and not ef.blocks[0].strip():
        ef.blocks[0] = "\n" + render_memory_md([]).rstrip("\n")
    links = new_links.setdefault("MEMORY.md", [])
    for f in facts:
        text = ef.render(f)
        ef.append(text)
        links.append({"fact": f.id, "file": _h(text), "fact_h": _h(text)})
        report.pushed += 1
        report.changes.append(f"MEMORY.md: appended fact {f.id}")


def _from_user_file(f) -> bool:
    """USER.md holds a profile; its facts are not copied into MEMORY.md."""
    return (f.metadata or {}).get("workspace_file") == "USER.md" or (f.source_ref or "").split(":")[
        0
    ].endswith("USER.md")


def _write(ef: EntryFile, report: SyncReport) -> None:
    ef.compact()
    text = ef.text()
    before = (ef.raw or b"").decode("utf-8")
    if text == before:
        return
    now = ef.path.read_bytes() if ef.path.exists() else None
    if now != ef.raw:
        raise InvalidInput(
            f"{ef.path} changed while syncing; nothing was written to it, run the sync again"
        )
    atomic_write(ef.path, text)

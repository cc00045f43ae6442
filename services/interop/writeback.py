"""Writing Engram's changes back into the files that are an agent's own memory: Claude Code
auto-memory topic files, the ``## Gemini Added Memories`` section of ``GEMINI.md`` and Codex's
``MEMORY.md``.

Importing such a file *links* each fact to the block of lines it came from, as hashes only
(the block's text and the fact's text at that moment), in ``<agent data dir>/writeback.json``.
``write_back`` then reconciles: a fact edited in Engram rewrites its block (the list marker and
indentation kept), a fact deleted, forgotten or archived removes its block, and every other
byte of the file stays as it was. A block the agent changed since the link, whose fact Engram
changed too, is a conflict: neither side is touched and the report says so (exit 4 in the
CLI), unless ``prefer="engram"``. A block the agent changed alone is the next import's
business, not ours. Files are written atomically and only if nobody wrote them meanwhile.

Links key on facts' uids (a row id is reused, above all by a restored backup) and carry a
mark, drawn anew at each save and kept in the store too (models/instance.py). A store that
does not hold the links' mark is older than the links (a restored backup, another copy wrote
back since): nothing is written and ``StoreBehindLinks`` says why. Links from before uids
(keyed by row ids) are re-keyed only where the id still names a fact with the linked text.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from models import instance as store_instance
from services.errors import EngramError, NotFound
from services.interop.importers import frontmatter, gemini, hermes
from services.interop.importers.claude_memory import merge_explanations
from services.interop.importers.mdsplit import Statement, split_statements
from services.interop.importers.native import block_hash
from services.interop.sync import SyncConflict, SyncReport
from services.store.atomic import atomic_write
from services.store.filelock import exclusive_lock
from services.store.handle import MemoryHandle
from services.store.uids import agent_uid, fact_uids

STATE_FILE = "writeback.json"
BOM = b"\xef\xbb\xbf"


def _h(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def writable(meta: dict) -> bool:
    """Is this imported fact's block the agent's own memory (so Engram may rewrite it)?"""
    fmt, path = meta.get("source_format"), str(meta.get("source_file") or "")
    name = Path(path).name
    if fmt == "claude-code-memory":
        return name != "MEMORY.md"
    if fmt == "instructions":
        return bool(meta.get("gemini_memory"))
    if fmt == "hermes":
        return True  # the agent's own entries, two-way
    if fmt in AGENT_WRITTEN:  # formats of agents' own memory folders
        return AGENT_WRITTEN[fmt](name, meta)
    return fmt == "codex-memory" and name == "MEMORY.md"


# format → whether a file's block is the agent's own memory (cut by plain ``split_statements``)
AGENT_WRITTEN = {
    "gemini-memory": lambda name, meta: name.endswith(".md"),
    "agent-rules": lambda name, meta: bool(meta.get("agent_memory")),
}


def statements(path: Path, text: str, fmt: str) -> list[Statement]:
    """The blocks a file's facts were imported from, as the importer cut them."""
    if fmt == "hermes":
        return hermes.statements(text)
    _, body, first = frontmatter.split(text)
    stmts = split_statements(body, first)
    if fmt == "claude-code-memory":
        return merge_explanations(stmts)
    if fmt == "instructions":
        return gemini.memories(body, first)
    return stmts


def _state_path(memory: MemoryHandle) -> Path:
    return memory.data_dir / STATE_FILE


STATE_VERSION = 2


class StoreBehindLinks(EngramError):
    """The store open now is older than the agent's write-back links: writing back from it
    would put old text (or another fact's text, under a reused id) into the agent's files."""


def _empty() -> dict:
    return {"version": STATE_VERSION, "links": {}}


def _load(memory: MemoryHandle) -> dict:
    try:
        state = json.loads(_state_path(memory).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _empty()
    except ValueError:
        return _empty()  # damaged: links start over at the next import
    return state if isinstance(state, dict) else _empty()


def _save(memory: MemoryHandle, state: dict) -> None:
    """A new mark in the store first, then the links file that names it (a crash between the
    two leaves the links one mark behind, which the store still accepts)."""
    uid = agent_uid(memory.agent_id)
    state["version"] = STATE_VERSION
    state["store"] = store_instance.instance(memory.db)
    state["mark"] = store_instance.new_writeback_mark(memory.db, uid)
    atomic_write(_state_path(memory), json.dumps(state, indent=1, sort_keys=True) + "\n")


def _behind(memory: MemoryHandle, state: dict) -> str | None:
    """Why the store is older than these links (None: it is not)."""
    if state.get("version") != STATE_VERSION or not state.get("links"):
        return None  # no links yet, or links from before marks (re-keyed by their text)
    marks = store_instance.writeback_marks(memory.db, agent_uid(memory.agent_id))
    if state.get("mark") in marks:
        return None
    return (
        f"the store is older than the write-back links of agent {memory.slug!r} (an older "
        "engram.db was put back, or another copy of the store wrote back since): nothing was "
        "written, every file was left as it is. Import the agent's memory files again to link "
        "them to this store."
    )


def _rekey_v1(memory: MemoryHandle, state: dict) -> dict:
    """Links from before uids, keyed by row ids: a link whose id still names a fact with the
    linked text is kept under the fact's uid; any other is dropped, never acted on."""
    old = state.get("links") or {}
    ids = [int(k) for k in old if str(k).isdigit()]
    uids = fact_uids(memory.agent_id, ids)
    links = {}
    for fid in ids:
        link = old[str(fid)]
        try:
            f = memory.get(fid)
        except NotFound:
            continue
        if fid in uids and _h(f.content) == link.get("fact"):
            links[uids[fid]] = {**link, "id": fid}
    return {"version": STATE_VERSION, "links": links}


def _current(memory: MemoryHandle) -> dict:
    """The agent's links as this version keeps them (old ones re-keyed); raises
    ``StoreBehindLinks`` when the store is older than them."""
    state = _load(memory)
    if state.get("version") != STATE_VERSION:
        return _rekey_v1(memory, state)
    why = _behind(memory, state)
    if why is not None:
        raise StoreBehindLinks(why)
    return state


def has_links(memory: MemoryHandle) -> bool:
    """Does this agent hold facts imported from files Engram can write back into?"""
    return bool(_load(memory).get("links"))


def link_imported(memory: MemoryHandle, fact_ids: list[int]) -> int:
    """Remember, for the writable facts just imported, which block each came from. A fact
    already linked keeps its link (its Engram-side hash must not forget an edit). Links made
    against a later state of the store than this one start over: the import just read what
    the files hold now."""
    try:
        state = _current(memory)
        # links re-keyed from before uids are saved as such
        changed = state.get("mark") is None and _state_path(memory).exists()
    except StoreBehindLinks:
        state, changed = _empty(), True
    links = state.setdefault("links", {})
    ids = list(dict.fromkeys(fact_ids))
    uids = fact_uids(memory.agent_id, ids)
    n = 0
    todo = [fid for fid in ids if uids.get(fid) is not None and uids[fid] not in links]
    from services.store import fact_rows

    # one query per chunk of ids: one ``get`` each was 70 % of a 4,000-fact import
    got = {r.id: r for r in fact_rows.rows(memory.agent_id, todo)}
    for fid in todo:
        uid, f = uids[fid], got.get(fid)
        if f is None:
            continue
        meta = f.metadata or {}
        if not writable(meta) or not meta.get("source_hash"):
            continue
        links[uid] = {
            "id": fid,
            "file": meta["source_file"],
            "format": meta["source_format"],
            "block": meta["source_hash"],
            "fact": _h(f.content),
        }
        n += 1
    if n or changed:
        _save(memory, state)
    return n


def _read(path: Path) -> tuple[bytes, str] | None:
    try:
        raw = path.read_bytes()
        bom = BOM if raw.startswith(BOM) else b""
        return raw, raw[len(bom) :].decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def render(st: Statement, lines: list[str], content: str) -> list[str]:
    """New lines for a block: the first line's marker and indentation kept."""
    first = lines[st.start - 1]
    cr = "\r" if first.endswith("\r") else ""
    new = content.split("\n")
    if st.kind == "bullet":
        body = first.rstrip("\r").lstrip(" \t")
        lead = first[: len(first) - len(first.lstrip(" \t"))]
        marker = body.split(" ", 1)[0] + " "
        pad = " " * (len(lead) + len(marker))
        new = [lead + marker + new[0]] + [pad + ln if ln.strip() else "" for ln in new[1:]]
    return [ln + cr for ln in new]


def writeback_lock(agent_dir: Path):
    """One write-back per agent at a time; a forget holds it while the agent's own files
    and the rows disagree."""
    return exclusive_lock(agent_dir / ".writeback.lock")


def write_back(
    memory: MemoryHandle, prefer: str | None = None, dry_run: bool = False
) -> SyncReport:
    """Raises ``StoreBehindLinks`` (and writes nothing) when the store is older than the
    agent's links."""
    with writeback_lock(memory.data_dir):
        report = SyncReport()
        try:
            state = _current(memory)
        except StoreBehindLinks:
            raise
        except Exception as exc:  # a store that cannot say which links are its own: no write
            report.conflicts.append(
                SyncConflict(
                    str(_state_path(memory)),
                    None,
                    None,
                    None,
                    f"could not read the store ({type(exc).__name__}: {exc}): the agent's "
                    "files were left untouched",
                )
            )
            return report
        by_file: dict[str, list[tuple[str, dict]]] = {}
        for uid, link in state.get("links", {}).items():
            by_file.setdefault(link["file"], []).append((uid, link))
        for file, links in sorted(by_file.items()):
            _file(memory, Path(file), links, state, report, prefer, dry_run)
        if not dry_run:
            _save(memory, state)
        return report


class _Doubt(Exception):
    """Reading a fact failed for a reason other than "it no longer exists"."""


def _uids_now(memory: MemoryHandle, links) -> dict[int, str]:
    """id → uid, now, of the rows the links name (a row id another fact took is not the
    linked fact)."""
    try:
        return fact_uids(memory.agent_id, [int(link["id"]) for _, link in links])
    except Exception as exc:
        raise _Doubt(f"{type(exc).__name__}: {exc}") from exc


def _fact(memory: MemoryHandle, uid: str, link: dict, uids_now: dict[int, str]):
    """The fact if Engram still keeps it active; None only when Engram *confirms* it is gone
    (no such row, its id now another fact's, or deleted/forgotten/archived). Any other error
    is a doubt, and a doubt never removes a user's text: the caller leaves the file alone and
    reports it."""
    try:
        f = memory.get(int(link["id"]))
    except NotFound:
        return None
    except Exception as exc:
        raise _Doubt(f"{type(exc).__name__}: {exc}") from exc
    if uids_now.get(f.id) != uid:
        return None
    return f if f.status in ("active", "pending") else None


def _not_writable(path: Path) -> str | None:
    """Why Engram must not rewrite this file (None: it may). A read-only file is the user
    saying "don't touch": it is reported, never replaced."""
    try:
        st = path.stat()
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        return "the file is read-only: not written back"
    return None


def _file(memory: MemoryHandle, path: Path, links, state, report, prefer, dry_run) -> None:
    got = _read(path)
    if got is None:
        return  # gone or unreadable: nothing to write into
    try:
        _plan_file(memory, path, got, links, state, report, prefer, dry_run)
    except _Doubt as exc:
        report.conflicts.append(
            SyncConflict(
                str(path),
                None,
                None,
                None,
                f"could not read a linked fact ({exc}): the file was left untouched",
            )
        )


def _plan_file(
    memory: MemoryHandle, path: Path, got, links, state, report, prefer, dry_run
) -> None:
    raw, text = got
    lines = text.split("\n")
    blocks = {block_hash(s): s for s in statements(path, text, links[0][1]["format"])}
    edits: list[tuple[Statement, list[str] | None, str, dict]] = []
    gone: list[str] = []
    uids_now = _uids_now(memory, links)
    # every doubt before any change
    facts = {uid: _fact(memory, uid, link, uids_now) for uid, link in links}
    for uid, link in links:
        f = facts[uid]
        st = blocks.get(link["block"])
        changed = f is None or _h(f.content) != link["fact"]
        if st is None:
            if f is None:
                gone.append(uid)
            elif changed and prefer != "file":
                report.conflicts.append(
                    SyncConflict(
                        str(path), f.id, None, f.content, "changed in the file and in Engram"
                    )
                )
            continue
        if not changed:
            continue
        edits.append((st, None if f is None else render(st, lines, f.content), uid, link))
    if not dry_run:
        for fid in gone:
            state["links"].pop(fid, None)
    if not edits:
        return
    why = _not_writable(path)
    if why is not None:
        report.conflicts.append(SyncConflict(str(path), None, None, None, why))
        return
    for st, new, uid, link in sorted(edits, key=lambda e: -e[0].start):
        fid = link["id"]
        if new is None:
            hermes_file = links[0][1]["format"] == "hermes"
            lo, hi = (hermes.removal_span if hermes_file else _removal_span)(lines, st)
            del lines[lo:hi]
            report.changes.append(f"{path.name}: removed the block of fact {fid} (line {st.start})")
            state["links"].pop(uid, None)
        else:
            lines[st.start - 1 : st.end] = new
            report.changes.append(f"{path.name}: rewrote line {st.start} from fact {fid}")
        report.pushed += 1
    if dry_run:
        return
    _finish(memory, path, raw, "\n".join(lines), state, report)


def _removal_span(lines: list[str], st: Statement) -> tuple[int, int]:
    lo, hi = st.start - 1, st.end
    blank_before = lo == 0 or not lines[lo - 1].strip()
    if blank_before and hi < len(lines) and not lines[hi].strip() and hi < len(lines) - 1:
        hi += 1  # don't leave two blank lines where the block was
    return lo, hi


def _finish(memory: MemoryHandle, path: Path, raw: bytes, text: str, state, report) -> None:
    now = _read(path)
    if now is None or now[0] != raw:
        report.conflicts.append(
            SyncConflict(str(path), None, None, None, "the file changed while Engram wrote it")
        )
        return
    bom = BOM if raw.startswith(BOM) else b""
    atomic_write(path, bom + text.encode("utf-8"))
    _relink(memory, path, text, state)
    if str(path) not in report.files:
        report.files.append(str(path))


def _relink(memory: MemoryHandle, path: Path, text: str, state) -> None:
    """After a write, every linked block of the file is found again by its new text."""
    links = {uid: ln for uid, ln in state["links"].items() if ln["file"] == str(path)}
    if not links:
        return
    stmts = statements(path, text, next(iter(links.values()))["format"])
    try:
        uids_now = _uids_now(memory, list(links.items()))
    except _Doubt:
        return  # the links stay as they were; the next write-back asks again
    for uid, link in links.items():
        try:
            f = _fact(memory, uid, link, uids_now)
        except _Doubt:
            continue  # its link stays as it was; the next write-back asks again
        if f is None:
            continue
        hit = next((s for s in stmts if s.text == f.content), None)
        if hit is not None:
            link["block"], link["fact"] = block_hash(hit), _h(f.content)

"""Proving a forget: nothing of the forgotten strings is left in any row or any file byte.

Logical places (fact rows, audit snapshots, episodes, session logs, compiled layers) are
read through the models; then every file under the data dir, the agent's workspace memory
files and the exports Engram wrote are read as raw bytes, case-insensitively; Chroma's HNSW
files are decoded and any stored vector that is the forgotten text's embedding is reported.

Scoped to one agent, hits in files every agent shares (the SQLite files, Chroma's sqlite,
store backups) are reported as ``shared`` when another agent legitimately holds the same
text, since raw bytes cannot say whose they are; that agent's own files are not read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from models import Agent, AuditEvent, CompiledLayer, Episode, Session
from services.errors import NotFound
from services.forget.files import Terms, workspace_files
from services.store import fact_rows
from services.store.backup import db_path
from services.store.handle import EngramHandle


@dataclass
class VerifyForgetReport:
    remaining: list[tuple[str, str]] = field(default_factory=list)  # (place, detail)
    shared: list[tuple[str, str]] = field(default_factory=list)  # raw hits other agents explain
    files_scanned: int = 0
    bytes_scanned: int = 0
    # agents whose HNSW segment files hold the text in bytes Chroma never initialised
    # (text is never legitimately there); rebuilding their index clears it
    stale_segments: set[int] = field(default_factory=set)
    # a team store: which guarantees the queries could prove (its bytes are the server's)
    guarantees: list[str] = field(default_factory=list)
    # every place read, with what was checked there: (place, what)
    checked: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.remaining

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "remaining": [list(r) for r in self.remaining],
            "shared": [list(r) for r in self.shared],
            "files_scanned": self.files_scanned,
            "bytes_scanned": self.bytes_scanned,
            "guarantees": list(self.guarantees),
            "checked": [list(c) for c in self.checked],
        }


def verify_forgotten(
    engram: EngramHandle,
    texts,
    agent: str | None = None,
    vectors: bool = True,
    stored: dict[str, list[float]] | None = None,
) -> VerifyForgetReport:
    """``stored``: a forgotten fact's vector by its text, read before the purge; those texts
    are not embedded again (the scan looks for the very vector Chroma held)."""
    texts = [t for t in dict.fromkeys(texts) if t and t.strip()]
    rep = VerifyForgetReport()
    if not texts:
        return rep
    t = Terms(texts)
    agents = list(Agent.select().order_by(Agent.slug))
    target = [a for a in agents if agent is None or a.slug == agent]
    if agent is not None and not target:
        raise NotFound(f"no agent {agent!r}")
    others = [a for a in agents if a not in target]
    for a in target:
        rep.remaining += [(f"{a.slug}/{p}", d) for p, d in _logical(a, t)]
        rep.checked.append(
            (
                f"agent {a.slug}",
                "fact rows, history, episodes, session logs, compiled layers (folded text)",
            )
        )
    from services.forget.server_verify import server_findings

    rep.remaining += server_findings(engram, texts, target, rep.guarantees)
    scan = _RawScan(engram, agent, others)
    scan.other_holds = any(True for a in others for _ in _logical(a, t))
    got = scan.run(target, texts, vectors, stored or {})
    scan.classify(rep, got)
    rep.checked.append(
        (str(scan.data_dir), f"raw bytes of {rep.files_scanned} file(s), Chroma vectors")
    )
    from services.forget.native_verify import check_native

    check_native(engram, rep, t, texts, target, others)
    return rep


class _RawScan:
    """Raw bytes, read in a child process (reading a live db here would drop our locks)."""

    def __init__(self, engram: EngramHandle, agent: str | None, others: list[Agent]):
        self.e = engram
        self.agent = agent
        self.data_dir = Path(engram.config.data_dir)
        self.chroma = Path(engram.config.vector_location)
        self.other_slugs = {a.slug for a in others}
        self.other_ids = {a.id for a in others}
        self.dbp = db_path(engram)
        self.other_holds = False

    def _roots(self, target: list[Agent]) -> list[Path]:
        from services.interop.export_log import exports

        roots: list[Path] = [self.data_dir]
        for a in target:
            roots += workspace_files(a.workspace)
        for ex in exports(self.data_dir):
            if self.agent is None or ex.get("agent") == self.agent:
                roots.append(Path(ex["path"]))
        if self.dbp is not None:
            roots += [self.dbp, Path(str(self.dbp) + "-wal")]
        return roots

    def run(self, target: list[Agent], texts: list[str], vectors: bool, stored: dict) -> dict:
        from services.forget import isolated

        vecs = None
        todo = [t for t in texts if t not in stored]
        emb = self.e.embedder
        if vectors and self.chroma.is_dir() and (emb is not None or not todo):
            got = dict(stored)
            if todo and emb is not None:
                got.update(zip(todo, ([float(x) for x in v] for v in emb.embed(todo))))
            vecs = [got[t] for t in texts]  # one per text, in order: a hit names its string
        return isolated.run(
            isolated.scan_job,
            [str(r) for r in self._roots(target)],
            texts,
            vecs,
            str(self.chroma) if self.chroma.is_dir() else None,
        )

    def classify(self, rep: VerifyForgetReport, got: dict) -> None:
        seg_owner = got["segments"]
        for seg in got.get("segment_text", {}):
            if seg_owner.get(seg) is not None:
                rep.stale_segments.add(seg_owner[seg])
        for path, size, n in got["files"]:
            self._file(rep, Path(path), size, n, seg_owner)
        for seg, i, cos, _k in got["vectors"]:
            if self.agent is not None and seg_owner.get(Path(seg).name) in self.other_ids:
                continue
            rep.remaining.append(("vector", f"HNSW element {i} in {seg} (cosine {cos:.4f})"))
        for db, k in got["vector_bytes"]:
            hit = ("vector", f"float32 bytes of the embedding of string {k + 1} in {db}")
            (rep.shared if self.agent is not None and self.other_holds else rep.remaining).append(
                hit
            )

    def _file(self, rep: VerifyForgetReport, rp: Path, size: int, n: int, seg_owner) -> None:
        owner = _segment_owner(rp, self.chroma, seg_owner)
        if owner is not None:
            # whoever owns the segment, text in it is a leak, never that agent's data
            rep.files_scanned += 1
            rep.bytes_scanned += size
            if n:
                rep.remaining.append(
                    (
                        "raw",
                        f"{n} raw occurrence(s) in {rp} (unused memory "
                        f"Chroma wrote into a vector segment)",
                    )
                )
                rep.stale_segments.add(owner)
            return
        if self.agent is not None and _belongs_to_other(rp, self.data_dir, self.other_slugs):
            return
        rep.files_scanned += 1
        rep.bytes_scanned += size
        if not n:
            return
        detail = f"{n} raw occurrence(s) in {rp}"
        shared = (
            self.agent is not None
            and self.other_holds
            and _is_shared_file(rp, self.data_dir, self.chroma, self.dbp)
        )
        (rep.shared if shared else rep.remaining).append(("raw", detail))


def _logical(a: Agent, t: Terms):
    for fid, content in fact_rows.fact_texts(a.id):
        if t.mentions(content):
            yield f"fact {fid}", "fact row"
    for ev in AuditEvent.select().where(AuditEvent.agent == a.id):
        if (
            t.mentions(snapshot_text(ev.before))
            or t.mentions(snapshot_text(ev.after))
            or t.mentions(ev.reason)
        ):
            yield f"history {ev.id}", f"audit event ({ev.action}) of fact {ev.fact_id}"
    for e in Episode.select().where(Episode.agent == a.id):
        if t.mentions(e.summary):
            yield f"episode {e.id}", f"episode of {e.day}"
    for s in Session.select().where(Session.agent == a.id):
        if t.mentions(s.log):
            yield f"session {s.id}", "session log"
    for L in CompiledLayer.select().where(CompiledLayer.agent == a.id):
        if t.mentions(L.markdown):
            yield f"layer {L.id}", f"compiled layer {L.layer}"


def _belongs_to_other(rp: Path, data_dir: Path, other_slugs) -> bool:
    """A file in another agent's own folder (compiled layers, exports). Vector segments are
    not skipped: text is never legitimately in one, whoever owns it."""
    try:
        rel = rp.relative_to(data_dir.resolve())
    except ValueError:
        return False
    return len(rel.parts) >= 2 and rel.parts[0] == "agents" and rel.parts[1] in other_slugs


def _segment_owner(rp: Path, chroma: Path, seg_owner) -> int | None:
    """The agent id owning the HNSW segment directory ``rp`` is in (None: not in one)."""
    try:
        crel = rp.relative_to(chroma.resolve())
    except ValueError:
        return None
    return seg_owner.get(crel.parts[0]) if len(crel.parts) >= 2 else None


def _is_shared_file(rp: Path, data_dir: Path, chroma: Path, dbp: Path | None) -> bool:
    shared = {chroma.resolve() / "chroma.sqlite3"}
    if dbp is not None:
        shared |= {dbp.resolve(), Path(str(dbp.resolve()) + "-wal")}
    if rp in shared:
        return True
    try:
        return rp.relative_to(data_dir.resolve()).parts[0] == "backups"
    except (ValueError, IndexError):
        return False


# rules and receipts -------------------------------------------------------------------


def snapshot_text(v) -> str | None:
    """The strings inside a JSON snapshot, one per line (json.dumps would escape newlines
    and quotes and hide a multi-line mention)."""
    if v is None:
        return None
    out: list[str] = []

    def walk(x):
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)
        elif isinstance(x, (list, tuple)):
            for y in x:
                walk(y)

    walk(v)
    return "\n".join(out)

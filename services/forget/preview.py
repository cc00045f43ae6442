"""What a forget would remove, place by place, before anything is removed.

Per agent: fact rows and their audit history (snapshots hold the text), FTS entries, Chroma
vectors, episodes and session logs that mention it, compiled layers, entries in the agent's
workspace files, exports Engram wrote; and store backups holding it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path

from models import Agent, AuditEvent, CompiledLayer, Episode, Session
from services.forget.files import FileEdit, Terms, plan_file, workspace_files
from services.forget.plan import PlanTerms, said_by_kept
from services.forget.raw_scan import byte_pattern, iter_files, scan_file
from services.forget.scope import ForgetScope, as_dt, select_agents, select_with_partial
from services.forget.verify import snapshot_text
from services.store import fact_rows, imported_rows
from services.store.backup import store_backups
from services.store.chunks import chunks
from services.store.handle import EngramHandle


@dataclass
class AgentPreview:
    slug: str
    agent_id: int
    facts: list[dict] = field(default_factory=list)  # id, content, status, why, score
    # facts naming only part of the entity's name: listed for review, not forgotten
    partial: list[dict] = field(default_factory=list)
    history: list[int] = field(default_factory=list)  # audit event ids
    fts: int = 0
    vectors: list[int] = field(default_factory=list)
    episodes: list[dict] = field(default_factory=list)
    sessions: list[dict] = field(default_factory=list)
    layers: list[dict] = field(default_factory=list)
    layer_files: list[FileEdit] = field(default_factory=list)
    workspace: list[FileEdit] = field(default_factory=list)
    exports: list[FileEdit] = field(default_factory=list)
    native: list[FileEdit] = field(default_factory=list)  # the agent's own files (native.py)
    metadata: list[int] = field(default_factory=list)  # kept facts whose metadata mentions it
    terms: list[str] = field(default_factory=list, repr=False)  # what must be gone (content!)
    # the texts of the candidates the user left out: no term reaches them (plan.PlanTerms)
    kept: list[str] = field(default_factory=list, repr=False)

    def term_set(self) -> Terms:
        return PlanTerms(self.terms, self.kept)

    def counts(self) -> dict:
        return {
            "facts": len(self.facts),
            "history_events": len(self.history),
            "fts_entries": self.fts,
            "vectors": len(self.vectors),
            "episodes": len(self.episodes),
            "session_logs": len(self.sessions),
            "compiled_layers": len(self.layers),
            "layer_files": len(self.layer_files),
            "workspace_entries": sum(len(e.removed) for e in self.workspace),
            "workspace_files": len(self.workspace),
            "exports": len(self.exports),
            "kept_facts_metadata": len(self.metadata),
            "native_files": sum(1 for e in self.native if not e.problem),
            "native_not_erased": sum(1 for e in self.native if e.problem),
        }

    def to_json(self) -> dict:
        return {
            "agent": self.slug,
            "counts": self.counts(),
            "facts": self.facts,
            "partial": self.partial,
            "history_events": self.history,
            "vectors": self.vectors,
            "episodes": self.episodes,
            "sessions": self.sessions,
            "layers": self.layers,
            "layer_files": [e.to_json() for e in self.layer_files],
            "workspace": [e.to_json() for e in self.workspace],
            "exports": [e.to_json() for e in self.exports],
            "native": [e.to_json() for e in self.native],
        }


@dataclass
class ForgetPreview:
    scope: ForgetScope
    agents: list[AgentPreview] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)  # store copies holding forgotten text
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict:
        total: dict[str, int] = {}
        for a in self.agents:
            for k, v in a.counts().items():
                total[k] = total.get(k, 0) + v
        total["backups"] = len(self.backups)
        return total

    @property
    def empty(self) -> bool:
        return not any(v for v in self.counts().values())

    def to_json(self) -> dict:
        s = asdict(self.scope)
        if isinstance(self.scope.before, (date, datetime)):
            s["before"] = self.scope.before.isoformat()
        return {
            "scope": s,
            "counts": self.counts(),
            "agents": [a.to_json() for a in self.agents],
            "backups": self.backups,
            "notes": self.notes,
        }


def build_preview(engram: EngramHandle, scope: ForgetScope) -> ForgetPreview:
    scope.check()
    pv = ForgetPreview(scope)
    for a in select_agents(scope):
        pv.agents.append(_agent_preview(engram, a, scope))
    _plan_native(engram, pv)
    if not scope.agent_files:
        for ap in pv.agents:
            for ed in ap.native:
                if not ed.problem or ed.user_owned:  # an unreadable file keeps its reason
                    ed.problem = AGENT_FILE_KEPT
    _native_notes(pv)
    all_terms = _not_kept([x for ap in pv.agents for x in ap.terms], pv)
    if all_terms or scope.kind == "everything":
        for b in store_backups(engram):
            if scope.kind == "everything" or backup_holds(b, all_terms):
                pv.backups.append(str(b))
    if scope.kind == "everything":
        pv.notes.append(
            "a dated backup of the store is taken before the purge (in case it "
            "is interrupted) and destroyed once the purge has finished"
        )
    if not engram.semantic_enabled and scope.matching and scope.semantic:
        pv.notes.append(
            "semantic matching is off ("
            + (engram.semantic_error or "no model")
            + "): only facts that contain the words are listed"
        )
    return pv


def _not_kept(terms: list[str], pv: ForgetPreview) -> list[str]:
    """A store copy holding only a kept fact (found by the scope's words) holds nothing
    forgotten and stays."""
    held = said_by_kept(terms, [k for ap in pv.agents for k in ap.kept])
    return [x for x in terms if x not in held]


def _plan_native(engram: EngramHandle, pv: ForgetPreview) -> None:
    """Every native file an agent loads that mentions the forgotten text: the agent's linked
    files are rewritten; a discovered file not linked to a forgotten agent is rewritten by
    an all-agents forget, and otherwise listed as not erased (it belongs to no agent here)."""
    from services.forget.native import ENGRAM_WRITTEN, plan_native
    from services.forget.native_files import allowed_roots, discovered_files, linked_files

    agents = {ap.slug: Agent.get_by_id(ap.agent_id) for ap in pv.agents}
    taken = {_real(e.path) for ap in pv.agents for e in ap.workspace + ap.exports + ap.layer_files}
    for ap in pv.agents:
        if not ap.terms:
            continue
        linked = linked_files(engram, agents[ap.slug])
        roots = allowed_roots(engram, [agents[ap.slug]], linked)
        t = ap.term_set()
        for p, fmt in sorted(linked.items()):
            if _real(p) not in taken and (ed := plan_native(p, fmt, t, roots)):
                taken.add(_real(p))
                ap.native.append(ed)
    terms = [x for ap in pv.agents for x in ap.terms]
    if not terms or not pv.agents:
        return
    t = PlanTerms(terms, [k for ap in pv.agents for k in ap.kept])
    everyone = pv.scope.all_agents
    roots = allowed_roots(engram, list(agents.values()), {})
    for p, fmt in sorted(discovered_files(engram.config.data_dir).items()):
        if _real(p) in taken or not (ed := plan_native(p, fmt, t, roots)):
            continue
        taken.add(_real(p))
        if not everyone and not ed.problem and fmt not in ENGRAM_WRITTEN:
            ed.problem = (
                "not erased: found on this machine but not imported into this agent "
                "(forget with --all-agents, or import it first)"
            )
        pv.agents[0].native.append(ed)
    if pv.scope.whole:
        _keep_instruction_files(pv)


def _keep_instruction_files(pv: ForgetPreview) -> None:
    """Forgetting a whole agent would take every imported line out of the user's own
    instruction files, and the marker backup keeps none of them: those are named instead."""
    for ap in pv.agents:
        for ed in ap.native:
            if ed.user_owned and not ed.problem:
                ed.problem = (
                    "not erased: forgetting a whole agent does not empty your own "
                    "instruction file (forget --matching TEXT takes lines out of it)"
                )


NATIVE_NOTE = "agent's file: "
AGENT_FILE_KEPT = (
    "not erased: the agent's own memory file is left as it is (Delete for good erases what "
    "Engram holds; forgetting the whole agent also erases it there)"
)


def _native_notes(pv: ForgetPreview) -> None:
    """One note per native file, so every front end that shows the preview's notes (the
    app's forget dialog) lists each file and line the forget touches, or why it cannot."""
    for ap in pv.agents:
        for ed in ap.native:
            if ed.problem:
                pv.notes.append(f"{NATIVE_NOTE}{ed.path}: {ed.problem}")
            else:
                where = ", ".join(map(str, ed.lines[:30])) or f"{len(ed.removed)} entr(ies)"
                pv.notes.append(f"{NATIVE_NOTE}{ed.path}: rewritten without it ({where})")


def _real(p: Path) -> Path:
    try:
        return Path(p).resolve()
    except OSError:
        return Path(p)


def _agent_preview(engram: EngramHandle, a: Agent, scope: ForgetScope) -> AgentPreview:
    ap = AgentPreview(a.slug, a.id)
    ap.facts, ap.partial = select_with_partial(engram, a, scope)
    ids = [f["id"] for f in ap.facts]
    terms = [f["content"] for f in ap.facts]
    if scope.matching:
        terms.append(scope.matching)
    terms += list(scope.terms)
    if scope.exclude_ids:
        ap.kept = [c for _, c in fact_rows.texts_of(list(scope.exclude_ids)) if c]
    eps = _episodes(a, scope, PlanTerms(terms, ap.kept))
    ap.episodes = [{"id": e.id, "day": e.day.isoformat(), "summary": e.summary} for e in eps]
    terms += [e.summary for e in eps]
    ap.terms = terms
    t = ap.term_set()
    ap.fts = len(ids) + len(eps)
    ap.history = _history(a, scope, t, set(ids))
    ap.metadata = _metadata(a, t, set(ids)) if not scope.whole else []
    ap.sessions = _sessions(a, scope, t)
    ap.layers = matching_layers(a, scope, t)
    ap.layer_files = _layer_files(engram, a, scope, t)
    ap.vectors = _vectors(engram, a, ids)
    ap.workspace = [ed for p in workspace_files(a.workspace) if (ed := plan_file(p, t))]
    ap.exports = _exports(engram, a, scope, t, set(ids))
    return ap


def _episodes(a: Agent, scope: ForgetScope, t: Terms) -> list[Episode]:
    eq = Episode.select().where(Episode.agent == a.id)
    if scope.whole:
        return list(eq)
    if scope.kind == "before":
        return list(eq.where(Episode.day < as_dt(scope.before).date()))
    return [e for e in eq if t.mentions(e.summary) or t.mentions(" ".join(e.tags or ()))]


def _history(a: Agent, scope: ForgetScope, t: Terms, id_set: set[int]) -> list[int]:
    """The facts' own audit events, plus any event whose snapshot mentions them."""

    def mentioned(ev) -> bool:
        return bool(t) and (
            t.mentions(snapshot_text(ev.before))
            or t.mentions(snapshot_text(ev.after))
            or t.mentions(ev.reason)
        )

    evs = [
        (ev.id, ev.fact_id)
        for ev in AuditEvent.select(
            AuditEvent.id,
            AuditEvent.fact_id,
            AuditEvent.before,
            AuditEvent.after,
            AuditEvent.reason,
        ).where(AuditEvent.agent == a.id)
        if scope.whole or ev.fact_id in id_set or mentioned(ev)
    ]
    if scope.whole:
        return [i for i, _ in evs]
    # a kept fact that says the text itself keeps its own history (``--fact`` on one of two
    # facts sharing words must not erase the other's past)
    others = {f for _, f in evs if f is not None and f not in id_set}
    own = (
        {fid for fid, content in fact_rows.texts_of(list(others)) if t.mentions(content)}
        if others
        else set()
    )
    # a fact the user unticked is kept whole, its past too (the plan's terms blank its own
    # words, so it would not count as saying the text)
    own |= others & set(scope.exclude_ids)
    return [i for i, f in evs if f not in own]


def _metadata(a: Agent, t: Terms, id_set: set[int]) -> list[int]:
    """Kept facts whose metadata repeats the text (a Claude Code topic's description is
    copied onto every fact of the topic): the strings go, the facts stay."""

    return [
        fid
        for fid, meta in imported_rows.metadata_of_imported(a.id)
        if fid not in id_set and meta and t.mentions(snapshot_text(meta))
    ]


def _sessions(a: Agent, scope: ForgetScope, t: Terms) -> list[dict]:
    """Whole logs for agent/date scopes, mentioning lines otherwise."""
    whole_log = scope.whole or scope.kind == "before"
    out = []
    for s in Session.select().where((Session.agent == a.id) & Session.log.is_null(False)):
        when = s.started_at or s.processed_at
        old = scope.kind == "before" and when and when < as_dt(scope.before)
        if scope.whole or old or t.mentions(s.log):
            out.append({"id": s.id, "external_id": s.external_id, "whole_log": whole_log})
    return out


def matching_layers(a: Agent, scope: ForgetScope, t: Terms) -> list[dict]:
    """The compiled layer rows (every kept compilation) that mention a term."""
    return [
        {"id": L.id, "layer": L.layer, "path": L.path, "compiled_at": L.compiled_at.isoformat()}
        for L in CompiledLayer.select().where(CompiledLayer.agent == a.id)
        if scope.whole or t.mentions(L.markdown)
    ]


def _layer_files(engram: EngramHandle, a: Agent, scope: ForgetScope, t: Terms) -> list[FileEdit]:
    adir = engram.config.agent_dir(a.slug)
    layer_paths = {
        Path(L.path)
        for L in CompiledLayer.select(CompiledLayer.path).where(
            (CompiledLayer.agent == a.id) & CompiledLayer.path.is_null(False)
        )
    }
    files = set(iter_files(adir)) | {p for p in layer_paths if p.is_file()}
    return [ed for p in sorted(files) if (ed := plan_file(p, t, whole=scope.whole))]


def _vectors(engram: EngramHandle, a: Agent, ids: list[int]) -> list[int]:
    if not ids:
        return []
    if engram.index is None:
        return list(ids)  # unknown without the index: the collection is dropped
    present = engram.index.all_ids(a.id)
    return [i for i in ids if i in present]


def _exports(
    engram: EngramHandle, a: Agent, scope: ForgetScope, t: Terms, ids: set[int]
) -> list[FileEdit]:
    from services.interop.export_log import exports

    out = []
    for ex in exports(engram.config.data_dir, a.slug):
        p = Path(ex["path"])
        if p.is_file():
            ed = plan_file(p, t, whole=scope.whole, ids=ids)
            if ed:
                out.append(ed)
    return out


VERIFY_SAMPLE = 200


def verify_sample(terms: list[str], extra: Sequence[str] = ()) -> list[str]:
    """The strings a forget re-checks right away: all of them up to VERIFY_SAMPLE, else an
    even spread (``engram forget --verify`` checks any string in full)."""
    uniq = list(dict.fromkeys(t for t in terms if t and t.strip()))
    if len(uniq) > VERIFY_SAMPLE:
        step = len(uniq) / VERIFY_SAMPLE
        uniq = [uniq[int(i * step)] for i in range(VERIFY_SAMPLE)]
    return list(dict.fromkeys(list(extra) + uniq))


def backup_holds(path: Path, terms: list[str]) -> bool:
    """Does a store copy hold any forgotten text? Asked of its fact table by content hash
    (exact for facts), then by raw bytes for a sample of the strings."""
    from services.store.text import content_hash

    hashes = list({content_hash(t) for t in terms if t})
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            for part in chunks(hashes):
                q = "SELECT 1 FROM fact WHERE content_hash IN (%s) LIMIT 1" % ",".join(
                    "?" * len(part)
                )
                if con.execute(q, list(part)).fetchone():
                    return True
        finally:
            con.close()
    except sqlite3.Error:
        pass
    sample = verify_sample(terms)[:50]
    return any(scan_file(path, {x: byte_pattern(x) for x in sample}).values())

"""The right to be forgotten: preview, purge everywhere, prove it, never store it again.

``ForgetService(engram).preview(scope)`` lists, per place, what a forget removes: fact rows and
their audit history (snapshots hold the text), FTS entries, Chroma vectors, episodes and
session logs that mention it, compiled layers, entries in the agent's workspace files,
exports Engram wrote and store backups holding it. ``execute`` removes all of it, rebuilds the
agent's Chroma collection without the vectors (hnswlib only *marks* deletions, the float32
bytes stay in ``data_level0.bin``), deletes orphan segment directories, merges FTS segments,
checkpoints and VACUUMs both SQLite files, adds a keyed-hash forget rule and writes a receipt
without content. ``verify`` reads the raw bytes of every file for the forgotten strings.
The physical purge is in ``services/forget/purge.py``, the proof in ``services/forget/verify.py``,
the file surgery in ``services/forget/files.py``.

Scopes: ``fact_ids``; ``matching`` (facts containing the text, FTS phrase matches, and facts
whose cosine to it is >= ``threshold``: a paraphrase is listed with its score for review and
can be left out with ``exclude_ids``); ``before`` (created before a date); ``all`` (one
agent's whole memory; the agent row and settings stay); ``all_agents`` alone (everything,
with a safety backup destroyed after the purge) or with ``matching`` (that text in every
agent, with one rule for every agent). Rules are added by default for fact and matching
scopes only: a date or whole-agent purge is a clean-up, not a ban on the content.

Order of work (crash safety): files and vectors first, the SQL transaction last. A crash
before the transaction leaves the rows (the truth) and a re-run of the same forget finishes
the job; a crash after it leaves only free pages, which the next forget or ``VACUUM`` clears.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path

from models import Agent, AuditEvent, CompiledLayer, Episode, Fact, ForgetReceipt, Session
from models.db import is_postgres
from models.entities import FACT_STATUSES
from services.errors import InvalidInput, NotFound
from services.forget.files import FileEdit, Terms, apply_edit, plan_file, workspace_files
from services.forget.purge import compact_store, purge_vectors
from services.forget.raw_scan import byte_pattern, iter_files, scan_file
from services.forget.scrub import scrub_file
from services.forget.verify import VerifyForgetReport, snapshot_text, verify_forgotten
from services.ingest import forget_rules
from services.store.backup import backup_store, store_backups
from services.store.facts import FactFilters
from services.store.text import fts_query, normalize, words

log = logging.getLogger(__name__)
SEMANTIC_THRESHOLD = 0.8  # cosine at which a fact is "about" the query without naming it
SEMANTIC_K = 50


@dataclass
class ForgetScope:
    agent: str | None = None
    fact_ids: tuple[int, ...] = ()
    matching: str | None = None
    before: date | datetime | None = None
    all: bool = False
    all_agents: bool = False
    semantic: bool = True  # matching: also facts that say the same thing in other words
    threshold: float = SEMANTIC_THRESHOLD
    exclude_ids: tuple[int, ...] = ()  # candidates the user unticked after review
    rule: bool | None = None  # add a forget rule (default: for fact and matching scopes)
    label: str | None = None  # the rule's label, in the user's words

    @property
    def kind(self) -> str:
        if self.fact_ids:
            return "fact"
        if self.matching:
            return "matching"
        if self.before:
            return "before"
        if self.all:
            return "agent"
        return "everything" if self.all_agents else "none"

    def check(self) -> None:
        chosen = sum(bool(x) for x in (self.fact_ids, self.matching, self.before, self.all))
        if self.all_agents and (self.fact_ids or self.before or self.all):
            raise InvalidInput("--all-agents goes with --matching TEXT, or alone for everything")
        if not self.all_agents and chosen != 1:
            raise InvalidInput(
                "choose one scope: a fact id, --matching TEXT, --before DATE or --all"
            )
        if self.all_agents and self.agent:
            raise InvalidInput("--all-agents and --agent exclude each other")
        if not self.all_agents and not self.agent and not self.fact_ids:
            raise InvalidInput("say which agent (--agent NAME) or use --all-agents")
        if self.matching is not None and not words(self.matching):
            raise InvalidInput("--matching needs at least one word")

    @property
    def wants_rule(self) -> bool:
        return self.rule if self.rule is not None else self.kind in ("fact", "matching")

    def to_receipt(self, key: bytes) -> dict:
        """The scope as a receipt may keep it: the matching text only as a keyed hash."""
        d = {"kind": self.kind, "agent": self.agent, "all_agents": self.all_agents}
        if self.fact_ids:
            d["fact_ids"] = sorted(self.fact_ids)
        if self.before:
            d["before"] = self.before.isoformat()
        if self.matching:
            d["matching_hash"] = keyed(key, self.matching)
            d["semantic"] = self.semantic
        return d


def keyed(key: bytes, text: str) -> str:
    return hmac.new(key, normalize(text).encode("utf-8"), hashlib.sha256).hexdigest()


@dataclass
class AgentPreview:
    slug: str
    agent_id: int
    facts: list[dict] = field(default_factory=list)  # id, content, status, why, score
    history: list[int] = field(default_factory=list)  # audit event ids
    fts: int = 0
    vectors: list[int] = field(default_factory=list)
    episodes: list[dict] = field(default_factory=list)
    sessions: list[dict] = field(default_factory=list)
    layers: list[dict] = field(default_factory=list)
    layer_files: list[FileEdit] = field(default_factory=list)
    workspace: list[FileEdit] = field(default_factory=list)
    exports: list[FileEdit] = field(default_factory=list)
    terms: list[str] = field(default_factory=list, repr=False)  # what must be gone (content!)

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
        }

    def to_json(self) -> dict:
        return {
            "agent": self.slug,
            "counts": self.counts(),
            "facts": self.facts,
            "history_events": self.history,
            "vectors": self.vectors,
            "episodes": self.episodes,
            "sessions": self.sessions,
            "layers": self.layers,
            "layer_files": [e.to_json() for e in self.layer_files],
            "workspace": [e.to_json() for e in self.workspace],
            "exports": [e.to_json() for e in self.exports],
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


def _as_dt(v) -> datetime:
    if isinstance(v, datetime):
        return v
    return datetime(v.year, v.month, v.day)


class ForgetService:
    def __init__(self, engram):
        self.e = engram
        self._backup: Path | None = None

    # scope → agents and facts -------------------------------------------------------------
    def _agents(self, scope: ForgetScope) -> list[Agent]:
        if scope.all_agents:
            return list(Agent.select().order_by(Agent.slug))
        if scope.agent:
            a = Agent.get_or_none(Agent.slug == scope.agent)
            if a is None:
                raise NotFound(f"no agent {scope.agent!r} (see `engram agents`)")
            return [a]
        ids = {r.agent_id for r in Fact.select(Fact.agent).where(Fact.id.in_(list(scope.fact_ids)))}
        if not ids:
            raise NotFound(f"no fact {', '.join(map(str, scope.fact_ids))}")
        return list(Agent.select().where(Agent.id.in_(list(ids))).order_by(Agent.slug))

    def _facts(self, a: Agent, scope: ForgetScope) -> list[dict]:
        q = Fact.select(Fact.id, Fact.content, Fact.status).where(Fact.agent == a.id)
        why: dict[int, tuple[str, float | None]] = {}
        kind = scope.kind
        if kind == "fact":
            rows = list(q.where(Fact.id.in_(list(scope.fact_ids))))
            if scope.agent and len(rows) < len(set(scope.fact_ids)):
                missing = set(scope.fact_ids) - {r.id for r in rows}
                raise NotFound(
                    f"no fact {', '.join(map(str, sorted(missing)))} for agent {a.slug!r}"
                )
            why = {r.id: ("id", None) for r in rows}
        elif kind == "before":
            rows = list(q.where(Fact.created_at < _as_dt(scope.before)))
            why = {r.id: ("date", None) for r in rows}
        elif kind in ("agent", "everything"):
            rows = list(q)
            why = {r.id: ("all", None) for r in rows}
        else:  # matching
            needle = normalize(scope.matching)
            phrase = fts_query('"' + " ".join(words(scope.matching)) + '"')
            if phrase:
                for fid in _phrase_ids(self.e.db, a.id, phrase, scope.matching):
                    why.setdefault(fid, ("keyword", None))
            # normalised substring: punctuation and case do not hide a mention
            for fid, content in (
                Fact.select(Fact.id, Fact.content).where(Fact.agent == a.id).tuples()
            ):
                if fid not in why and needle and needle in normalize(content):
                    why[fid] = ("keyword", None)
            if scope.semantic and self.e.semantic_enabled:
                mem = self.e.agent(a.slug)
                hits = mem.search(
                    scope.matching,
                    k=SEMANTIC_K,
                    mode="semantic",
                    touch=False,
                    filters=FactFilters(status=list(FACT_STATUSES)),
                )
                for h in hits:
                    cos = float(h.raw.get("cosine", 0.0))
                    if cos >= scope.threshold and h.fact.id not in why:
                        why[h.fact.id] = ("semantic", round(cos, 4))
            rows = list(q.where(Fact.id.in_(list(why)))) if why else []
        excl = set(scope.exclude_ids)
        return [
            {
                "id": r.id,
                "content": r.content,
                "status": r.status,
                "why": why[r.id][0],
                "score": why[r.id][1],
            }
            for r in sorted(rows, key=lambda r: r.id)
            if r.id not in excl
        ]

    # preview ------------------------------------------------------------------------------
    def preview(self, scope: ForgetScope) -> ForgetPreview:
        scope.check()
        pv = ForgetPreview(scope)
        whole = scope.kind in ("agent", "everything")
        for a in self._agents(scope):
            ap = AgentPreview(a.slug, a.id)
            ap.facts = self._facts(a, scope)
            ids = [f["id"] for f in ap.facts]
            terms = [f["content"] for f in ap.facts]
            if scope.matching:
                terms.append(scope.matching)
            # episodes
            eq = Episode.select().where(Episode.agent == a.id)
            t = Terms(terms)
            if whole:
                eps = list(eq)
            elif scope.kind == "before":
                eps = list(eq.where(Episode.day < _as_dt(scope.before).date()))
            else:
                eps = [e for e in eq if t.mentions(e.summary) or t.mentions(" ".join(e.tags or ()))]
            ap.episodes = [
                {"id": e.id, "day": e.day.isoformat(), "summary": e.summary} for e in eps
            ]
            terms += [e.summary for e in eps]
            t = Terms(terms)
            ap.terms = terms
            ap.fts = len(ids) + len(eps)
            # audit history: the fact's own events, plus any event whose snapshot mentions it
            id_set = set(ids)
            hist = []
            for ev in AuditEvent.select(
                AuditEvent.id,
                AuditEvent.fact_id,
                AuditEvent.before,
                AuditEvent.after,
                AuditEvent.reason,
            ).where(AuditEvent.agent == a.id):
                if (
                    whole
                    or ev.fact_id in id_set
                    or (
                        t
                        and (
                            t.mentions(snapshot_text(ev.before))
                            or t.mentions(snapshot_text(ev.after))
                            or t.mentions(ev.reason)
                        )
                    )
                ):
                    hist.append(ev.id)
            ap.history = hist
            # sessions: whole logs for agent/date scopes, mentioning lines otherwise
            sq = Session.select().where((Session.agent == a.id) & Session.log.is_null(False))
            for s in sq:
                if (
                    whole
                    or (
                        scope.kind == "before"
                        and (s.started_at or s.processed_at)
                        and (s.started_at or s.processed_at) < _as_dt(scope.before)
                    )
                    or t.mentions(s.log)
                ):
                    ap.sessions.append(
                        {
                            "id": s.id,
                            "external_id": s.external_id,
                            "whole_log": whole or scope.kind == "before",
                        }
                    )
            # compiled layers
            for L in CompiledLayer.select().where(CompiledLayer.agent == a.id):
                if whole or t.mentions(L.markdown):
                    ap.layers.append(
                        {
                            "id": L.id,
                            "layer": L.layer,
                            "path": L.path,
                            "compiled_at": L.compiled_at.isoformat(),
                        }
                    )
            adir = self.e.config.agent_dir(a.slug)
            layer_paths = {
                Path(L.path)
                for L in CompiledLayer.select(CompiledLayer.path).where(
                    (CompiledLayer.agent == a.id) & CompiledLayer.path.is_null(False)
                )
            }
            files = set(iter_files(adir)) | {p for p in layer_paths if p.is_file()}
            for p in sorted(files):
                ed = plan_file(p, t, whole=whole)
                if ed:
                    ap.layer_files.append(ed)
            # vectors
            if self.e.index is not None and ids:
                present = self.e.index.all_ids(a.id)
                ap.vectors = [i for i in ids if i in present]
            elif ids:
                ap.vectors = list(ids)  # unknown without the index: the collection is dropped
            # workspace files
            for p in workspace_files(a.workspace):
                ed = plan_file(p, t)
                if ed:
                    ap.workspace.append(ed)
            # exports
            from services.interop.export_log import exports

            for ex in exports(self.e.config.data_dir, a.slug):
                p = Path(ex["path"])
                if p.is_file():
                    ed = plan_file(p, t, whole=whole, ids=set(ids))
                    if ed:
                        ap.exports.append(ed)
            pv.agents.append(ap)
        all_terms = [x for ap in pv.agents for x in ap.terms]
        if all_terms or scope.kind == "everything":
            for b in store_backups(self.e):
                if scope.kind == "everything" or backup_holds(b, all_terms):
                    pv.backups.append(str(b))
        if scope.kind == "everything":
            pv.notes.append(
                "a dated backup of the store is taken before the purge (in case it "
                "is interrupted) and destroyed once the purge has finished"
            )
        if not self.e.semantic_enabled and scope.matching and scope.semantic:
            pv.notes.append(
                "semantic matching is off ("
                + (self.e.semantic_error or "no model")
                + "): only facts that contain the words are listed"
            )
        return pv

    # execute ------------------------------------------------------------------------------
    def execute(
        self,
        scope: ForgetScope,
        progress: Callable[[int, int, str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        preview: ForgetPreview | None = None,
    ) -> dict:
        t0 = time.perf_counter()
        pv = preview or self.preview(scope)
        steps = ["backup", "files", "vectors", "rows", "layers", "compact", "backups", "verify"]
        done = 0

        def step(msg):
            nonlocal done
            if cancelled and cancelled() and done < 2:  # nothing changed before "files"
                raise InvalidInput("forget cancelled; nothing was removed")
            if progress:
                progress(done, len(steps), msg)
            done += 1

        notes = list(pv.notes)
        key = self.e.forget_key()
        step("backup")
        if scope.kind == "everything":
            self._backup = backup_store(self.e, "before-forget-everything")
        step("files")
        files_done = 0
        exported_gone: set[str] = set()
        for ap in pv.agents:
            for ed in ap.workspace + ap.exports + ap.layer_files:
                if ed.problem:
                    notes.append(f"{ed.path}: {ed.problem}")
                elif apply_edit(ed):
                    files_done += 1
                    if ed.new_data is None and ed in ap.exports:
                        exported_gone.add(str(ed.path))
            if scope.kind in ("agent", "everything"):
                adir = self.e.config.agent_dir(ap.slug)
                if adir.is_dir():
                    shutil.rmtree(adir, ignore_errors=True)
        if exported_gone:
            from services.interop.export_log import forget_exports

            forget_exports(self.e.config.data_dir, exported_gone)
        step("vectors")
        for ap in pv.agents:
            if ap.vectors or scope.kind in ("agent", "everything"):
                notes += purge_vectors(
                    self.e,
                    ap.agent_id,
                    {f["id"] for f in ap.facts},
                    drop=scope.kind in ("agent", "everything"),
                )
        step("rows")
        receipt = self._delete_rows(scope, pv, key)
        step("layers")
        for ap in pv.agents:
            if ap.layers and scope.kind not in ("agent", "everything"):
                notes.append(self._recompile(ap.slug))
        step("compact")
        notes += self.compact()
        step("backups")
        for b in pv.backups:
            scrub_file(Path(b))
        safety = 0
        if self._backup is not None:
            scrub_file(self._backup)
            self._backup, safety = None, 1
        step("verify")
        remaining = checked = 0
        groups = (
            [(None, [x for ap in pv.agents for x in ap.terms])]
            if scope.all_agents
            else [(ap.slug, ap.terms) for ap in pv.agents]
        )
        for slug, terms in groups:
            sample = verify_sample(terms, [scope.matching] if scope.matching else [])
            if sample:
                rep = self.verify(sample, agent=slug)
                if rep.stale_segments:
                    notes += self._rebuild_leaky_segments(rep.stale_segments)
                    rep = self.verify(sample, agent=slug)
                checked += len(sample)
                remaining += len(rep.remaining)
                notes += [f"still present: {p} ({d})" for p, d in rep.remaining[:20]]
        counts = dict(receipt.counts)
        counts["files_rewritten"] = files_done
        if safety:
            counts["safety_backup_destroyed"] = safety
        counts["remaining_after_verify"] = remaining
        counts["strings_verified"] = checked
        counts["seconds"] = round(time.perf_counter() - t0, 3)
        ForgetReceipt.update(counts=counts).where(ForgetReceipt.id == receipt.id).execute()
        if progress:
            progress(len(steps), len(steps), "done")
        for ap in pv.agents:
            self.e.bus.emit("fact.deleted", agent_id=ap.agent_id, ids=[f["id"] for f in ap.facts])
        self.e.bus.emit("forget.done", receipt=receipt.id)
        out = self._receipt_json(ForgetReceipt.get_by_id(receipt.id))
        out["notes"] = [n for n in notes if n]
        return out

    def _delete_rows(self, scope: ForgetScope, pv: ForgetPreview, key: bytes) -> ForgetReceipt:
        db = self.e.db
        counts: dict[str, int] = {}
        hashes: set[str] = set()
        label = scope.label or f"forgotten {datetime.now():%Y-%m-%d %H:%M}"

        def rule_terms(ap):
            return ([scope.matching] if scope.matching else []) + [f["content"] for f in ap.facts]

        with db.atomic():
            if scope.wants_rule and scope.all_agents:
                terms = [x for ap in pv.agents for x in rule_terms(ap)] or (
                    [scope.matching] if scope.matching else []
                )
                if terms:
                    forget_rules.add_rule(key, None, label, terms)
                    counts["rules"] = 1
            for ap in pv.agents:
                c = ap.counts()
                for k, v in c.items():
                    counts[k] = counts.get(k, 0) + v
                ids = [f["id"] for f in ap.facts]
                hashes.update(keyed(key, x) for x in ap.terms)
                for s in range(0, len(ids), 500):
                    part = ids[s : s + 500]
                    Fact.update(superseded_by=None).where(Fact.superseded_by.in_(part)).execute()
                    Fact.delete().where((Fact.agent == ap.agent_id) & Fact.id.in_(part)).execute()
                for s in range(0, len(ap.history), 500):
                    AuditEvent.delete().where(AuditEvent.id.in_(ap.history[s : s + 500])).execute()
                eids = [e["id"] for e in ap.episodes]
                for s in range(0, len(eids), 500):
                    Episode.delete().where(Episode.id.in_(eids[s : s + 500])).execute()
                t = Terms(ap.terms)
                for sinfo in ap.sessions:
                    srow = Session.get_or_none(Session.id == sinfo["id"])
                    if srow is None:
                        continue
                    if sinfo["whole_log"]:
                        srow.log = None
                    else:
                        kept = [
                            ln
                            for ln in (srow.log or "").splitlines(keepends=True)
                            if not t.mentions(ln)
                        ]
                        srow.log = "".join(kept) or None
                    srow.save()
                lids = [L["id"] for L in ap.layers]
                if lids:
                    CompiledLayer.delete().where(CompiledLayer.id.in_(lids)).execute()
                if scope.wants_rule and ap.terms and not scope.all_agents:
                    forget_rules.add_rule(key, ap.agent_id, label, rule_terms(ap))
                    counts["rules"] = counts.get("rules", 0) + 1
                # session rows stay (ids and paths, no content, logs cleared above): they are
                # the processed-once claims that stop a hook re-reading the same transcript
                AuditEvent.create(
                    agent=ap.agent_id,
                    fact_id=None,
                    action="forget",
                    before=None,
                    after={"scope": scope.kind, "counts": ap.counts()},
                    actor="user",
                    reason="forget (receipt kept)",
                )
            counts["backups"] = len(pv.backups)
            slug = scope.agent or (pv.agents[0].slug if len(pv.agents) == 1 else None)
            rec = ForgetReceipt.create(
                agent_slug=None if scope.all_agents else slug,
                scope=scope.to_receipt(key),
                counts=counts,
                hashes=sorted(hashes),
            )
        return rec

    def _rebuild_leaky_segments(self, agent_ids: set[int]) -> list[str]:
        """A vector segment holding forgotten text in slots Chroma never initialised (written
        before the allocator was hardened): rebuild that agent's index from its own vectors,
        then compact, so the segment files are written anew."""
        notes = []
        for aid in sorted(agent_ids):
            notes += purge_vectors(self.e, aid, set())
            a = Agent.get_or_none(Agent.id == aid)
            notes.append(
                f"{a.slug if a else aid}: vector index rewritten (its segment files "
                "held stale memory)"
            )
        notes += self.compact()
        return notes

    def _recompile(self, slug: str) -> str:
        from services.lifecycle.compile import CompileService

        try:
            CompileService(self.e.agent(slug)).compile()
            return f"{slug}: compiled layers rebuilt without it"
        except Exception as exc:  # the stale layers are gone already; say what failed
            return f"{slug}: compiled layers were deleted but recompiling failed: {exc}"

    # compaction: no free page, WAL frame or FTS segment keeps the text -------------------
    def compact(self) -> list[str]:
        return compact_store(self.e)

    def verify(self, texts, agent: str | None = None, vectors: bool = True) -> VerifyForgetReport:
        return verify_forgotten(self.e, texts, agent=agent, vectors=vectors)

    def rules(self) -> list[forget_rules.RuleView]:
        return forget_rules.list_rules()

    def remove_rule(self, rule_id: int) -> None:
        if not forget_rules.remove_rule(rule_id):
            raise NotFound(f"no forget rule {rule_id} (see `engram rules list`)")

    def receipts(self) -> list[dict]:
        return [
            self._receipt_json(r) for r in ForgetReceipt.select().order_by(ForgetReceipt.id.desc())
        ]

    @staticmethod
    def _receipt_json(r: ForgetReceipt) -> dict:
        return {
            "id": r.id,
            "created_at": r.created_at.isoformat(),
            "agent": r.agent_slug,
            "scope": r.scope,
            "counts": r.counts,
            "hashes": r.hashes,
        }


VERIFY_SAMPLE = 200


def verify_sample(terms: list[str], extra: list[str] = ()) -> list[str]:
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
            for s in range(0, len(hashes), 500):
                part = hashes[s : s + 500]
                q = "SELECT 1 FROM fact WHERE content_hash IN (%s) LIMIT 1" % ",".join(
                    "?" * len(part)
                )
                if con.execute(q, part).fetchone():
                    return True
        finally:
            con.close()
    except sqlite3.Error:
        pass
    sample = verify_sample(terms)[:50]
    return any(scan_file(path, {x: byte_pattern(x) for x in sample}).values())


def _phrase_ids(db, agent_id: int, phrase: str, text: str) -> list[int]:
    """Facts whose full text holds the phrase (stemmed, as keyword search finds them)."""
    if is_postgres(db):  # a team store: the generated tsvector column
        from services.search.keyword_postgres import CONFIG

        sql = f"SELECT id FROM fact WHERE agent_id = %s AND fts @@ phraseto_tsquery('{CONFIG}', %s)"
        return [r[0] for r in db.execute_sql(sql, (agent_id, " ".join(words(text)))).fetchall()]
    return [
        r[0]
        for r in db.execute_sql(
            "SELECT f.id FROM fact_fts JOIN fact f ON f.id = fact_fts.rowid "
            "WHERE fact_fts MATCH ? AND f.agent_id = ?",
            (phrase, agent_id),
        ).fetchall()
    ]

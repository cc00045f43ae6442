"""Carrying out a forget: files and vectors first, the SQL transaction last, then proof.

Order of work (crash safety): a crash before the transaction leaves the rows (the truth) and
a re-run of the same forget finishes the job; a crash after it leaves only free pages, which
the next forget or ``VACUUM`` clears.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime
from pathlib import Path

from models import Agent, AuditEvent, CompiledLayer, Episode, ForgetReceipt, Session
from models.db import writer_lock
from services.errors import InvalidInput
from services.forget import journal
from services.forget.files import Terms, apply_edit
from services.forget.preview import (
    AGENT_FILE_KEPT,
    NATIVE_NOTE,
    AgentPreview,
    ForgetPreview,
    matching_layers,
    verify_sample,
)
from services.forget.purge import compact_store, forgotten_vectors, purge_vectors
from services.forget.scope import ForgetScope, keyed_many
from services.forget.scrub import scrub_file
from services.forget.verify import verify_forgotten
from services.ingest import forget_rules
from services.ingest.rule_key import RuleKey
from services.store import fact_rows
from services.store.audit import record_audit
from services.store.backup import backup_store
from services.store.chunks import chunks
from services.store.handle import EngramHandle
from services.teamstore import tables_rewritten

STEPS = ["backup", "files", "vectors", "rows", "layers", "compact", "backups", "verify"]


class _Steps:
    def __init__(self, progress, cancelled):
        self.done = 0
        self.progress = progress
        self.cancelled = cancelled

    def check(self) -> None:
        """The last moment a cancel leaves everything as it was (nothing journaled yet)."""
        if self.cancelled and self.cancelled():
            raise InvalidInput("forget cancelled; nothing was removed")

    def __call__(self, msg: str) -> None:
        journal.kill_here_for_tests(msg)
        if self.progress:
            self.progress(self.done, len(STEPS), msg)
        self.done += 1


def run_forget(
    engram: EngramHandle,
    scope: ForgetScope,
    pv: ForgetPreview,
    progress: Callable[[int, int, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    resume: int | None = None,
) -> tuple[int, list[str]]:
    """Carry out the plan ``pv``, step by step, crossing each step off the receipt; return
    the receipt id and the notes. ``resume``: the receipt of a journaled plan a killed
    forget left (journal.py): its steps not crossed off run again, the files re-checked."""
    t0 = time.perf_counter()
    step = _Steps(progress, cancelled)
    # the receipt says what happened to each native file (below), not what was planned
    notes = [n for n in pv.notes if not n.startswith(NATIVE_NOTE)]
    key = engram.forget_key()
    ddir = engram.config.data_dir
    if resume is None:
        step.check()
        rid = journal.open_receipt(scope, pv, key, STEPS)
        journal.write(ddir, rid, pv)  # before the first change
    else:
        rid = resume
        journal.refresh_edits(pv)
        notes.append(f"an interrupted forget was finished from its journal (receipt {rid})")
    left = set(journal.steps_left(rid))
    # read while Chroma still has them (a resumed forget past the purge embeds the texts)
    stored = forgotten_vectors(engram, pv) if "vectors" in left else {}
    if "backup" in left:
        step("backup")
        safety = None
        if scope.kind == "everything":
            safety = str(backup_store(engram, "before-forget-everything"))
        journal.step_done(rid, "backup", {"safety_backup": safety} if safety else None)
    with _files_held(engram, pv):
        if "files" in left:
            step("files")
            files_done = _edit_files(engram, scope, pv, notes)
            native = _edit_native(engram, pv, notes)
            journal.step_done(rid, "files", {"files_rewritten": files_done, **native})
        if "vectors" in left:
            step("vectors")
            purged = set()
            for ap in pv.agents:
                if ap.vectors or scope.whole or ap.history:  # history: facts deleted earlier
                    notes += purge_vectors(
                        engram, ap.agent_id, {f["id"] for f in ap.facts}, drop=scope.whole
                    )
                    purged.add(ap.agent_id)
            for aid in _chroma_still_holds(engram, pv, purged):
                notes += purge_vectors(engram, aid, set())
            journal.step_done(rid, "vectors")
        if "rows" in left:
            step("rows")
            delete_rows(engram, scope, pv, key, rid, notes)
    _after_rows(engram, scope, pv, rid, left, step, notes)
    step("verify")
    checked, remaining = _verify_after(engram, scope, pv, notes, stored)
    counts = journal.receipt_counts(rid)
    counts.pop("incomplete", None)
    if counts.pop("safety_backup", None):
        counts["safety_backup_destroyed"] = 1
    counts["remaining_after_verify"] = remaining
    counts["strings_verified"] = checked
    counts["seconds"] = round(time.perf_counter() - t0, 3)
    ForgetReceipt.update(counts=counts).where(ForgetReceipt.id == rid).execute()
    if progress:
        progress(len(STEPS), len(STEPS), "done")
    for ap in pv.agents:
        engram.bus.emit("fact.deleted", agent_id=ap.agent_id, ids=[f["id"] for f in ap.facts])
    engram.bus.emit("forget.done", receipt=rid)
    return rid, notes


def _chroma_still_holds(engram: EngramHandle, pv: ForgetPreview, purged: set[int]) -> list[int]:
    """The scope's agents not rebuilt above whose Chroma collection still holds a vector of
    a fact that is gone (or the text itself): a fact deleted so long ago that no row or
    history event is left to point at it."""
    left = {ap.agent_id for ap in pv.agents} - purged
    loc = Path(str(engram.config.vector_location))
    if not left or engram.index is None or not (loc / "chroma.sqlite3").is_file():
        return []
    if getattr(engram.index, "kind", "") == "pgvector":
        return []
    from services.forget import isolated

    terms = [x for ap in pv.agents if ap.agent_id in left for x in ap.terms]
    live = {str(a): fact_rows.fact_ids(a) for a in left}
    return isolated.run(isolated.chroma_holders_job, str(loc), terms, live)


def _after_rows(
    engram: EngramHandle,
    scope: ForgetScope,
    pv: ForgetPreview,
    rid: int,
    left: set[str],
    step: _Steps,
    notes: list[str],
) -> None:
    """Layers rebuilt, the store compacted, backups scrubbed; then the journal goes (the
    check that follows scans every file of the data dir, the journal's text included)."""
    if "layers" in left:
        step("layers")
        for ap in pv.agents:
            if ap.layers and not scope.whole:
                notes.append(recompile(engram, ap.slug))
        journal.step_done(rid, "layers")
    if "compact" in left:
        step("compact")
        compacted = compact_store(engram)
        notes += compacted
        rewritten = tables_rewritten(compacted)
        # a team store: what really ran, not a claim
        extra = {"server_tables_rewritten": rewritten} if rewritten is not None else None
        journal.step_done(rid, "compact", extra)
    if "backups" in left:
        step("backups")
        for b in pv.backups:
            scrub_file(Path(b))
        safety = journal.receipt_counts(rid).get("safety_backup")
        if safety:
            scrub_file(Path(safety))
        journal.step_done(rid, "backups")
    journal.clear(engram.config.data_dir)


@contextmanager
def _files_held(engram: EngramHandle, pv: ForgetPreview) -> Iterator[None]:
    """From the first file edited to the rows deleted, the files say "forgotten" and the
    rows do not: a workspace sync or a write-back run then (the app's watcher, an agent's
    hook) would read the rows and write the text back. Each agent's sync and write-back
    locks are held over that stretch (in id order, as nothing else takes two)."""
    from services.interop.sync import sync_lock  # the importers behind it: only to forget
    from services.interop.writeback import writeback_lock

    with ExitStack() as held:
        for ap in sorted(pv.agents, key=lambda a: a.agent_id):
            agent_dir = engram.config.agent_dir(ap.slug)
            held.enter_context(sync_lock(agent_dir))
            held.enter_context(writeback_lock(agent_dir))
        yield


def _edit_files(
    engram: EngramHandle, scope: ForgetScope, pv: ForgetPreview, notes: list[str]
) -> int:
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
        if scope.whole:
            adir = engram.config.agent_dir(ap.slug)
            if adir.is_dir():
                shutil.rmtree(adir, ignore_errors=True)
    if exported_gone:
        from services.interop.export_log import forget_exports

        forget_exports(engram.config.data_dir, exported_gone)
    return files_done


def _edit_native(engram: EngramHandle, pv: ForgetPreview, notes: list[str]) -> dict:
    """The agents' own files: rewritten, or named as not erased with the reason; then the
    history of a Codex memories repository they are in."""
    from services.forget.git_history import erase_history
    from services.forget.native import apply_native, backup_dir, scrub_earlier_backups
    from services.forget.plan import PlanTerms, said_by_kept

    bdir = backup_dir(engram.config.data_dir)
    done: list = []
    out: dict = {"native_files_rewritten": 0, "native_not_erased": 0, "native_backups": 0}
    # kept in the stored receipt too (paths and reasons, never the text)
    files: dict[str, list[str]] = {
        "native_rewritten_files": [],
        "native_backup_files": [],
        "native_not_erased_files": [],
    }
    for ap in pv.agents:
        for ed in ap.native:
            if ed.problem:
                out["native_not_erased"] += 1
                notes.append(f"{ed.path}: {ed.problem}")
                files["native_not_erased_files"].append(f"{ed.path}: {ed.problem}")
                continue
            try:
                backup = apply_native(ed, bdir)
            except OSError as exc:
                out["native_not_erased"] += 1
                notes.append(f"{ed.path}: not erased: {exc}")
                files["native_not_erased_files"].append(f"{ed.path}: not erased: {exc}")
                continue
            out["native_files_rewritten"] += 1
            files["native_rewritten_files"].append(str(ed.path))
            done.append(ed)
            lines = ", ".join(map(str, ed.lines[:20])) or f"{len(ed.removed)} entr(ies)"
            notes.append(f"{ed.path}: erased ({ed.kind}: {lines})")
            if backup:
                out["native_backups"] += 1
                files["native_backup_files"].append(backup)
                notes.append(f"{ed.path}: backup (forgotten lines replaced by a marker): {backup}")
    terms = [x for ap in pv.agents for x in ap.terms]
    kept = [k for ap in pv.agents for k in ap.kept]
    taken = set(files["native_backup_files"])
    for b in scrub_earlier_backups(engram.config.data_dir, PlanTerms(terms, kept), taken):
        notes.append(f"{b}: an earlier forget's backup, rewritten without it")
        out["native_backups_rewritten"] = out.get("native_backups_rewritten", 0) + 1
    # the scope's words a kept fact says would be cut out of its line in every commit
    held = said_by_kept(terms, kept)
    hist = erase_history(done, [x for x in terms if x not in held], notes)
    out.update(hist)
    out.update({k: v for k, v in files.items() if v})
    return out


def _verify_fact_scope(
    engram: EngramHandle, pv: ForgetPreview, notes: list[str]
) -> tuple[int, int, list]:
    """``--fact ID``: texts a kept fact also holds are proven gone by the fact's identity
    (``fact_traces``); the rest go through the full scan. Returns (checked, remaining, the
    texts left for the full scan)."""
    from services.forget import fact_traces as ft

    terms = [x for ap in pv.agents for x in ap.terms]
    alone, shared = ft.split_shared(terms)
    if not shared:
        return 0, 0, alone
    facts = [f for ap in pv.agents for f in ap.facts]
    ids = [f["id"] for f in facts]
    left = ft.own_traces(engram, ids, [ap.agent_id for ap in pv.agents])
    left += [
        f"its full-text entry (fact {f['id']})"
        for f in facts
        if f["content"] in shared and ft.fts_has(engram, f["id"], f["content"])
    ]
    kept = {k for v in shared.values() for k in v}
    rep = verify_forgotten(engram, list(shared), vectors=False)
    found = [f"{p} ({d})" for p, d in ft.unexplained(rep, kept, set(ids))] + left
    notes += [f"still present: {x}" for x in found[:20]]
    notes.append(
        f"{len(shared)} text(s) of the forgotten fact(s) are also in kept fact(s) "
        f"{', '.join(map(str, sorted(kept)[:10]))}: verified by the fact's own traces (row, "
        "history, full-text entry, vector) and every place those facts do not explain"
    )
    return len(shared), len(found), alone


def _verify_after(
    engram: EngramHandle,
    scope: ForgetScope,
    pv: ForgetPreview,
    notes: list[str],
    stored: dict[str, list[float]],
):
    remaining = checked = 0
    if scope.kind == "fact":
        checked, remaining, alone = _verify_fact_scope(engram, pv, notes)
        keep = set(alone)
        for ap in pv.agents:
            ap.terms = [x for x in ap.terms if x in keep]
    held = _held_by_kept(pv, notes)
    groups = (
        [(None, [x for ap in pv.agents for x in ap.terms if x not in held])]
        if scope.all_agents
        else [(ap.slug, [x for x in ap.terms if x not in held]) for ap in pv.agents]
    )
    extra = [scope.matching] if scope.matching and scope.matching not in held else []
    for slug, terms in groups:
        sample = verify_sample(terms, extra)
        if not sample:
            continue
        rep = verify_forgotten(engram, sample, agent=slug, stored=stored)
        if rep.stale_segments:
            notes += rebuild_leaky_segments(engram, rep.stale_segments)
            rep = verify_forgotten(engram, sample, agent=slug, stored=stored)
        rep.remaining = _not_kept_on_purpose(pv, rep.remaining)
        checked += len(sample)
        remaining += len(rep.remaining)
        notes += [f"still present: {p} ({d})" for p, d in rep.remaining[:20]]
    return checked, remaining


def _not_kept_on_purpose(pv: ForgetPreview, remaining: list) -> list:
    """What verify found, less the agents' own files the plan left alone on purpose
    (``ForgetScope.agent_files``): the receipt names those as not erased, with why."""
    kept = {
        Path(ed.path).resolve()
        for ap in pv.agents
        for ed in ap.native
        if ed.problem == AGENT_FILE_KEPT
    }
    if not kept:
        return remaining

    def on_purpose(kind: str, where: str) -> bool:
        if kind == "native":
            return any(where.startswith(f"{p} (") for p in kept)
        if kind == "git history":  # the memories repository a kept file is in
            repo = Path(where.split(": ", 1)[0])
            return any(p.is_relative_to(repo) for p in kept)
        return False

    return [(k, w) for k, w in remaining if not on_purpose(k, w)]


def _held_by_kept(pv: ForgetPreview, notes: list[str]) -> set[str]:
    """Terms (the scope's words) that a fact the user kept still says: they stay, by the
    user's choice, so the check after the forget looks for the forgotten facts' own texts."""
    from services.forget.plan import said_by_kept

    held = said_by_kept(
        [x for ap in pv.agents for x in ap.terms], [k for ap in pv.agents for k in ap.kept]
    )
    if held:
        notes.append(
            f"{len(held)} text(s) of the scope are also in the fact(s) you kept: "
            "verified by the forgotten facts' own texts"
        )
    return held


def delete_rows(
    engram: EngramHandle,
    scope: ForgetScope,
    pv: ForgetPreview,
    key: RuleKey,
    rid: int,
    notes: list[str],
) -> None:
    """The rows, in one transaction that also crosses "rows" off the receipt (rid)."""
    counts: dict[str, int] = {}
    hashes: set[str] = set()
    label = scope.label or f"forgotten {datetime.now():%Y-%m-%d %H:%M}"
    with ExitStack() as held:
        # a team store: each agent's writer lock, as a compile holds it while it checks that
        # no forget landed since it read and writes its layers (SQLite's write lock does this)
        for aid in sorted({ap.agent_id for ap in pv.agents}):
            held.enter_context(writer_lock(engram.db, aid))
        held.enter_context(engram.db.atomic())
        _delete_rows_locked(engram, scope, pv, key, counts, hashes, label, notes)
        done = {**counts, **journal.receipt_counts(rid)}  # the files' outcomes stay
        ForgetReceipt.update(counts=done, hashes=sorted(hashes)).where(
            ForgetReceipt.id == rid
        ).execute()
        journal.step_done(rid, "rows")


def _delete_rows_locked(
    engram: EngramHandle,
    scope: ForgetScope,
    pv: ForgetPreview,
    key: RuleKey,
    counts: dict[str, int],
    hashes: set[str],
    label: str,
    notes: list[str],
) -> None:
    if scope.wants_rule and scope.all_agents:
        terms = [x for ap in pv.agents for x in _rule_terms(scope, ap)] or (
            [scope.matching] if scope.matching else []
        )
        if terms:
            forget_rules.add_rule(key, None, label, terms)
            counts["rules"] = 1
    for ap in pv.agents:
        # under the lock, again: a compile that ran since the preview (an agent's hook, the
        # app's recompile) may have written layers that still held the text
        a = Agent.get_or_none(Agent.id == ap.agent_id)
        if a is not None:
            planned = {L["id"] for L in ap.layers}
            ap.layers = matching_layers(a, scope, ap.term_set())
            if {L["id"] for L in ap.layers} - planned:
                notes.append(f"{ap.slug}: compiled layers written since the preview hold it too")
        for k, v in ap.counts().items():
            counts[k] = counts.get(k, 0) + v
        hashes.update(keyed_many(key, ap.terms))
        _delete_agent_rows(ap)
        if scope.wants_rule and ap.terms and not scope.all_agents:
            forget_rules.add_rule(key, ap.agent_id, label, _rule_terms(scope, ap))
            counts["rules"] = counts.get("rules", 0) + 1
        # session rows stay (ids and paths, no content, logs cleared): they are the
        # processed-once claims that stop a hook re-reading the same transcript
        record_audit(
            ap.agent_id,
            "forget",
            after={"scope": scope.kind, "counts": ap.counts()},
            reason="forget (receipt kept)",
        )
    counts["backups"] = len(pv.backups)


def _rule_terms(scope: ForgetScope, ap: AgentPreview) -> list[str]:
    return ([scope.matching] if scope.matching else []) + [f["content"] for f in ap.facts]


def _delete_agent_rows(ap: AgentPreview) -> None:
    fact_rows.delete_rows(ap.agent_id, [f["id"] for f in ap.facts])
    for part in chunks(ap.history):
        AuditEvent.delete().where(AuditEvent.id.in_(list(part))).execute()
    for part in chunks([e["id"] for e in ap.episodes]):
        Episode.delete().where(Episode.id.in_(list(part))).execute()
    t = ap.term_set()
    for fid in ap.metadata:
        fact_rows.rewrite_metadata(fid, lambda meta: prune_strings(meta, t))
    for sinfo in ap.sessions:
        srow = Session.get_or_none(Session.id == sinfo["id"])
        if srow is None:
            continue
        if sinfo["whole_log"]:
            srow.log = None
        else:
            kept = [ln for ln in (srow.log or "").splitlines(keepends=True) if not t.mentions(ln)]
            srow.log = "".join(kept) or None
        srow.save()
    lids = [L["id"] for L in ap.layers]
    if lids:
        CompiledLayer.delete().where(CompiledLayer.id.in_(lids)).execute()


def prune_strings(v, t: Terms):
    """A JSON value without the strings that mention a forgotten term."""
    if isinstance(v, dict):
        return {k: prune_strings(x, t) for k, x in v.items() if not _gone(x, t)}
    if isinstance(v, list):
        return [prune_strings(x, t) for x in v if not _gone(x, t)]
    return v


def _gone(x, t: Terms) -> bool:
    return isinstance(x, str) and t.mentions(x)


def rebuild_leaky_segments(engram: EngramHandle, agent_ids: set[int]) -> list[str]:
    """A vector segment holding forgotten text in slots Chroma never initialised (written
    before the allocator was hardened): rebuild that agent's index from its own vectors,
    then compact, so the segment files are written anew."""
    notes = []
    for aid in sorted(agent_ids):
        notes += purge_vectors(engram, aid, set())
        a = Agent.get_or_none(Agent.id == aid)
        notes.append(
            f"{a.slug if a else aid}: vector index rewritten (its segment files held stale memory)"
        )
    notes += compact_store(engram)
    return notes


def recompile(engram: EngramHandle, slug: str) -> str:
    from services.lifecycle.compile import CompileService

    try:
        CompileService(engram.agent(slug)).compile()
        return f"{slug}: compiled layers rebuilt without it"
    except Exception as exc:  # the stale layers are gone already; say what failed
        return f"{slug}: compiled layers were deleted but recompiling failed: {exc}"

"""Verifying ``forget --fact ID``: that fact's own traces are gone, whatever other facts say.

A kept fact may hold the forgotten fact's words ("The deploy key lives in the vault" and
"… in the vault under ops/keys"): its row, its history and the store's bytes legitimately
hold them, so a byte scan for the text cannot tell the two apart. For such a text the proof
is by identity: no row with the forgotten id, no audit event of it, no full-text entry for
its rowid, no vector with its id; and no other place (an episode, a session log, a compiled
layer, another fact's history) that the kept facts do not explain. Texts no kept fact holds
are verified by the full scan, as any forget is.
"""

from __future__ import annotations

from models import AuditEvent, CompiledLayer
from models.db import is_postgres
from services.forget.files import Terms
from services.forget.matching import fold
from services.store import fact_rows
from services.store.handle import EngramHandle
from services.store.text import fts_query, words


def split_shared(terms: list[str]) -> tuple[list[str], dict[str, list[int]]]:
    """(terms no surviving fact mentions, term → the kept facts that mention it)."""
    uniq = [x for x in dict.fromkeys(terms) if x and x.strip()]
    shared: dict[str, list[int]] = {}
    if not uniq:
        return [], shared
    by_fold: dict[str, list[str]] = {}
    for x in uniq:
        by_fold.setdefault(fold(x), []).append(x)
    t = Terms(uniq)  # one pass: each text folded once, terms looked up by index
    for fid, content in fact_rows.fact_texts():
        if t.mentions(content):
            for f in t.which(content):
                for x in by_fold.get(f, ()):
                    shared.setdefault(x, []).append(fid)
    return [x for x in uniq if x not in shared], shared


def own_traces(engram: EngramHandle, ids: list[int], agent_ids: list[int]) -> list[str]:
    """Places that still hold a forgotten fact by its id."""
    out = []
    if ids and fact_rows.any_exist(ids):
        out.append("its fact row")
    if ids and AuditEvent.select().where(AuditEvent.fact_id.in_(ids)).exists():
        out.append("its history")
    if engram.index is not None:
        for aid in agent_ids:
            if set(ids) & set(engram.index.all_ids(aid)):
                out.append("its vector")
    return out


def fts_has(engram: EngramHandle, fid: int, content: str) -> bool:
    """Does the full-text index still hold an entry for the forgotten rowid?"""
    if is_postgres(engram.db):
        return False  # the tsvector is a column of the row, gone with it
    phrase = fts_query('"' + " ".join(words(content)) + '"')
    if not phrase:
        return False
    row = engram.db.execute_sql(
        "SELECT 1 FROM fact_fts WHERE fact_fts MATCH ? AND rowid = ?", (phrase, fid)
    ).fetchone()
    return row is not None


def unexplained(rep, kept: set[int], gone: set[int] | None = None) -> list[tuple[str, str]]:
    """Logical hits the kept facts do not explain (their rows and their own history are
    theirs; raw bytes and native files holding their text are theirs too; a compiled layer
    whose lines come from none of the forgotten facts holds the kept facts' text)."""
    out = []
    for place, detail in rep.remaining:
        what = place.split("/", 1)[-1]
        if what.startswith("fact ") and int(what.split()[1]) in kept:
            continue
        if what.startswith("history ") and _event_fact(what) in kept:
            continue
        if what.startswith("layer ") and gone is not None and _layer_without(what, gone):
            continue
        if place in ("raw", "native", "vector"):
            continue
        out.append((place, detail))
    return out


def _layer_without(what: str, gone: set[int]) -> bool:
    """Is this compiled layer built without any of the forgotten facts (its per-line
    provenance names none of them)?"""
    layer = CompiledLayer.get_or_none(CompiledLayer.id == int(what.split()[1]))
    if layer is None:
        return True
    return not any(gone & set(ids or ()) for _, ids in (layer.provenance or []))


def _event_fact(what: str) -> int | None:
    ev = AuditEvent.get_or_none(AuditEvent.id == int(what.split()[1]))
    return ev.fact_id if ev is not None else None

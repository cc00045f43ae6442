"""A whole agent as JSON lines, and back: ``export_archive`` / ``import_archive``.

One JSON object per line, in a fixed order so two exports of the same agent are identical:
a header (``{"type": "engram-archive", "version": 1, ...}``), the agent, then every fact (all
columns: ids, status, supersession links, access counts, metadata), session, episode, compiled
layer and audit event, each in id order, and optionally each fact's vector.

Ids: an import keeps the archive's ids when none of them is taken in the target store (a
fresh store, a restore after a purge), so export → import → export gives the same lines
(the header's ``exported_at`` aside). When ids collide (importing a copy next to the
original with ``--agent NEW``), facts, sessions, episodes, layers and audit events get new
ids and every reference to them is rewritten: ``superseded_by``, audit ``fact_id`` and the
ids inside audit snapshots, episodes' sessions, layers' provenance. Audit events that refer
to facts deleted before the export keep their old number (there is no fact to map it to).

Vectors (``--vectors``) come back to within float32 rounding: Chroma re-normalises cosine
vectors on insert, so a re-export can differ in the last bit; every other line is identical.

Rows are written as they are, not through the ingest pipeline (an archive is a copy, not new
memories, so no dedup or supersession), but every text in them passes the write policy:
secrets and personal data as the agent's policy says, and a forget rule keeps a fact, an
episode or a layer out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

import peewee as pw

from models import Agent, AuditEvent, CompiledLayer, Episode, Fact, Session
from models.tables import utcnow
from services.errors import InvalidInput
from services.ingest.policy import Target, WritePolicy, scrub_snapshot
from services.interop.export_log import record_export
from services.store import fact_rows, fact_writes
from services.store.atomic import atomic_write, check_target
from services.store.chunks import chunks
from services.store.handle import EngramHandle, MemoryHandle
from services.store.text import content_hash, require_clean

FORMAT = "engram-archive"
VERSION = 1
TABLES = (
    ("fact", Fact),
    ("session", Session),
    ("episode", Episode),
    ("layer", CompiledLayer),
    ("audit", AuditEvent),
)
AGENT_FIELDS = ("slug", "name", "kind", "workspace", "settings", "created_at")


@dataclass
class ArchiveReport:
    agent: str
    counts: dict = field(default_factory=dict)
    ids_remapped: bool = False
    vectors: int = 0  # taken from the archive
    embedded: int = 0  # embedded during the import (the archive had no vectors for them)
    blocked: int = 0
    embedded_later: int = 0  # facts without vectors (no model): `engram verify --repair`
    skipped_lines: int = 0  # malformed or pathological lines (bad JSON, too deep, too long)

    def to_json(self) -> dict:
        return self.__dict__.copy()


def _plain(v):
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    return v


def _row(model, row) -> dict:
    out = {}
    for f in model._meta.sorted_fields:
        if f.name == "agent":
            continue
        key = f.column_name if isinstance(f, pw.ForeignKeyField) else f.name
        out[key] = _plain(row.__data__.get(f.name))
    return out


def _typed(model, data: dict) -> dict:
    """JSON values back to what the columns hold."""
    out = {}
    for f in model._meta.sorted_fields:
        if f.name == "agent":
            continue
        key = f.column_name if isinstance(f, pw.ForeignKeyField) else f.name
        if key not in data:
            continue
        v = data[key]
        if v is not None and isinstance(f, pw.DateTimeField):
            v = datetime.fromisoformat(v)
        elif v is not None and isinstance(f, pw.DateField):
            v = date.fromisoformat(v)
        out[f.name] = v
    return out


def export_archive(
    memory: MemoryHandle, out: Path, vectors: bool = False, force: bool = False
) -> dict:
    """Write the archive; returns the counts per kind of line."""
    check_target(out, overwrite=force, create_parent=False)  # refuse before any work
    a = Agent.get_by_id(memory.agent_id)
    lines = [
        {"type": FORMAT, "version": VERSION, "exported_at": utcnow().isoformat(), "agent": a.slug}
    ]
    lines.append({"type": "agent", **{k: _plain(getattr(a, k)) for k in AGENT_FIELDS}})
    counts = {}
    for kind, model in TABLES:
        rows = model.select().where(model.agent == memory.agent_id).order_by(model.id)
        n = 0
        for r in rows:
            lines.append({"type": kind, **_row(model, r)})
            n += 1
        counts[kind] = n
    if vectors:
        index = memory.engram.index
        if index is None:
            raise InvalidInput(
                "--vectors needs the embedding model: "
                + (memory.engram.semantic_error or "semantic search is off")
            )
        vecs = index.vectors(memory.agent_id)
        for fid in sorted(vecs):
            lines.append({"type": "vector", "fact": fid, "vector": [float(x) for x in vecs[fid]]})
        counts["vector"] = len(vecs)
    text = "".join(json.dumps(l, ensure_ascii=False, sort_keys=True) + "\n" for l in lines)
    atomic_write(out, text, overwrite=force, create_parent=False)
    # a forget must reach this copy too
    record_export(memory.engram.config.data_dir, memory.slug, out, "archive")
    return counts


MAX_LINE = 32 * 1024 * 1024  # a fact with its vector is a few KB; 32 MB is not a line


def _parse_line(raw: bytes) -> dict | None:
    """One archive line, or None when it is not one (bad UTF-8 or JSON, nested past what
    the parser can follow, not an object with a type)."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError):
        return None
    return obj if isinstance(obj, dict) and isinstance(obj.get("type"), str) else None


def _raw_lines(fh):
    """Lines up to MAX_LINE bytes; a longer one is yielded as None (and not held in memory)."""
    while True:
        raw = fh.readline(MAX_LINE + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            while (rest := fh.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                pass
            yield None
            continue
        yield raw


def read_archive_lines(path: Path) -> tuple[list[dict], int]:
    """(lines, bad lines skipped). The header must be sound; any other malformed or
    pathological line is skipped and counted, so one bad line costs one line."""
    lines: list[dict] = []
    skipped = 0
    with open(path, "rb") as fh:
        for raw in _raw_lines(fh):
            if raw is not None and not raw.strip():
                continue
            obj = _parse_line(raw) if raw is not None else None
            if obj is None:
                if not lines:
                    raise InvalidInput(
                        f"{path} is not an Engram agent archive (first line must be the "
                        f"{FORMAT} header)"
                    )
                skipped += 1
                continue
            lines.append(obj)
    if not lines or lines[0].get("type") != FORMAT:
        raise InvalidInput(
            f"{path} is not an Engram agent archive (first line must be the {FORMAT} header)"
        )
    version = lines[0].get("version", 0)
    if not isinstance(version, int) or version > VERSION:
        raise InvalidInput(
            f"{path} was written by a newer Engram (archive version "
            f"{version}); update Engram to import it"
        )
    return lines, skipped


def import_archive(
    engram: EngramHandle, path: Path, slug: str | None = None, vectors: bool = True
) -> ArchiveReport:
    """``vectors`` False: the rows only (``engram migrate`` copies the vectors itself, in
    batches it can resume)."""
    lines, skipped = read_archive_lines(Path(path))
    by_type: dict[str, list[dict]] = {}
    for l in lines[1:]:
        by_type.setdefault(str(l.get("type")), []).append(l)
    agents = by_type.get("agent") or []
    if len(agents) != 1:
        raise InvalidInput(f"{path}: an archive holds exactly one agent line")
    ad = agents[0]
    slug = slug or ad["slug"]
    if Agent.get_or_none(Agent.slug == slug) is not None:
        raise InvalidInput(
            f"agent {slug!r} exists already; import under another name with "
            "--agent NEW (an archive is never merged into a live agent)"
        )
    same = slug == ad["slug"]
    # a copy under a new name must not sync into the original's workspace files
    engram.add_agent(
        slug,
        name=ad.get("name") if same else slug,
        kind=ad.get("kind") or "generic",
        workspace=ad.get("workspace") if same else None,
    )
    rep = ArchiveReport(agent=slug, skipped_lines=skipped)
    key = engram.forget_key()
    with engram.db.atomic():
        agent = Agent.get(Agent.slug == slug)
        agent.settings = ad.get("settings") or {}
        if ad.get("created_at"):
            agent.created_at = datetime.fromisoformat(ad["created_at"])
        agent.save()
        keep = not any(
            _taken(model, [r["id"] for r in by_type.get(kind, [])]) for kind, model in TABLES
        )
        rep.ids_remapped = not keep
        # an archive is memory text from outside: every text field passes the write policy
        policy = WritePolicy(agent.id, agent.settings.get("pii"), key)
        facts, changed = _sanitized_facts(policy, by_type.get("fact", []))
        fact_map = _insert_facts(engram, agent, facts, keep, rep, len(by_type.get("fact", [])))

        def insert(model, kind: str, rows: list[dict], fix) -> dict[int, int]:
            return _insert_plain(model, agent, rows, keep, rep, kind, fix=fix)

        def remap(d: dict, key: str, ids: dict) -> dict:
            return {**d, key: ids.get(d.get(key), d.get(key))}  # an id not archived stays

        sess_map = insert(
            Session,
            "session",
            by_type.get("session", []),
            lambda d: {**d, "log": _sanitized_log(policy, d.get("log"))},
        )
        insert(
            Episode,
            "episode",
            _sanitized(policy, by_type.get("episode", []), "summary", Target.EPISODE),
            lambda d: remap(d, "session_id", sess_map),
        )
        layers = _sanitized(policy, by_type.get("layer", []), "markdown", Target.OTHER)
        insert(
            CompiledLayer,
            "layer",
            layers,
            lambda d: {
                **d,
                "provenance": [
                    [ln, [fact_map.get(i, i) for i in ids]]
                    for ln, ids in (d.get("provenance") or [])
                ],
            },
        )
        insert(
            AuditEvent,
            "audit",
            by_type.get("audit", []),
            lambda d: {
                **remap(d, "fact_id", fact_map),
                "before": scrub_snapshot(_remap_snap(d.get("before"), fact_map), policy),
                "after": scrub_snapshot(_remap_snap(d.get("after"), fact_map), policy),
            },
        )
    # a fact whose text the policy changed is embedded anew: its archived vector is of the raw text
    if vectors:
        kept = [r for r in by_type.get("vector", []) if r.get("fact") not in changed]
        _restore_vectors(engram, agent.id, kept, fact_map, rep)
    engram.bus.emit("agent.added", slug=slug)
    return rep


def _taken(model, ids: list[int]) -> bool:
    from models.db import is_postgres

    if is_postgres(model._meta.database):
        # a team store: row security hides other members' rows from this check, so ids are
        # always the server's (its sequence), never the archive's
        return bool(ids)
    return any(model.select().where(model.id.in_(list(part))).exists() for part in chunks(ids))


def _remap_snap(snap, fact_map):
    if not isinstance(snap, dict):
        return snap
    out = dict(snap)
    for k in ("id", "superseded_by"):
        if out.get(k) in fact_map:
            out[k] = fact_map[out[k]]
    return out


def _id_map(model, old_ids: list[int], keep: bool) -> dict[int, int]:
    """Old id → id in this store: the same, or fresh ids after the highest one in use
    (assigned up front, so rows go in by the hundred and references are known before)."""
    if keep:
        return {i: i for i in old_ids}
    from models.db import is_postgres

    db = model._meta.database
    if is_postgres(db) and old_ids:
        seq = f"pg_get_serial_sequence('{model._meta.table_name}', 'id')"
        got = db.execute_sql(
            f"SELECT nextval({seq}) FROM generate_series(1, %s)", (len(old_ids),)
        ).fetchall()
        return {old: int(new) for old, (new,) in zip(old_ids, got)}
    base = (model.select(pw.fn.MAX(model.id)).scalar() or 0) + 1
    return {old: base + k for k, old in enumerate(old_ids)}


def _sanitized_facts(policy: WritePolicy, rows: list[dict]) -> tuple[list[dict], set[int]]:
    """Facts that may be stored, with their text as the policy leaves it, and the ids of
    those whose text changed (their archived vectors describe the raw text)."""
    kept: list[dict] = []
    changed: set = set()
    for d in rows:
        verdict = policy.sanitize(d.get("content"))
        if not verdict.storable:
            continue
        text = require_clean(verdict.text)
        if text != d.get("content"):
            changed.add(d.get("id"))
            d = {**d, "content": text, "content_hash": content_hash(text)}
        if verdict.pending and d.get("status") == "active":
            d = {**d, "status": "pending"}
        kept.append({**d, **_clean_fields(policy, d)})
    return kept, changed


def _clean_fields(policy: WritePolicy, d: dict) -> dict:
    """Subject, tags and metadata are memory text too (issue 20: the policy covers every
    field); what the policy blocks is left out."""
    return {
        "category": policy.category(d.get("category")),
        "subject": policy.field(d.get("subject")),
        "tags": policy.tags(d.get("tags") or []),
        "metadata": policy.metadata(d.get("metadata") or {}),
    }


def _sanitized(policy: WritePolicy, rows: list[dict], field: str, target: Target) -> list[dict]:
    out = []
    for d in rows:
        verdict = policy.sanitize(d.get(field), target)
        if verdict.storable:
            tags = {"tags": policy.tags(d["tags"])} if isinstance(d.get("tags"), list) else {}
            out.append({**d, field: require_clean(verdict.text), **tags})
    return out


def _sanitized_log(policy: WritePolicy, log: str | None) -> str | None:
    if not log:
        return log
    lines = []
    for line in log.split("\n"):
        verdict = policy.sanitize(line, Target.OTHER)
        lines.append("[forgotten]" if verdict.blocked_by else require_clean(verdict.text))
    return "\n".join(lines)


def _insert_facts(engram: EngramHandle, agent, kept, keep, rep, total: int) -> dict[int, int]:
    rep.blocked = total - len(kept)
    fact_map = _id_map(Fact, [d["id"] for d in kept], keep)
    links, out = [], []
    for d in kept:
        data = _typed(Fact, d)
        old_id = data.pop("id")
        sup = data.pop("superseded_by", None)
        data["id"] = fact_map[old_id]
        out.append(data)
        if sup in fact_map:
            links.append((fact_map[sup], fact_map[old_id]))
    fact_writes.insert_archived(Fact, agent.id, out)
    # a fact is superseded by a later one: link once both exist (foreign keys are checked
    # row by row)
    fact_writes.link_successors(engram.db, links)
    rep.counts["fact"] = len(fact_map)
    return fact_map


def _insert_plain(model, agent, rows, keep, rep, kind, fix=None) -> dict[int, int]:
    id_map = _id_map(model, [d["id"] for d in rows], keep)
    out = []
    for d in rows:
        data = _typed(model, fix(d) if fix else d)
        data["id"] = id_map[data["id"]]
        out.append(data)
    fact_writes.insert_archived(model, agent.id, out)
    rep.counts[kind] = len(id_map)
    return id_map


def _restore_vectors(engram: EngramHandle, agent_id, rows, fact_map, rep) -> None:
    index = engram.index
    if index is None:
        rep.embedded_later = len(fact_map)
        return
    import numpy as np

    have = {fact_map[r["fact"]]: r["vector"] for r in rows if r["fact"] in fact_map}
    if have:
        ids = sorted(have)
        texts = dict(fact_rows.fact_texts(agent_id))
        index.upsert(
            agent_id,
            ids,
            [texts[i] for i in ids],
            np.asarray([have[i] for i in ids], dtype=np.float32),
        )
        rep.vectors = len(ids)
    rest = sorted(set(fact_map.values()) - set(have))
    if rest:  # archive without vectors: embed now
        texts = dict(fact_rows.fact_texts(agent_id))
        index.upsert(agent_id, rest, [texts[i] for i in rest])
        rep.embedded = len(rest)

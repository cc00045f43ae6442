"""SQLite, FTS5 and Chroma agree? Orphan vectors, missing vectors, stale documents, FTS drift.

The SQLite rows are the truth: ``repair`` rebuilds FTS from rows, deletes orphan vectors and
(re-)embeds missing or stale ones.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from models import Agent, Fact
from models.db import is_postgres
from services.store.chunks import chunks
from services.store.handle import EngramHandle


@dataclass
class AgentCheck:
    slug: str
    facts: int = 0
    vectors: int = 0
    missing_vectors: list[int] = field(default_factory=list)
    orphan_vectors: list[int] = field(default_factory=list)
    stale_vectors: list[int] = field(default_factory=list)


@dataclass
class VerifyReport:
    ok: bool = True
    sqlite_ok: bool = True
    fts_ok: bool = True
    semantic: bool = True
    agents: list[AgentCheck] = field(default_factory=list)
    repaired: dict = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    loose_permissions: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def _fts_ok(db: Any, table: str) -> bool:
    try:
        db.execute_sql(f"INSERT INTO {table}({table}, rank) VALUES('integrity-check', 1)")
        return True
    except Exception:
        return False


def verify_store(engram: EngramHandle, repair: bool = False) -> VerifyReport:
    db = engram.db
    rep = VerifyReport(semantic=engram.index is not None)
    if is_postgres(db):
        _check_server(db, rep, repair)
    else:
        _check_sqlite(db, rep, repair)
    _check_vectors(engram, rep, repair)
    _check_permissions(engram, rep, repair)
    # a repaired store is reported as it was found; run again to see it clean
    problems = (
        bool(rep.loose_permissions)
        or not rep.sqlite_ok
        or not rep.fts_ok
        or any(c.missing_vectors or c.orphan_vectors or c.stale_vectors for c in rep.agents)
    )
    rep.ok = not problems
    return rep


def _check_server(db: Any, rep: VerifyReport, repair: bool) -> None:
    """A team store: the full text is a generated column (it cannot drift from its row);
    what can break is an index left invalid by an interrupted build. ``sqlite_ok`` reports
    the database, whichever it is."""
    bad = [
        r[0]
        for r in db.execute_sql(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND NOT i.indisvalid"
        ).fetchall()
    ]
    if bad:
        rep.sqlite_ok = False
        rep.messages.append("postgresql: invalid index(es): " + ", ".join(bad))
        if repair:
            for name in bad:
                db.execute_sql(f'REINDEX INDEX "{name}"')
            rep.repaired["indexes"] = bad
    missing = db.execute_sql("SELECT count(*) FROM fact WHERE fts IS NULL").fetchone()[0]
    if missing:
        rep.fts_ok = False
        rep.messages.append(f"{missing} fact(s) without a full-text vector")


def _check_sqlite(db: Any, rep: VerifyReport, repair: bool) -> None:
    res = db.execute_sql("PRAGMA quick_check").fetchall()
    if res != [("ok",)]:
        rep.sqlite_ok = False
        rep.messages.append("sqlite: " + "; ".join(r[0] for r in res[:5]))
    for table in ("fact_fts", "episode_fts"):
        if not _fts_ok(db, table):
            rep.fts_ok = False
            rep.messages.append(f"{table} disagrees with its table")
            if repair:
                db.execute_sql(f"INSERT INTO {table}({table}) VALUES('rebuild')")
                rep.repaired[table] = "rebuilt"


def _check_vectors(engram: EngramHandle, rep: VerifyReport, repair: bool) -> None:
    if engram.index is None:
        rep.messages.append("vector index not checked: " + (engram.semantic_error or "off"))
    else:
        for a in Agent.select().order_by(Agent.slug):
            chk = AgentCheck(a.slug)
            rows = dict(Fact.select(Fact.id, Fact.content).where(Fact.agent == a.id).tuples())
            chk.facts = len(rows)
            vec_ids = engram.index.all_ids(a.id)
            chk.vectors = len(vec_ids)
            chk.missing_vectors = sorted(set(rows) - vec_ids)
            chk.orphan_vectors = sorted(vec_ids - set(rows))
            common = sorted(set(rows) & vec_ids)
            for part in chunks(common, 2000):  # vector-store reads, not SQL
                chk.stale_vectors += engram.index.stale_ids(a.id, {i: rows[i] for i in part})
            chk.stale_vectors.sort()
            if repair and (chk.missing_vectors or chk.orphan_vectors or chk.stale_vectors):
                engram.index.delete(a.id, chk.orphan_vectors)
                redo = chk.missing_vectors + chk.stale_vectors
                for part in chunks(redo, 256):  # one embedding batch
                    engram.index.upsert(a.id, list(part), [rows[i] for i in part])
                rep.repaired[a.slug] = {
                    "orphans_deleted": len(chk.orphan_vectors),
                    "vectors_written": len(redo),
                }
            rep.agents.append(chk)


def _check_permissions(engram: EngramHandle, rep: VerifyReport, repair: bool) -> None:
    """Store files other local users can read are a finding (``--repair`` tightens them)."""
    from services.store.backup import db_path
    from services.store.permissions import describe_loose, tighten

    data_dir = Path(engram.config.data_dir)
    extra = [p for p in [db_path(engram)] if p is not None]
    rep.loose_permissions = describe_loose(data_dir, extra)
    rep.messages += rep.loose_permissions
    if repair and rep.loose_permissions:
        tighten(data_dir, extra)

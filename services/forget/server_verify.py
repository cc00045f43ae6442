"""What ``forget --verify`` can prove on a team store, through queries: a server's bytes are
not ours to read. Each guarantee is listed as held, failed, or out of reach."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models import Agent
from models.db import is_postgres

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

VECTOR_MATCH = 0.995  # cosine at which a stored vector is the forgotten text's own embedding


def is_server_store(engram: EngramHandle) -> bool:
    return is_postgres(engram.db) or str(engram.config.vector_location).startswith(
        ("http://", "https://")
    )


def server_findings(
    engram: EngramHandle, texts: list[str], agents: list[Agent], guarantees: list[str]
):
    """What remains on a team store (empty for a local one); its guarantees appended."""
    if not is_server_store(engram):
        return []
    remaining, notes = server_checks(engram, texts, agents)
    guarantees += notes
    return remaining


def server_checks(
    engram: EngramHandle, texts: list[str], agents: list[Agent]
) -> tuple[list, list[str]]:
    """(remaining places, guarantees as sentences)."""
    remaining: list[tuple[str, str]] = []
    notes: list[str] = []
    if is_postgres(engram.db):
        remaining += _fulltext(engram.db, texts, agents)
        remaining += _entities(engram.db, texts, agents)
        unvacuumed = _not_vacuumed_since_forget(engram.db)
        notes.append(
            "held: no row, audit snapshot, episode, session log, layer or entity name holds "
            "it (queried)"
            if not remaining
            else "failed: rows still hold it"
        )
        notes.append(
            "held: no tsvector entry matches it (full-text index queried)"
            if not any(p.endswith("tsvector") for p, _ in remaining)
            else "failed: the full-text index still matches it"
        )
        notes.append(
            "held: every text table was rewritten (VACUUM FULL equivalent, by the owner's "
            "engram_compact) after the last forget, so no dead tuple keeps its text"
            if not unvacuumed
            else f"not yet: {', '.join(unvacuumed)} not rewritten since the last forget"
        )
        sampled = _sampled_statistics(engram.db)
        remaining += [
            ("pg_statistic", f"planner statistics of {c} hold sampled values")
            for c in sampled or []
        ]
        notes.append(_statistics_note(sampled))
        notes.append(
            "out of reach: WAL segments, replicas and base backups on the PostgreSQL "
            "server keep old pages until the server recycles them (the operator's part)"
        )
    if is_postgres(engram.db) and getattr(engram.index, "kind", "") == "pgvector":
        hits = _vectors(engram, texts, agents)
        remaining += hits
        notes.append(
            "held: no vector in PostgreSQL (pgvector) is the text's embedding (queried)"
            if not hits
            else "failed: PostgreSQL still holds its vector"
        )
    elif str(engram.config.vector_location).startswith(("http://", "https://")):
        hits = _vectors(engram, texts, agents)
        remaining += hits
        if engram.embedder is None:
            notes.append("not checked: vectors (the embedding model is not loaded)")
        else:
            notes.append(
                "held: no vector in the Chroma server is the text's embedding (queried)"
                if not hits
                else "failed: the Chroma server still holds its vector"
            )
        notes.append(
            "out of reach: the Chroma server's files (the collection was rebuilt without "
            "the vectors; freed bytes on the server disk are the operator's part)"
        )
    return remaining, notes


def _sampled_statistics(db) -> list[str] | None:
    """Memory-text columns whose planner statistics hold sampled values (pg_stats, read by
    the owner's function: a member cannot read the statistics of tables under row
    security). None: a store before schema v12, which cannot say."""
    try:
        with db.atomic():
            return list(db.execute_sql("SELECT engram_sampled_text_columns()").fetchone()[0])
    except Exception:
        return None


def _statistics_note(sampled: list[str] | None) -> str:
    if sampled is None:
        return "not checked: planner statistics (the store predates schema v12)"
    if not sampled:
        return (
            "held: no planner statistics hold sampled memory text (pg_stats queried; text "
            "columns have statistics target 0)"
        )
    return (
        f"failed: planner statistics of {', '.join(sampled)} hold sampled values, which may "
        "include the forgotten text (an ANALYZE ran with a statistics target above 0, e.g. "
        "a DBA's by hand); the next forget on this store clears them"
    )


def _fulltext(db, texts, agents) -> list[tuple[str, str]]:
    out = []
    ids = [a.id for a in agents]
    for t in texts:
        for table in ("fact", "episode"):
            n = db.execute_sql(
                f"SELECT count(*) FROM {table} WHERE agent_id = ANY(%s) "
                "AND fts @@ phraseto_tsquery('english', %s)",
                (ids, t),
            ).fetchone()[0]
            if n:
                out.append((f"{table}.tsvector", f"{n} row(s) whose full text matches {t!r}"))
    return out


def _not_vacuumed_since_forget(db) -> list[str]:
    """Text tables not rewritten since the newest forget receipt this role can see (the
    owner's ``engram_compact`` logs each rewrite in ``maintenance_log``)."""
    from datetime import UTC

    from models import ForgetReceipt
    from models.server_schema import COMPACT_TABLES

    last = ForgetReceipt.select().order_by(ForgetReceipt.id.desc()).first()
    if last is None:
        return []
    if not db.execute_sql("SELECT to_regclass('maintenance_log') IS NOT NULL").fetchone()[0]:
        return ["(no compaction log: the store predates schema v8)"]
    rows = db.execute_sql(
        "SELECT t, max(at) FROM maintenance_log, unnest(tables) AS t "
        "WHERE action = 'compact' GROUP BY t"
    ).fetchall()
    when = {t: at.astimezone(UTC).replace(tzinfo=None) for t, at in rows}
    present = {
        r[0]
        for r in db.execute_sql(
            "SELECT relname FROM pg_class WHERE relname = ANY(%s) AND relkind = 'r'",
            (list(COMPACT_TABLES),),
        ).fetchall()
    }
    return sorted(t for t in present if t not in when or when[t] < last.created_at)


def _entities(db, texts, agents) -> list[tuple[str, str]]:
    """An entity's name or alias that is one of the forgotten texts (a forgotten entity
    must not survive in ``entity``)."""
    out = []
    ids = [a.id for a in agents]
    for t in texts:
        n = db.execute_sql(
            "SELECT count(*) FROM entity WHERE agent_id = ANY(%s) AND (lower(name) = lower(%s) "
            "OR position(lower(%s) IN lower(name)) > 0 OR position(lower(%s) IN lower(aliases)) > 0)",
            (ids, t, t, t),
        ).fetchone()[0]
        if n:
            out.append(("entity", f"{n} entity name(s) or alias(es) holding {t!r}"))
    return out


def _vectors(engram: EngramHandle, texts, agents) -> list[tuple[str, str]]:
    if engram.embedder is None or engram.index is None:
        return []
    out = []
    vecs = engram.embedder.embed(list(texts))
    for a in agents:
        for t, v in zip(texts, vecs):
            for fid, cos in engram.index.query(a.id, v, k=3):
                if cos >= VECTOR_MATCH:
                    out.append(("vector", f"{a.slug}: vector {fid} (cosine {cos:.4f}) for {t!r}"))
    return out

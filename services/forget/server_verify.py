"""What ``forget --verify`` can prove on a team store, through queries: a server's bytes are
not ours to read. Each guarantee is listed as held, failed, or out of reach."""

from __future__ import annotations

from models import Agent
from models.db import is_postgres

VECTOR_MATCH = 0.995  # cosine at which a stored vector is the forgotten text's own embedding


def is_server_store(engram) -> bool:
    return is_postgres(engram.db) or str(engram.config.vector_location).startswith(
        ("http://", "https://")
    )


def server_findings(engram, texts: list[str], agents: list[Agent], guarantees: list[str]):
    """What remains on a team store (empty for a local one); its guarantees appended."""
    if not is_server_store(engram):
        return []
    remaining, notes = server_checks(engram, texts, agents)
    guarantees += notes
    return remaining


def server_checks(engram, texts: list[str], agents: list[Agent]) -> tuple[list, list[str]]:
    """(remaining places, guarantees as sentences)."""
    remaining: list[tuple[str, str]] = []
    notes: list[str] = []
    if is_postgres(engram.db):
        remaining += _fulltext(engram.db, texts, agents)
        unvacuumed = _not_vacuumed_since_forget(engram.db)
        notes.append(
            "held: no row, audit snapshot, episode, session log or layer holds it (queried)"
            if not remaining
            else "failed: rows still hold it"
        )
        notes.append(
            "held: no tsvector entry matches it (full-text index queried)"
            if not any(p.endswith("tsvector") for p, _ in remaining)
            else "failed: the full-text index still matches it"
        )
        notes.append(
            "held: every text table was rewritten (VACUUM FULL) after the last forget, so "
            "no dead tuple keeps its text"
            if not unvacuumed
            else f"not yet: {', '.join(unvacuumed)} not vacuumed since the last forget"
        )
        notes.append(
            "out of reach: WAL segments, replicas and base backups on the PostgreSQL "
            "server keep old pages until the server recycles them (the operator's part)"
        )
    if str(engram.config.vector_location).startswith(("http://", "https://")):
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
    """Text tables whose last VACUUM is older than the newest forget receipt (the server's
    dead-tuple counters lag behind; the vacuum time does not)."""
    from datetime import UTC

    from models import ForgetReceipt
    from services.forget.purge import PG_TEXT_TABLES

    last = ForgetReceipt.select().order_by(ForgetReceipt.id.desc()).first()
    if last is None:
        return []
    rows = db.execute_sql(
        "SELECT relname, last_vacuum FROM pg_stat_user_tables WHERE relname = ANY(%s)",
        (list(PG_TEXT_TABLES),),
    ).fetchall()
    stale = []
    for name, when in rows:
        if when is None or when.astimezone(UTC).replace(tzinfo=None) < last.created_at:
            stale.append(name)
    return sorted(stale)


def _vectors(engram, texts, agents) -> list[tuple[str, str]]:
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

"""Vectors in the team store's own PostgreSQL (pgvector, HNSW, cosine): ``fact_vector`` rows
under the same row-level security, transactions and forget as the facts they belong to.

The same calls as the Chroma ``VectorIndex`` (upsert, delete, query, count, …) so search,
ingest, verify and forget do not care which one they hold. No text is stored: a vector
carries the sha256 of the text it was made from, which is how ``verify`` finds a stale one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np

from services.vectors.backend import VectorBackend

# candidates the HNSW scan keeps: high, as for Chroma (exactness over the last millisecond)
EF_SEARCH = 400


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _literal(v) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in v) + "]"


def _parse(s: str) -> np.ndarray:
    return np.asarray([float(x) for x in s.strip("[]").split(",")], dtype=np.float32)


class PgVectorIndex(VectorBackend):
    kind = "pgvector"
    BATCH = 500

    def __init__(self, db, embedder=None):
        self.db = db
        self.embedder = embedder
        self.client = None  # no separate vector server
        self.path = None

    # agents ------------------------------------------------------------------------------
    def drop(self, agent_id: int) -> None:
        self.db.execute_sql("DELETE FROM fact_vector WHERE agent_id = %s", (int(agent_id),))

    def _write(self, agent_id, ids, texts, vectors, metadatas) -> None:
        from psycopg2.extras import execute_values

        rows = [
            (int(i), int(agent_id), text_hash(t), _literal(v))
            for i, t, v in zip(ids, texts, vectors)
        ]
        with self.db.atomic():
            cur = self.db.cursor()
            for s in range(0, len(rows), self.BATCH):
                execute_values(
                    cur,
                    "INSERT INTO fact_vector (fact_id, agent_id, text_hash, embedding) VALUES %s "
                    "ON CONFLICT (fact_id) DO UPDATE SET embedding = EXCLUDED.embedding, "
                    "text_hash = EXCLUDED.text_hash, agent_id = EXCLUDED.agent_id",
                    rows[s : s + self.BATCH],
                    template="(%s, %s, %s, %s::vector)",
                )

    def delete(self, agent_id: int, ids: Iterable[int]) -> None:
        ids = [int(i) for i in ids]
        if ids:
            self.db.execute_sql(
                "DELETE FROM fact_vector WHERE agent_id = %s AND fact_id = ANY(%s)",
                (int(agent_id), ids),
            )

    # queries -----------------------------------------------------------------------------
    def query(
        self, agent_id: int, vector: np.ndarray, k: int = 20, ids: Sequence[int] | None = None
    ) -> list[tuple[int, float]]:
        """(fact id, cosine similarity) best first."""
        q = _literal(vector)
        if ids is not None:  # a given set: exact, over those rows only
            if not ids:
                return []
            rows = self.db.execute_sql(
                "SELECT fact_id, embedding <=> %s::vector AS d FROM fact_vector "
                "WHERE agent_id = %s AND fact_id = ANY(%s) ORDER BY d LIMIT %s",
                (q, int(agent_id), [int(i) for i in ids], int(k)),
            ).fetchall()
            return [(int(i), 1.0 - float(d)) for i, d in rows]
        with self.db.atomic():
            self.db.execute_sql(f"SET LOCAL hnsw.ef_search = {max(EF_SEARCH, int(k))}")
            rows = self._nearest(agent_id, q, k)
            if len(rows) < k and len(rows) < self.count(agent_id):
                # the HNSW scan ran out of candidates of this agent (other agents' vectors
                # share the graph): the exact answer, from this agent's rows alone
                self.db.execute_sql("SET LOCAL enable_indexscan = off")
                rows = self._nearest(agent_id, q, k)
                # inside a caller's transaction SET LOCAL would outlive this query
                self.db.execute_sql("SET LOCAL enable_indexscan = on")
        return [(int(i), 1.0 - float(d)) for i, d in rows]

    def _nearest(self, agent_id: int, q: str, k: int):
        return self.db.execute_sql(
            "SELECT fact_id, embedding <=> %s::vector AS d FROM fact_vector "
            "WHERE agent_id = %s ORDER BY embedding <=> %s::vector LIMIT %s",
            (q, int(agent_id), q, int(k)),
        ).fetchall()

    def query_many(
        self, agent_id: int, vectors: np.ndarray, k: int = 1, batch: int = 256
    ) -> list[list[tuple[int, float]]]:
        if len(vectors) == 0 or self.count(agent_id) == 0:
            return [[] for _ in range(len(vectors))]
        return [self.query(agent_id, v, k) for v in vectors]

    def count(self, agent_id: int) -> int:
        return int(
            self.db.execute_sql(
                "SELECT count(*) FROM fact_vector WHERE agent_id = %s", (int(agent_id),)
            ).fetchone()[0]
        )

    def all_ids(self, agent_id: int) -> set[int]:
        rows = self.db.execute_sql(
            "SELECT fact_id FROM fact_vector WHERE agent_id = %s", (int(agent_id),)
        ).fetchall()
        return {int(r[0]) for r in rows}

    def stale_ids(self, agent_id: int, texts: dict[int, str]) -> list[int]:
        """Facts whose vector was made from another text than the one they hold now."""
        if not texts:
            return []
        rows = self.db.execute_sql(
            "SELECT fact_id, text_hash FROM fact_vector WHERE agent_id = %s AND fact_id = ANY(%s)",
            (int(agent_id), [int(i) for i in texts]),
        ).fetchall()
        return sorted(int(i) for i, h in rows if h != text_hash(texts[int(i)]))

    def vectors(self, agent_id: int, ids: Sequence[int] | None = None) -> dict[int, np.ndarray]:
        sql = "SELECT fact_id, embedding::text FROM fact_vector WHERE agent_id = %s"
        params: tuple = (int(agent_id),)
        if ids is not None:
            sql += " AND fact_id = ANY(%s)"
            params += ([int(i) for i in ids],)
        return {int(i): _parse(e) for i, e in self.db.execute_sql(sql, params).fetchall()}

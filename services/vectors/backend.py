"""What the rest of Engram may call on a store's vectors, whichever backend holds them:
Chroma (``index.VectorIndex``: a local folder or a ``chroma run`` server) or the team
store's own PostgreSQL (``pgvector_index.PgVectorIndex``). Search, ingest, verify and forget
are written against this; what only Chroma has (its collections, the write lock held while
a purge rebuilds one) is reached after an ``isinstance`` check on ``VectorIndex``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # numpy loads with the index, not with the façade (the window's first page)
    import numpy as np

    from services.vectors.embedder import Embedder


class VectorBackend(Protocol):
    """Both backends subclass it for ``upsert``: embedding what has no vector yet is the same
    for both; how the vectors are written (``_write``) is each one's own."""

    embedder: Embedder | None
    BATCH: int  # vectors written per call

    def drop(self, agent_id: int) -> None:
        """Every vector of the agent."""

    def upsert(
        self,
        agent_id: int,
        ids: Sequence[int],
        texts: Sequence[str],
        vectors: np.ndarray | None = None,
        metadatas: Sequence[dict] | None = None,
    ) -> None:
        """Embeds ``texts`` when no ``vectors`` are given (nothing without an embedder)."""
        if not ids:
            return
        if vectors is None:
            if self.embedder is None:
                return
            vectors = self.embedder.embed(list(texts))
        self._write(agent_id, ids, texts, vectors, metadatas)

    def _write(
        self,
        agent_id: int,
        ids: Sequence[int],
        texts: Sequence[str],
        vectors: np.ndarray,
        metadatas: Sequence[dict] | None,
    ) -> None: ...

    def delete(self, agent_id: int, ids: Iterable[int]) -> None: ...

    def query(
        self, agent_id: int, vector: np.ndarray, k: int = 20, ids: Sequence[int] | None = None
    ) -> list[tuple[int, float]]:
        """(fact id, cosine similarity) best first; only among ``ids`` when given."""

    def query_many(
        self, agent_id: int, vectors: np.ndarray, k: int = 1, batch: int = 256
    ) -> list[list[tuple[int, float]]]: ...

    def count(self, agent_id: int) -> int: ...

    def all_ids(self, agent_id: int) -> set[int]: ...

    def stale_ids(self, agent_id: int, texts: dict[int, str]) -> list[int]:
        """Facts whose vector was made from another text than the one they hold now."""

    def vectors(self, agent_id: int, ids: Sequence[int] | None = None) -> dict[int, np.ndarray]: ...

"""The Chroma vector index: one collection per agent, cosine space, ids = fact ids.

The SQLite row is the source of truth; everything here can be rebuilt from it. Vectors are
computed by Engram's Embedder and handed to Chroma explicitly (the collection also carries the
registered EngramEmbeddingFunction so text queries from Chroma's own tools embed the same way).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np

from services.vectors.backend import VectorBackend

log = logging.getLogger(__name__)

# High ef_search: at Engram's sizes (10^3–10^5 vectors per agent) exactness matters more than
# the last microsecond, and the benchmark measures HNSW vs exact top-10 disagreement.
# ef_construction 100, not 200: a forget rebuilds the agent's graph, and at 100k vectors that
# took 53 s of CPU at 200 against 29 s at 100, with top-10 identical to the exhaustive answer
# for 200 of 200 queries either way (docs/speed.md, "Forget at scale"). A collection keeps the
# figures it was made with until a forget or `verify --repair` makes it again.
HNSW = {"space": "cosine", "ef_construction": 100, "ef_search": 500, "max_neighbors": 32}


_STALE = ("NotFoundError", "InvalidCollectionException")
# another process is between dropping and recreating the collection (a forget's rebuild):
# its row exists before its segments do
_BUSY = ("Error getting collection", "Missing metadata segment", "hnsw segment reader")
_TRIES = 8


def _retry_stale(method):
    """Another process (a CLI forget, ``verify --repair``) may drop and recreate an agent's
    collection while this one holds a handle to the old one: forget the handle, retry. While
    the other is half way through, Chroma answers with an internal error: wait, retry."""

    @functools.wraps(method)
    def wrapper(self, agent_id, *args, **kwargs):
        for attempt in range(_TRIES):
            try:
                return method(self, agent_id, *args, **kwargs)
            except Exception as exc:
                busy = type(exc).__name__ == "InternalError" and any(b in str(exc) for b in _BUSY)
                if type(exc).__name__ not in _STALE and not busy:
                    raise
                if attempt == _TRIES - 1 or (not busy and attempt > 0):
                    raise
                with self._lock:
                    self._collections.pop(agent_id, None)
                if busy:
                    time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    return wrapper


def http_client(url: str, settings=None):
    """A Chroma server client for ``http(s)://host:port[/?tenant=T&database=D]`` (the team
    store's ``ENGRAM_CHROMA_URL``). A named database is created on first use, so one server
    can hold several team stores (collection names repeat per store: ``agent-<id>``)."""
    import chromadb
    from chromadb.config import Settings

    settings = settings or Settings(anonymized_telemetry=False, allow_reset=True)
    token = chroma_token(url)
    if token:  # Chroma's token auth: the header a server behind it checks
        settings = Settings(
            anonymized_telemetry=False,
            allow_reset=True,
            chroma_client_auth_provider="chromadb.auth.token_authn.TokenAuthClientProvider",
            chroma_client_auth_credentials=token,
        )
    u = urlparse(url)
    opts = {k: v[-1] for k, v in parse_qs(u.query).items()}
    tenant = opts.get("tenant", "default_tenant")
    database = opts.get("database", "default_database")
    kw = dict(host=u.hostname or "localhost", port=u.port or 8000, ssl=u.scheme == "https")
    if database != "default_database":
        admin = chromadb.AdminClient(
            Settings(
                chroma_api_impl="chromadb.api.fastapi.FastAPI",
                chroma_server_host=kw["host"],
                chroma_server_http_port=kw["port"],
                chroma_server_ssl_enabled=kw["ssl"],
                anonymized_telemetry=False,
            )
        )
        try:
            admin.get_database(database, tenant=tenant)
        except Exception:  # absent: create it (a race with another client is harmless)
            try:
                admin.create_database(database, tenant=tenant)
            except Exception:
                admin.get_database(database, tenant=tenant)
    return chromadb.HttpClient(**kw, settings=settings, tenant=tenant, database=database)


def chroma_token(url: str) -> str | None:
    """The Chroma server's token: ``ENGRAM_CHROMA_TOKEN``, else the OS keyring entry
    ``chroma:<host>:<port>`` (never a file of Engram's)."""
    import os

    if os.environ.get("ENGRAM_CHROMA_TOKEN"):
        return os.environ["ENGRAM_CHROMA_TOKEN"]
    u = urlparse(url)
    try:  # no keyring (a server, CI) is normal: then no token
        import keyring

        return keyring.get_password("engram", f"chroma:{u.hostname}:{u.port or 8000}") or None
    except Exception:
        return None


def is_server_url(location) -> bool:
    return str(location).startswith(("http://", "https://"))


def open_index(config, db, embedder) -> VectorBackend:
    """The store's vector index: on a team store whose PostgreSQL has pgvector (schema v8)
    the vectors live there unless a Chroma server is named; else Chroma (local or server)."""
    from models.db import is_postgres

    if is_postgres(db) and not config.vector_url:
        from models.server_schema import vectors_in_database

        if vectors_in_database(db):
            from services.vectors.pgvector_index import PgVectorIndex

            return PgVectorIndex(db, embedder)
    return VectorIndex(config.vector_location, embedder)


def collection_name(agent_id: int) -> str:
    return f"agent-{agent_id}"


class VectorIndex(VectorBackend):
    BATCH = 2000

    def __init__(self, location: str | Path, embedder=None):
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False, allow_reset=True)
        loc = str(location)
        if loc.startswith(("http://", "https://")):
            self.client = http_client(loc, settings)
            self.path = None
        else:
            self.path = Path(loc)
            self.path.mkdir(parents=True, exist_ok=True)
            # Chroma migrates a new store on first open; two processes doing that at once (a
            # hook firing twice) race on "table collections already exists". Open one at a time.
            from services.store.filelock import exclusive_lock

            with exclusive_lock(self.path / ".engram-open.lock"):
                self.client = chromadb.PersistentClient(path=str(self.path), settings=settings)
        if embedder is not None:  # before any collection opens: its config names the function
            from services.vectors.embedder import chroma_function_class

            chroma_function_class()
        self.embedder = embedder
        self._collections: dict[int, object] = {}
        self._lock = threading.Lock()
        self._held: dict[int, int] = {}  # agent id -> thread holding its writer lock here

    @contextmanager
    def writing(self, agent_id: int) -> Iterator[None]:
        """Hold an agent's vector writes still, across processes: every upsert and delete
        takes this lock, and a rebuild (a forget's purge) holds it from reading the vectors
        to writing them back, so a vector an agent adds meanwhile is neither dropped with the
        old collection nor written half way through. Re-entrant in the thread holding it."""
        me = threading.get_ident()
        if self.path is None or self._held.get(agent_id) == me:
            yield  # a Chroma server orders its own writes
            return
        from services.store.filelock import exclusive_lock

        with exclusive_lock(self.path / f".engram-agent-{agent_id}.lock"):
            self._held[agent_id] = me
            try:
                yield
            finally:
                self._held.pop(agent_id, None)

    # collections -------------------------------------------------------------------------
    def collection(self, agent_id: int):
        with self._lock:
            col = self._collections.get(agent_id)
        if col is not None:
            return col
        # opened under the agent's writer lock: a forget in another process drops and
        # recreates the collection under it, and a handle taken half way through (its row
        # there, its segments not yet) stays broken in this process. The file lock first,
        # then the thread lock, in the order ``drop`` takes them.
        with self.writing(agent_id), self._lock:
            col = self._collections.get(agent_id)
            if col is None:
                kwargs = {"configuration": {"hnsw": dict(HNSW)}}
                if self.embedder is not None:
                    from services.vectors.embedder import chroma_embedding_function

                    kwargs["embedding_function"] = chroma_embedding_function(self.embedder)
                col = self.client.get_or_create_collection(collection_name(agent_id), **kwargs)
                self._collections[agent_id] = col
            return col

    def drop(self, agent_id: int) -> None:
        with self.writing(agent_id), self._lock:
            self._collections.pop(agent_id, None)
            try:
                self.client.delete_collection(collection_name(agent_id))
            except Exception:  # absent collection: nothing to drop
                pass

    # vectors -----------------------------------------------------------------------------
    @_retry_stale
    def _write(self, agent_id, ids, texts, vectors, metadatas) -> None:
        with self.writing(agent_id):
            self._upsert(agent_id, ids, texts, vectors, metadatas, self.BATCH)

    def _upsert(self, agent_id, ids, texts, vectors, metadatas, batch) -> None:
        col = self.collection(agent_id)
        for s in range(0, len(ids), batch):
            kwargs = dict(
                ids=[str(i) for i in ids[s : s + batch]],
                embeddings=np.asarray(vectors[s : s + batch], dtype=np.float32),
            )
            metas = list(metadatas[s : s + batch]) if metadatas is not None else None
            # Chroma never holds the text, only a hash of it that finds stale vectors: a
            # server's would be read by anyone who reaches its port (past PostgreSQL's row
            # security), and a local copy was one more place a forget must erase, and a
            # quarter of a forget's rebuild (Chroma indexing the documents in its own FTS)
            from services.vectors.pgvector_index import text_hash

            hashes = [{"text_sha256": text_hash(t)} for t in texts[s : s + batch]]
            metas = [{**(m or {}), **h} for m, h in zip(metas or [{}] * len(hashes), hashes)]
            kwargs["metadatas"] = metas
            col.upsert(**kwargs)

    @_retry_stale
    def delete(self, agent_id: int, ids: Iterable[int]) -> None:
        keys = [str(i) for i in ids]
        if keys:
            with self.writing(agent_id):
                self.collection(agent_id).delete(ids=keys)

    @_retry_stale
    def query(
        self, agent_id: int, vector: np.ndarray, k: int = 20, ids: Sequence[int] | None = None
    ) -> list[tuple[int, float]]:
        """(fact id, cosine similarity) best first. No ``count()`` first: Chroma answers an
        ``n_results`` above the collection's size (or an empty collection) with what it has,
        and counting cost 8 ms of a 37 ms hybrid search at 10k facts (cProfile)."""
        col = self.collection(agent_id)
        kwargs = {}
        if ids is not None:
            if not ids:
                return []
            kwargs["ids"] = [str(i) for i in ids]
        res = col.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=k,
            include=["distances"],
            **kwargs,
        )
        return [(int(i), 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0])]

    @_retry_stale
    def query_many(
        self, agent_id: int, vectors: np.ndarray, k: int = 1, batch: int = 256
    ) -> list[list[tuple[int, float]]]:
        """Top-k (fact id, cosine) for each row of ``vectors``, in one call per batch."""
        col = self.collection(agent_id)
        if len(vectors) == 0:
            return []
        out: list[list[tuple[int, float]]] = []
        for s in range(0, len(vectors), batch):
            res = col.query(
                query_embeddings=np.asarray(vectors[s : s + batch], dtype=np.float32),
                n_results=k,
                include=["distances"],
            )
            out += [
                [(int(i), 1.0 - float(d)) for i, d in zip(ids, ds)]
                for ids, ds in zip(res["ids"], res["distances"])
            ]
        return out

    @_retry_stale
    def count(self, agent_id: int) -> int:
        return self.collection(agent_id).count()

    @_retry_stale
    def all_ids(self, agent_id: int) -> set[int]:
        col = self.collection(agent_id)
        out: set[int] = set()
        offset, page = 0, 5000
        while True:
            got = col.get(include=[], limit=page, offset=offset)["ids"]
            out.update(int(i) for i in got)
            if len(got) < page:
                return out
            offset += page

    @_retry_stale
    def readable_vectors(self, agent_id: int, page: int = 5000) -> tuple[dict, list[int]]:
        """Every vector of the collection this process can read, and the ids it cannot.
        Another process's writes reach this one's SQLite view at once but not its in-memory
        HNSW: a read of such an id fails ("Error finding id"). The rows are the truth, so
        the caller embeds those again instead of failing."""
        ids = sorted(self.all_ids(agent_id))
        col = self.collection(agent_id)
        got: dict[int, np.ndarray] = {}
        bad: list[int] = []
        todo = [ids[s : s + page] for s in range(0, len(ids), page)]
        while todo:
            part = todo.pop()
            try:
                res = col.get(ids=[str(i) for i in part], include=["embeddings"])
            except Exception as exc:
                if "Error finding id" not in str(exc):
                    raise
                if len(part) == 1:
                    bad.append(part[0])
                else:  # halve until the ids this process cannot read are found
                    todo += [part[: len(part) // 2], part[len(part) // 2 :]]
                continue
            for i, v in zip(res["ids"], res["embeddings"]):
                got[int(i)] = np.asarray(v, dtype=np.float32)
        return got, bad

    @_retry_stale
    def documents(self, agent_id: int, ids: Sequence[int]) -> dict[int, str]:
        if not ids:
            return {}
        got = self.collection(agent_id).get(ids=[str(i) for i in ids], include=["documents"])
        return {int(i): d for i, d in zip(got["ids"], got["documents"])}

    @_retry_stale
    def stale_ids(self, agent_id: int, texts: dict[int, str]) -> list[int]:
        """Facts whose vector was made from another text than the one they hold now, by the
        text's hash (a vector written before the hash, in a local store, by its document)."""
        if not texts:
            return []
        from services.vectors.pgvector_index import text_hash

        include = ["metadatas"] + (["documents"] if self.path is not None else [])
        got = self.collection(agent_id).get(ids=[str(i) for i in texts], include=include)
        docs = got.get("documents") or [None] * len(got["ids"])
        out = []
        for i, m, d in zip(got["ids"], got["metadatas"], docs):
            h = (m or {}).get("text_sha256")
            text = texts[int(i)]
            if (h != text_hash(text)) if h is not None or d is None else d != text:
                out.append(int(i))
        return sorted(out)

    @_retry_stale
    def vectors(self, agent_id: int, ids: Sequence[int] | None = None) -> dict[int, np.ndarray]:
        kwargs = {"include": ["embeddings"]}
        if ids is not None:
            kwargs["ids"] = [str(i) for i in ids]
        got = self.collection(agent_id).get(**kwargs)
        return {
            int(i): np.asarray(e, dtype=np.float32) for i, e in zip(got["ids"], got["embeddings"])
        }

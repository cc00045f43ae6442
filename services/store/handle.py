"""The shape of an agent's memory as the lower service packages see it.

``services.engram.AgentMemory`` (the façade) sits on top of every service package, so the
packages below it cannot import it to name the type of the ``memory`` they are handed;
import-linter would refuse. These Protocols are that type: they declare exactly what lower
packages use of the façade (``AgentMemory`` and ``Engram`` satisfy them structurally, which
mypy checks where the façade hands itself down). The module lives in the lowest package so
that any package may import it at runtime; the types it names from higher packages are
imported for the checker only (import-linter ignores ``TYPE_CHECKING`` imports).
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from services.config import StoreConfig
    from services.entities.service import EntityService
    from services.events import EventBus
    from services.ingest.pipeline import NewFact
    from services.ingest.rule_key import RuleKey
    from services.records import AgentInfo, FactView, RememberResult, SearchHit
    from services.store.episodes import EpisodeStore
    from services.store.facts import FactFilters, FactStore
    from services.store.review import ReviewInbox
    from services.vectors.backend import VectorBackend
    from services.vectors.embedder import Embedder


class EngramHandle(Protocol):
    """The open store: database, vector index, embedder, event bus and its agents."""

    @property
    def config(self) -> StoreConfig: ...
    @property
    def db(self) -> Any: ...  # a peewee Database (SQLite, or PostgreSQL for a team store)
    @property
    def bus(self) -> EventBus: ...
    @property
    def index(self) -> VectorBackend | None: ...
    @property
    def embedder(self) -> Embedder | None: ...
    @property
    def semantic_error(self) -> str | None: ...
    @property
    def semantic_enabled(self) -> bool: ...

    def forget_key(self) -> RuleKey: ...
    def load_semantic(self) -> bool: ...
    def expect_semantic(self) -> threading.Event: ...
    def wait_model(self, timeout: float) -> bool: ...
    def agent(self, slug: str, create: bool = False, kind: str = "generic") -> MemoryHandle: ...
    def agents(self, with_counts: bool = True) -> list[AgentInfo]: ...
    def locate_fact(self, fact_id: int) -> str: ...
    def add_agent(
        self,
        slug: str,
        name: str | None = None,
        kind: str = "generic",
        workspace: str | Path | None = None,
        exist_ok: bool = False,
    ) -> AgentInfo: ...
    def update_agent(
        self,
        slug: str,
        name: str | None = None,
        kind: str | None = None,
        workspace: str | Path | None = None,
        settings: dict | None = None,
    ) -> AgentInfo: ...


class MemoryHandle(Protocol):
    """One agent's memory: its rows, stores and the write paths that apply the write policy."""

    @property
    def engram(self) -> EngramHandle: ...
    @property
    def db(self) -> Any: ...
    @property
    def agent_id(self) -> int: ...
    @property
    def slug(self) -> str: ...
    @property
    def info(self) -> AgentInfo: ...
    @property
    def settings(self) -> dict: ...
    @property
    def facts(self) -> FactStore: ...
    @property
    def episodes(self) -> EpisodeStore: ...
    @property
    def review(self) -> ReviewInbox: ...
    @property
    def entities(self) -> EntityService: ...
    @property
    def data_dir(self) -> Path: ...

    def get(self, fact_id: int) -> FactView: ...
    def list(self, filters: FactFilters | None = None, **kw: Any) -> builtins.list[FactView]: ...
    def edit(self, fact_id: int, actor: str = "user", **changes: Any) -> FactView: ...
    def remember(
        self,
        text: str,
        category: str = "fact",
        importance: float = 0.5,
        pinned: bool = False,
        source: str = "manual",
        **kw: Any,
    ) -> RememberResult: ...
    def remember_many(
        self, items: Sequence[NewFact], **kw: Any
    ) -> builtins.list[RememberResult]: ...
    def delete(self, fact_ids: Any, **kw: Any) -> builtins.list[int]: ...
    def add_episode(self, day: Any, summary: str, **kw: Any) -> tuple[int | None, bool]: ...
    def upsert_episode(
        self, day: Any, summary: str, source_file: str, **kw: Any
    ) -> tuple[int | None, str]: ...
    def search(
        self,
        query: str,
        k: int = 10,
        filters: FactFilters | None = None,
        mode: str = "hybrid",
        touch: bool = True,
        weights: Any = None,
        **kw: Any,
    ) -> builtins.list[SearchHit]: ...
    def embed_missing(
        self,
        batch: int = 256,
        cancelled: Callable[[], bool] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> int: ...
    def link_owed(self, spans: builtins.list[tuple[int, int]]) -> int: ...
    def import_path(
        self,
        path: str | Path,
        fmt: str | None = None,
        progress: Callable[..., Any] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Any: ...

"""The façade every caller starts from: ``Engram.open(config)`` then ``engram.agent(slug)``.

``Engram`` owns the database, the vector index and the embedder; ``AgentMemory`` is a handle
scoped to one agent through which all fact, episode, ingest and search calls go.
"""

from __future__ import annotations

import builtins
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models import Agent, Fact, connect_database
from models.tables import utcnow
from services.config import StoreConfig
from services.errors import InvalidInput, ModelUnavailable, NotFound
from services.events import EventBus
from services.ingest.rule_key import RuleKey
from services.integrations.delete_for_good import DeletedAgent
from services.records import AgentInfo, FactView, RememberResult, SearchHit
from services.store import fact_rows
from services.store.episodes import EpisodeStore
from services.store.facts import FactFilters, FactStore
from services.store.review import ReviewInbox, review_metadata
from services.store.text import CleanText

if TYPE_CHECKING:  # at run time where used: `pin` or `delete` pays for none (issue 33)
    from services.entities.service import EntityService
    from services.ingest.pipeline import NewFact
    from services.search.hybrid import Searcher, SearchWeights
    from services.store.handle import MemoryHandle
    from services.vectors.backend import VectorBackend

log = logging.getLogger(__name__)
SLUG = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
TRASH_KEY = "trashed_at"  # in Agent.settings: when the agent was removed (soft delete)


def _trashed(a: Agent) -> bool:
    return bool((a.settings or {}).get(TRASH_KEY))


@dataclass(frozen=True)
class TrashedAgent:
    slug: str
    name: str
    fact_count: int  # active facts it held when removed
    trashed_at: str  # ISO time, UTC


class Engram:
    def __init__(
        self,
        config: StoreConfig,
        db,
        index: VectorBackend | None,
        embedder,
        semantic_error: str | None,
    ):
        self.config = config
        self.db = db
        self.index = index
        self.embedder = embedder
        self.semantic_error = semantic_error
        self.bus = EventBus()
        self._key: RuleKey | None = None
        self._lock = threading.Lock()
        self.notes: list[str] = []  # said once on open (permissions tightened, …)
        self.recompiler: Any = None  # set by follow_changes: compiled layers follow writes
        self._loading: threading.Event | None = None  # set while load_semantic runs

    # lifecycle ---------------------------------------------------------------------------
    @classmethod
    def open(cls, config: StoreConfig | str | Path) -> Engram:
        from services.vectors.memory_hygiene import harden_allocator

        harden_allocator()  # before any memory text passes through this process
        if not isinstance(config, StoreConfig):
            config = StoreConfig(data_dir=Path(config))
        from services.store.permissions import private_umask, tighten
        from services.teamstore import database_password

        private_umask()  # before the first write: the store is the user's alone
        config.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        db = connect_database(config.database_url, database_password(config.database_url))
        dbp = Path(str(getattr(db, "database", "") or ""))
        notes = tighten(config.data_dir, [dbp] if dbp.is_file() else [])
        embedder, index, error = None, None, None
        if config.semantic:
            try:
                from services.vectors.embedder import load_embedder

                embedder = load_embedder(config.model_dir)
            except ModelUnavailable as exc:
                error = str(exc)
            except Exception as exc:  # a broken onnxruntime must not take the store down
                error = f"embedding model failed to load: {exc}. Semantic search is off."
        if embedder is not None:
            from services.vectors.index import open_index

            index = open_index(config, db, embedder)
        eng = cls(config, db, index, embedder, error)
        eng.notes = notes
        return eng

    def follow_changes(self, mode: str = "sync", delay: float = 1.5):
        """Keep every agent's compiled layers (memory.md and the Cursor rule made from it)
        in step with its memory: ``sync`` recompiles the changed agents at ``close`` (or
        ``recompile_now``), for one-shot commands; ``debounce`` in a worker thread once
        ``delay`` seconds have passed without a change, for the app and the MCP server."""
        from services.lifecycle.autocompile import Recompiler

        if self.recompiler is None:
            self.recompiler = Recompiler(self, mode, delay, after_compile=_refresh_agent_files)
        return self.recompiler

    def recompile_now(self) -> list[str]:
        """Recompile the agents changed since the last time (the slugs); nothing when not
        following changes or nothing changed."""
        return self.recompiler.flush() if self.recompiler is not None else []

    def close(self, quick: bool = False) -> None:
        """``quick`` (the window quitting): a long recompile pending or running is not
        waited for; it is owed to the next start (services/lifecycle/autocompile.py)."""
        if self.recompiler is not None:
            from services.lifecycle.autocompile import QUIT_GRACE_S

            rec, self.recompiler = self.recompiler, None
            rec.close(grace=QUIT_GRACE_S if quick else None)
        if not self.db.is_closed():
            self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def load_semantic(self) -> bool:
        """Load the embedding model and vector index into a store opened with
        ``semantic=False`` (a server or the window answers first, then loads it in a thread).
        Returns whether semantic search is now on; ``semantic_error`` says why not. Writes
        made meanwhile wait for it (``wait_semantic``)."""
        if self.embedder is not None:
            return True
        if self._loading is not None and not self._loading.is_set():
            return self._load_semantic()  # a warm-up announced it and sets it when done
        loading = self.expect_semantic()
        try:
            return self._load_semantic()
        finally:
            loading.set()

    def expect_semantic(self) -> threading.Event:
        """Announce a model load (before its thread starts, so no write slips in first);
        the caller sets the event when the load, and whatever must follow it, is done."""
        self._loading = threading.Event()
        return self._loading

    def wait_semantic(self, timeout: float = 120.0) -> None:
        """While the model is loading, wait for it: a write compares its text with its nearest
        neighbours (paraphrase, newer value, contradiction), and one made without them would be
        stored unchecked."""
        loading = self._loading
        if loading is not None and not loading.is_set():
            loading.wait(timeout)

    def wait_model(self, timeout: float) -> bool:
        """While a warm-up is loading the model, wait until it can embed (at most ``timeout``
        seconds; not for the owed vectors the warm-up fills after). Whether semantic search
        is on: False at once when no load is under way."""
        deadline = time.monotonic() + timeout
        loading = self._loading
        while self.embedder is None and loading is not None and not loading.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            loading.wait(min(0.05, left))
        return self.embedder is not None

    def _load_semantic(self) -> bool:
        try:
            from services.vectors.embedder import load_embedder
            from services.vectors.index import open_index

            embedder = load_embedder(self.config.model_dir)
            index = open_index(self.config, self.db, embedder)
        except ModelUnavailable as exc:
            self.semantic_error = str(exc)
            return False
        except Exception as exc:
            self.semantic_error = f"embedding model failed to load: {exc}. Semantic search is off."
            return False
        self.index = index  # before the embedder: readers test the embedder, then use both
        self.embedder = embedder
        self.semantic_error = None
        self.config.semantic = True
        return True

    @property
    def semantic_enabled(self) -> bool:
        return self.embedder is not None

    def data_version(self) -> int:
        """Changes when *another* connection commits (an agent's hook, the CLI): the GUI
        polls this to notice writes it did not make."""
        from models.db import is_postgres

        if is_postgres(self.db):
            # a team store: rows inserted/updated/deleted by every client, as the server's
            # statistics count them (flushed within a second); the app also LISTENs
            row = self.db.execute_sql(
                "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) "
                "FROM pg_stat_user_tables"
            ).fetchone()
            return int(row[0])
        return self.db.execute_sql("PRAGMA data_version").fetchone()[0]

    # agents ------------------------------------------------------------------------------
    def agents(self, with_counts: bool = True) -> list[AgentInfo]:
        from peewee import JOIN, fn

        if not with_counts:  # cheap: no scan of the fact table (timers poll this)
            return [
                AgentInfo(a.id, a.slug, a.name, a.kind, a.workspace)
                for a in Agent.select().order_by(Agent.slug)
                if not _trashed(a)
            ]

        q = (
            Agent.select(Agent, fn.COUNT(Fact.id).alias("n"))
            .join(Fact, JOIN.LEFT_OUTER, on=((Fact.agent == Agent.id) & (Fact.status == "active")))
            .group_by(Agent.id)
            .order_by(Agent.slug)
        )
        return [
            AgentInfo(a.id, a.slug, a.name, a.kind, a.workspace, a.n) for a in q if not _trashed(a)
        ]

    def add_agent(
        self,
        slug: str,
        name: str | None = None,
        kind: str = "generic",
        workspace: str | Path | None = None,
        exist_ok: bool = False,
    ) -> AgentInfo:
        if not SLUG.match(slug or ""):
            raise InvalidInput(f"agent name {slug!r}: use lowercase letters, digits, '-', '_', '.'")
        with self.db.atomic():
            old = Agent.get_or_none(Agent.slug == slug)
            if old is not None:
                if _trashed(old):
                    raise InvalidInput(
                        f"agent {slug!r} is in the trash: restore it with `engram agent "
                        f"restore {slug}` or empty the trash first"
                    )
                if not exist_ok:
                    raise InvalidInput(f"agent {slug!r} exists already")
                a = old
            else:
                a = Agent.create(
                    slug=slug,
                    name=name or slug,
                    kind=kind,
                    workspace=str(workspace) if workspace else None,
                )
        self.bus.emit("agent.added", slug=slug)
        return AgentInfo(a.id, a.slug, a.name, a.kind, a.workspace)

    def set_visibility(self, slug: str, visibility: str) -> None:
        """``shared`` with the team or ``private`` to its owner. On a team store PostgreSQL's
        row-level security enforces it (models/access.py); a local store has one user."""
        if visibility not in ("shared", "private"):
            raise InvalidInput("visibility is 'shared' or 'private'")
        from models.db import is_postgres

        if is_postgres(self.db):  # only through the owner-checked function (schema v8)
            from services.teamstore import set_team_visibility

            set_team_visibility(self.db, slug, visibility)
            return
        n = Agent.update(visibility=visibility).where(Agent.slug == slug).execute()
        if not n:
            raise NotFound(f"no agent {slug!r}")

    def update_agent(
        self,
        slug: str,
        name: str | None = None,
        kind: str | None = None,
        workspace: str | Path | None = None,
        settings: dict | None = None,
    ) -> AgentInfo:
        a = self._agent_row(slug)
        if name:
            a.name = name
        if kind:
            a.kind = kind
        if workspace is not None:
            a.workspace = str(workspace) or None
        if settings is not None:
            a.settings = {**(a.settings or {}), **settings}
        a.save()
        self.bus.emit("agent.updated", slug=slug)
        return AgentInfo(a.id, a.slug, a.name, a.kind, a.workspace)

    def remove_agent(self, slug: str) -> None:
        """Drop an agent, its rows (cascade) and its vectors. For a verified purge that also
        covers files and free pages, use ``ForgetService``."""
        a = Agent.get_or_none(Agent.slug == slug)
        if a is None:
            raise NotFound(f"no agent {slug!r} (see `engram agents`)")
        self._drop(a)
        self.bus.emit("agent.removed", slug=slug)

    # the trash: a removed agent keeps every row until the trash is emptied ---------------
    def trash_agent(self, slug: str) -> TrashedAgent:
        """Remove an agent the undoable way: it leaves every list, search and compile, and
        its rows and vectors stay until ``empty_trash``; ``restore_agent`` brings it back."""
        a = self._agent_row(slug)
        n = fact_rows.active_count(a.id)
        when = utcnow().isoformat()
        a.settings = {**(a.settings or {}), TRASH_KEY: when}
        a.save()
        self.bus.emit("agent.removed", slug=slug)
        return TrashedAgent(a.slug, a.name, n, when)

    def restore_agent(self, slug: str) -> AgentInfo:
        a = Agent.get_or_none(Agent.slug == slug)
        if a is None or not _trashed(a):
            raise NotFound(f"no agent {slug!r} in the trash (see `engram agent trash`)")
        a.settings = {k: v for k, v in (a.settings or {}).items() if k != TRASH_KEY}
        a.save()
        self.bus.emit("agent.added", slug=slug)
        return AgentInfo(a.id, a.slug, a.name, a.kind, a.workspace)

    def trashed_agents(self) -> list[TrashedAgent]:
        out = []
        for a in Agent.select().order_by(Agent.slug):
            if _trashed(a):
                n = fact_rows.active_count(a.id)
                out.append(TrashedAgent(a.slug, a.name, n, a.settings[TRASH_KEY]))
        return out

    def empty_trash(self, slug: str | None = None) -> list[DeletedAgent]:
        """Delete trashed agents for good (one, or all) from every place they live, as a
        whole-agent forget does, unwire the integrations that loaded their memory, then
        drop their rows and compact (``services/integrations/delete_for_good.py``)."""
        from services.forget.service import ForgetService
        from services.integrations.delete_for_good import erase_agent

        chosen = [t.slug for t in self.trashed_agents() if slug is None or t.slug == slug]
        if slug is not None and not chosen:
            raise NotFound(f"no agent {slug!r} in the trash (see `engram agent trash`)")
        gone = []
        for s in chosen:
            gone.append(erase_agent(self, s))
            self._drop(Agent.get(Agent.slug == s))
        if gone:  # the rows just dropped (name, paths, sessions) leave no free page either
            gone[-1].notes += ForgetService(self).compact()
        return gone

    def _drop(self, a: Agent) -> None:
        with self.db.atomic():
            a.delete_instance()  # FK cascade: facts, episodes, sessions, layers, events
        if self.index is not None:
            self.index.drop(a.id)

    def _agent_row(self, slug: str) -> Agent:
        a = Agent.get_or_none(Agent.slug == slug)
        if a is None:
            raise NotFound(f"no agent {slug!r} (see `engram agents`)")
        if _trashed(a):
            raise NotFound(f"agent {slug!r} is in the trash (`engram agent restore {slug}`)")
        return a

    def agent(self, slug: str, create: bool = False, kind: str = "generic") -> AgentMemory:
        a = Agent.get_or_none(Agent.slug == slug)
        if a is not None and _trashed(a):
            if create:
                self.add_agent(slug)  # raises: says how to restore it
            raise NotFound(f"agent {slug!r} is in the trash (`engram agent restore {slug}`)")
        if a is None:
            if not create:
                raise NotFound(f"no agent {slug!r} (see `engram agents`)")
            self.add_agent(slug, kind=kind, exist_ok=True)
            a = Agent.get(Agent.slug == slug)
        return AgentMemory(self, a)

    def locate_fact(self, fact_id: int) -> str:
        """The slug of the agent that owns a fact (for id-only commands like ``show ID``)."""
        agent_id = fact_rows.owner(fact_id)
        if agent_id is None:
            raise NotFound(f"no fact {fact_id}")
        return Agent.get_by_id(agent_id).slug

    def search_all(self, query: str, k: int = 10, **kw) -> list[tuple[str, SearchHit]]:
        hits: list[tuple[str, SearchHit]] = []
        for a in self.agents():
            hits += [(a.slug, h) for h in self.agent(a.slug).search(query, k=k, **kw)]
        hits.sort(key=lambda t: -t[1].score)
        return hits[:k]

    # forget rules ------------------------------------------------------------------------
    def forget_key(self) -> RuleKey:
        """What forget rules, receipts and scopes are hashed with: this store's key, or on a
        team store the team's, which stays in the server (services/ingest/rule_key.py)."""
        if self._key is None:
            from services.ingest.forget_rules import store_key
            from services.teamstore import team_forget_key

            # a team store's rules are the team's: every client hashes with the server's key
            self._key = team_forget_key(self.db) or RuleKey(store_key(self.config.data_dir))
        return self._key

    def blocking_rule(self, key: RuleKey, agent_id: int, text: str):
        from services.ingest.forget_rules import matching_rule

        return matching_rule(key, agent_id, text)

    # consistency -------------------------------------------------------------------------
    def fill_vector_backlog(self) -> int:
        """Vectors for facts a keyword-only process stored (``services.vectors.backlog``)."""
        if self.index is None:
            return 0
        from services.vectors import backlog

        if not backlog.pending(self.config.data_dir):
            return 0
        return backlog.drain(self)

    def verify(self, repair: bool = False):
        from services.store.verify import verify_store

        self.fill_vector_backlog()  # owed vectors are not missing ones

        return verify_store(self, repair=repair)


class AgentMemory:
    """Everything about one agent. Methods never touch another agent's rows."""

    def __init__(self, engram: Engram, agent: Agent):
        self.engram = engram
        self.db = engram.db
        self.agent_id = agent.id
        self.slug = agent.slug
        self.info = AgentInfo(agent.id, agent.slug, agent.name, agent.kind, agent.workspace)
        self.settings = agent.settings or {}
        self.facts = FactStore(
            agent.id,
            engram.db,
            on_change=self._changed,
            on_delete=self._drop_vectors,
            on_content=self._reembed,
        )
        self.episodes = EpisodeStore(agent.id, engram.db, engram.bus)

    # made on first use: their modules (the policy's patterns, ranking) cost a light command
    # such as `pin` more than its own work
    @cached_property
    def _search(self) -> Searcher:
        from services.search.hybrid import Searcher

        return Searcher(self)

    @cached_property
    def review(self) -> ReviewInbox:
        from services.integrations.mcp.review import REVIEW_ACTIONS

        return ReviewInbox(
            self, erase=self._erase_facts, edit=self._edit_in_review, actions=REVIEW_ACTIONS
        )

    @cached_property
    def entities(self) -> EntityService:
        from services.entities.service import EntityService
        from services.ingest.entity_names import name_check

        return EntityService(self.agent_id, self.db, name_check(self))

    @property
    def data_dir(self) -> Path:
        return self.engram.config.agent_dir(self.slug)

    # events / vectors -------------------------------------------------------------------
    def _changed(self, kind: str, ids: list[int]) -> None:
        self.engram.bus.emit(kind, agent_id=self.agent_id, ids=ids)

    def _drop_vectors(self, ids: list[int]) -> None:
        if self.engram.index is not None:
            self.engram.index.delete(self.agent_id, ids)
            return
        from services.vectors import backlog

        backlog.owe_deletes(self.engram.config.data_dir, self.agent_id, ids)

    def _reembed(self, facts: Sequence[FactView]) -> None:
        if self.engram.index is not None and facts:
            self.engram.index.upsert(
                self.agent_id, [f.id for f in facts], [f.content for f in facts]
            )

    def _erase_facts(
        self, ids: list[int], label: str = "rejected in review", rule: bool | None = None
    ) -> dict:
        """Erase facts everywhere the forget service reaches (a rejected review candidate):
        the receipt."""
        from services.forget.service import ForgetScope, ForgetService

        scope = ForgetScope(agent=self.slug, fact_ids=tuple(ids), label=label, rule=rule)
        return ForgetService(self.engram).execute(scope)

    def _edit_in_review(self, fact_id: int, content: str, actor: str) -> tuple[int, dict | None]:
        from services.ingest.review_edit import edit_and_accept

        def erase(ids: list[int]) -> dict:  # a correction, not a ban: no forget rule
            return self._erase_facts(ids, label="edited in review", rule=False)

        return edit_and_accept(self, fact_id, content, erase, actor=actor)

    # writes ------------------------------------------------------------------------------
    def remember(
        self,
        text: str,
        category: str = "fact",
        importance: float = 0.5,
        pinned: bool = False,
        source: str = "manual",
        **kw,
    ) -> RememberResult:
        from services.ingest.pipeline import NewFact

        return self.remember_many(
            [
                NewFact(
                    content=text,
                    category=category,
                    importance=importance,
                    pinned=pinned,
                    source=source,
                    **kw,
                )
            ]
        )[0]

    def remember_many(self, items: Sequence[NewFact], **kw) -> list[RememberResult]:
        from models.db import writer_lock
        from services.ingest.pipeline import Ingestor

        self.engram.wait_semantic()  # a server warming up: the checks need the neighbours
        # one Ingestor per call: it keeps per-batch state, and threads share this handle
        with writer_lock(self.db, self.agent_id):  # team stores: duplicates still merge
            results = Ingestor(self).remember_many(items, **kw)
        if self.engram.index is None and any(r.status != "duplicate" for r in results):
            from services.vectors import backlog

            backlog.mark(self.engram.config.data_dir)  # stored without vectors: owed
        return results

    def get(self, fact_id: int) -> FactView:
        return self.facts.get(fact_id)

    def list(self, filters: FactFilters | None = None, **kw) -> list[FactView]:
        return self.facts.list(filters, **kw)

    def edit(self, fact_id: int, actor: str = "user", **changes) -> FactView:
        """Change a fact. New content passes the write policy like any other write: secrets
        redacted, personal data per the agent's policy ("ask" sends the fact back to review),
        and text a forget rule covers is refused. Subject, tags and metadata pass it too."""
        if changes.get("content") is not None:
            from services.ingest.policy import sanitize_for

            verdict = sanitize_for(self, changes["content"])
            if verdict.blocked_by:
                raise InvalidInput(
                    f"not stored: the text matches forget rule {verdict.blocked_by!r}"
                )
            if verdict.empty:
                raise InvalidInput("a fact cannot be empty")
            changes["content"] = verdict.text
            if verdict.pending:
                changes["status"] = "pending"
                meta = {**self.facts.get(fact_id).metadata}
                meta.update(review_metadata("personal-data", kinds=sorted(verdict.pii_found)))
                changes["metadata"] = meta
            note = verdict.audit_note()
            if note:
                self.facts.audit(
                    "redact",
                    fact_id,
                    None,
                    note,
                    actor="engram",
                    reason="edit: " + _redaction_reason(note),
                )
        _clean_fields(self, changes)
        view = self.facts.edit(fact_id, actor=actor, **changes)
        if changes.get("content") is not None or "subject" in changes or "status" in changes:
            # the words changed, or the fact went back to review (an undone accept) or out
            # of it: so may the entities it names
            self.entities.relink(fact_id)
        return view

    def restore(self, snap: dict, actor: str = "user") -> FactView:
        """Re-create a deleted fact from its snapshot (undo). The text passes the policy again:
        a forget made since the delete must not be undone by an undo."""
        from services.ingest.policy import sanitize_for

        verdict = sanitize_for(self, snap.get("content"))
        if verdict.blocked_by:
            raise InvalidInput(
                f"cannot restore: the text matches forget rule {verdict.blocked_by!r}"
            )
        status = (
            "pending" if verdict.pending and snap.get("status") == "active" else snap.get("status")
        )
        fields = {k: snap.get(k) for k in ("subject", "tags", "metadata")}
        if snap.get("category") is not None:
            fields["category"] = snap["category"]
        _clean_fields(self, fields)
        view = self.facts.restore(
            {**snap, **fields, "content": verdict.text, "status": status}, actor=actor
        )
        self.entities.relink(view.id)
        return view

    # episodes ----------------------------------------------------------------------------
    def add_episode(self, day, summary: str, **kw) -> tuple[int | None, bool]:
        """(episode id, created); (None, False) when nothing is left to store (empty, or the
        summary holds forgotten text)."""
        from services.ingest.policy import Target, policy_for

        policy = policy_for(self)
        verdict = policy.sanitize(summary, Target.EPISODE)
        if not verdict.storable:
            return None, False
        if kw.get("tags"):
            kw["tags"] = policy.tags(kw["tags"])
        return self.episodes.add(day, verdict.text, **kw)

    def upsert_episode(self, day, summary: str, source_file: str, **kw) -> tuple[int | None, str]:
        from services.ingest.policy import Target, policy_for

        policy = policy_for(self)
        verdict = policy.sanitize(summary, Target.EPISODE)
        if not verdict.storable:
            return None, "blocked" if verdict.blocked_by else "empty"
        if kw.get("tags"):
            kw["tags"] = policy.tags(kw["tags"])
        return self.episodes.upsert_by_source(day, verdict.text, source_file, **kw)

    def pin(self, fact_id: int) -> FactView:
        return self.facts.pin(fact_id)

    def unpin(self, fact_id: int) -> FactView:
        return self.facts.unpin(fact_id)

    def delete(self, fact_ids, **kw) -> builtins.list[int]:
        return self.facts.delete(fact_ids, **kw)

    # reads -------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        filters: FactFilters | None = None,
        mode: str = "hybrid",
        touch: bool = True,
        weights: SearchWeights | None = None,
        **kw,
    ) -> builtins.list[SearchHit]:
        if mode == "semantic" and not self.engram.semantic_enabled:
            raise ModelUnavailable(self.engram.semantic_error or "semantic search is off")
        if mode != "keyword":
            self.engram.fill_vector_backlog()
        return self._search.search(
            query, k=k, filters=filters, mode=mode, touch=touch, weights=weights, **kw
        )

    def recall_episodes(self, query: str, k: int = 5, **kw) -> builtins.list:
        """Sessions the query is about (``services.search.episodes``), best first."""
        from services.search.episodes import recall_episodes

        return recall_episodes(self, query, k=k, **kw)

    def embed_missing(
        self,
        batch: int = 256,
        cancelled: Callable[[], bool] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Give vectors to facts stored without them (agents' hooks open the store without
        the model to stay fast). Cheap when nothing is missing: a count comparison."""
        index = self.engram.index
        if index is None:
            return 0
        if index.count(self.agent_id) >= fact_rows.count(self.agent_id):
            return 0
        have = index.all_ids(self.agent_id)
        return self._embed_rows(lambda r: r[0] not in have, batch, progress, cancelled)

    def link_owed(self, spans: builtins.list[tuple[int, int]]) -> int:
        """Entity links for this agent's facts with ids in the (first, last) spans a bulk
        import stored unlinked (``services.vectors.backlog``); how many facts."""
        ids = [
            i for i in fact_rows.fact_ids(self.agent_id) if any(lo <= i <= hi for lo, hi in spans)
        ]
        for s in range(0, len(ids), 500):
            with self.db.atomic():
                self.entities.link(ids[s : s + 500])
        return len(ids)

    def rebuild_index(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        batch: int = 256,
    ) -> int:
        """Recreate this agent's vectors from its rows (the rows are the truth)."""
        if self.engram.index is None:
            raise ModelUnavailable(self.engram.semantic_error or "semantic search is off")
        self.engram.index.drop(self.agent_id)
        return self._embed_rows(lambda r: True, batch, progress, cancelled)

    def _embed_rows(self, keep, batch, progress, cancelled) -> int:
        index = self.engram.index
        if index is None:
            raise ModelUnavailable(self.engram.semantic_error or "semantic search is off")
        rows = [r for r in fact_rows.ordered_texts(self.agent_id) if keep(r)]
        done = 0
        for s in range(0, len(rows), batch):
            if cancelled and cancelled():
                break
            part = rows[s : s + batch]
            index.upsert(self.agent_id, [r[0] for r in part], [r[1] for r in part])
            done += len(part)
            if progress:
                progress(done, len(rows))
        return done

    def import_path(self, path: str | Path, fmt: str | None = None, progress=None, cancelled=None):
        from services.interop.importers.service import import_into

        return import_into(self, Path(path), fmt=fmt, progress=progress, cancelled=cancelled)


def _refresh_agent_files(memory: MemoryHandle) -> object:
    # imported when a compile calls it: the hooks' installer it uses cost every command that
    # opens the store (a mistyped --agent, a read) ~20 ms
    from services.integrations.rule_refresh import refresh_agent_files

    return refresh_agent_files(memory)


def _clean_fields(memory: AgentMemory, changes: dict) -> None:
    """Category, subject, tags and metadata through the write policy (an importance or a
    pin alone carries no text: the policy is not even loaded for it)."""
    if all(changes.get(k) is None for k in ("category", "subject", "tags", "metadata")):
        return
    from services.ingest.policy import policy_for

    policy = policy_for(memory)
    if changes.get("category") is not None:
        changes["category"] = policy.category(changes["category"])
    if changes.get("subject") is not None:
        changes["subject"] = policy.field(changes["subject"]) or CleanText("")
    if changes.get("tags") is not None:
        changes["tags"] = policy.tags(changes["tags"])
    if changes.get("metadata") is not None:
        changes["metadata"] = policy.metadata(changes["metadata"])


def _redaction_reason(note: dict) -> str:
    return f"{note['secrets']} secret(s), {note['pii_redacted']} personal detail(s) redacted"

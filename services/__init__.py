"""Engram's service layer: plain Python (no Qt), used by the CLI, the GUI, hooks and benchmarks.

The public API is this package's ``__all__``: callers above it (``app``, ``ui``, ``bench``)
import from ``services``, not from its packages. Names resolve on first use (PEP 562), so a
hook that only needs the store does not pay for Chroma or onnxruntime.

Packages, bottom to top (checked by import-linter):
``store`` rows of one agent, text helpers, atomic files · ``vectors`` model, embedder, Chroma ·
``ingest`` the write policy and pipeline · ``search`` hybrid ranking, context block ·
``lifecycle`` decay, GC, compile · ``capture`` transcripts, extraction, sessions ·
``interop`` importers, sync, export, archive · ``forget`` scope, preview, purge, verify ·
``integrations`` agents' hooks · and on top the ``engram`` façade.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    # the façade, configuration, errors, records, events
    "Engram": "services.engram",
    "AgentMemory": "services.engram",
    "StoreConfig": "services.config",
    "EngramError": "services.errors",
    "InvalidInput": "services.errors",
    "NotFound": "services.errors",
    "ModelUnavailable": "services.errors",
    # what a destructive action does, in the CLI's and the app's words alike
    "DELETE_FACT": "services.consequences",
    "EMPTY_TRASH": "services.consequences",
    "REJECT": "services.consequences",
    "MERGE_ENTITIES": "services.consequences",
    "EventBus": "services.events",
    "EventKind": "services.events",
    "AgentInfo": "services.records",
    "FactView": "services.records",
    "SearchHit": "services.records",
    "RememberResult": "services.records",
    "RememberStatus": "services.records",
    "ImportReport": "services.records",
    "discover_sources": "services.interop.discover",
    "import_discovered": "services.interop.discover",
    "DiscoveredSource": "services.interop.discover",
    # facts and writes
    "FactFilters": "services.store.facts",
    "FACT_STATUSES": "models.tables",
    "MEMORY_TYPES": "models.tables",
    "FactStatus": "services.store.facts",
    "agent_stats": "services.store.stats",
    "tag_counts": "services.store.stats",
    "ReviewItem": "services.store.review",
    "review_metadata": "services.store.review",
    "explain_store_error": "services.store.health",
    "NewFact": "services.ingest.pipeline",
    "bulk_remember": "services.ingest.bulk",
    "PII_KINDS": "services.ingest.pii",
    "validate_pii_policy": "services.ingest.pii",
    # entities
    "EntityView": "services.entities.queries",
    "EntityPage": "services.entities.queries",
    "ENTITY_TYPES": "services.entities.extract",
    # search
    "SearchMode": "services.search.hybrid",
    "DEFAULT_WEIGHTS": "services.search.hybrid",
    "build_context": "services.search.context",
    "recall_episodes": "services.search.episodes",
    "EpisodeHit": "services.search.episodes",
    # lifecycle
    "CompileService": "services.lifecycle.compile",
    "latest_layers": "services.lifecycle.compile",
    "layer_diff": "services.lifecycle.compile",
    "run_gc": "services.lifecycle.gc",
    "GCReport": "services.lifecycle.gc",
    "undo_gc": "services.lifecycle.gc",
    "redo_gc": "services.lifecycle.gc",
    "archived_facts": "services.lifecycle.gc",
    "restore_archived": "services.lifecycle.gc",
    "archived_count": "services.lifecycle.gc",
    "archived_ids": "services.lifecycle.gc",
    "gc_runs": "services.lifecycle.gc",
    "restore_gc_run": "services.lifecycle.gc",
    "archived_summary": "services.lifecycle.archived",
    "archived_page": "services.lifecycle.archived",
    "restore_in_batches": "services.lifecycle.archived",
    # the pictures (issue 36): what agents load, memory health, receipts, reads, pause
    "load_board": "services.lifecycle.load_board",
    "AgentLoad": "services.lifecycle.load_board",
    "memory_health": "services.lifecycle.health",
    "merge_duplicates": "services.lifecycle.health",
    "archive_with_reason": "services.lifecycle.health",
    "receipt_picture": "services.forget.receipt_places",
    "agent_reads": "services.store.read_log",
    "read_counts": "services.store.read_log",
    "capture_paused": "services.store.pause",
    "set_capture_paused": "services.store.pause",
    "LifecycleConfig": "services.lifecycle.config",
    "load_config": "services.lifecycle.config",
    "save_config": "services.lifecycle.config",
    # capture
    "ingest_session": "services.capture.sessions",
    "ingest_folder": "services.capture.folders",
    # interop
    "sync_workspace": "services.interop.sync",
    "workspace_signature": "services.interop.sync",
    "export_agent": "services.interop.export",
    "export_archive": "services.interop.archive",
    "import_archive": "services.interop.archive",
    "ImportFormatError": "services.interop.importers.base",
    "detect_format": "services.interop.importers.service",
    "parse_source": "services.interop.importers.service",
    "seed_demo": "services.interop.demo",
    "first_run": "services.interop.demo",
    # forget
    "ForgetScope": "services.forget.service",
    "ForgetService": "services.forget.service",
    "SEMANTIC_THRESHOLD": "services.forget.service",
    "expand_entity": "services.forget.entity_scope",
    # integrations (MCP)
    "MCP_TARGET_NAMES": "services.integrations.mcp.status",
    "engram_argv": "services.integrations.hooks_install",
    "mcp_registrations": "services.integrations.mcp.status",
    "set_mcp_registration": "services.integrations.mcp.status",
    "mcp_review_required": "services.integrations.mcp.status",
    "set_mcp_review": "services.integrations.mcp.status",
    # secrets
    "SecretsStore": "services.secrets",
    "LLM_API_KEY": "services.secrets",
    # team store
    "ChangeListener": "services.teamstore",
    "check_connection": "services.teamstore",
    "save_password": "services.teamstore",
    "team_agents": "services.teamstore",
    "add_member": "services.teamstore",
    # sync of a local store with a PostgreSQL store
    "sync_status_here": "services.teamsync.engine",
    "store_syncs": "services.teamsync.engine",
    "sync_server": "services.teamsync.engine",
    "stop_syncing": "services.teamsync.engine",
}
_ALIASES = {
    "explain_store_error": "explain",
    "PII_KINDS": "KINDS",
    "validate_pii_policy": "validate_policy",
    "ENTITY_TYPES": "TYPES",
    "MCP_TARGET_NAMES": "TARGET_NAMES",
    "sync_status_here": "status_here",
    "store_syncs": "syncs",
    "receipt_picture": "picture",
    "agent_reads": "reads",
    "capture_paused": "is_paused",
    "set_capture_paused": "set_paused",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'services' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _ALIASES.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # for type checkers and IDEs; at run time names resolve lazily
    from models.tables import FACT_STATUSES, MEMORY_TYPES
    from services.capture.folders import ingest_folder
    from services.capture.sessions import ingest_session
    from services.config import StoreConfig
    from services.consequences import DELETE_FACT, EMPTY_TRASH, MERGE_ENTITIES, REJECT
    from services.engram import AgentMemory, Engram
    from services.entities.extract import TYPES as ENTITY_TYPES
    from services.entities.queries import EntityPage, EntityView
    from services.errors import EngramError, InvalidInput, ModelUnavailable, NotFound
    from services.events import EventBus, EventKind
    from services.forget.entity_scope import expand_entity
    from services.forget.receipt_places import picture as receipt_picture
    from services.forget.service import SEMANTIC_THRESHOLD, ForgetScope, ForgetService
    from services.ingest.bulk import bulk_remember
    from services.ingest.pipeline import NewFact
    from services.integrations.hooks_install import engram_argv
    from services.integrations.mcp.status import TARGET_NAMES as MCP_TARGET_NAMES
    from services.integrations.mcp.status import (
        mcp_registrations,
        mcp_review_required,
        set_mcp_registration,
        set_mcp_review,
    )
    from services.interop.archive import export_archive, import_archive
    from services.interop.demo import first_run, seed_demo
    from services.interop.discover import DiscoveredSource, discover_sources, import_discovered
    from services.interop.export import export_agent
    from services.interop.importers.base import ImportFormatError
    from services.interop.importers.service import detect_format, parse_source
    from services.interop.sync import sync_workspace, workspace_signature
    from services.lifecycle.archived import archived_page, archived_summary, restore_in_batches
    from services.lifecycle.compile import CompileService, latest_layers, layer_diff
    from services.lifecycle.config import LifecycleConfig, load_config, save_config
    from services.lifecycle.gc import (
        GCReport,
        archived_count,
        archived_facts,
        archived_ids,
        gc_runs,
        redo_gc,
        restore_archived,
        restore_gc_run,
        run_gc,
        undo_gc,
    )
    from services.lifecycle.health import archive_with_reason, memory_health, merge_duplicates
    from services.lifecycle.load_board import AgentLoad, load_board
    from services.records import (
        AgentInfo,
        FactView,
        ImportReport,
        RememberResult,
        RememberStatus,
        SearchHit,
    )
    from services.search.context import build_context
    from services.search.episodes import EpisodeHit, recall_episodes
    from services.search.hybrid import DEFAULT_WEIGHTS, SearchMode
    from services.secrets import LLM_API_KEY, SecretsStore
    from services.store.facts import FactFilters, FactStatus
    from services.store.pause import is_paused as capture_paused
    from services.store.pause import set_paused as set_capture_paused
    from services.store.read_log import read_counts
    from services.store.read_log import reads as agent_reads
    from services.store.review import ReviewItem, review_metadata
    from services.store.stats import agent_stats, tag_counts
    from services.teamstore import (
        ChangeListener,
        add_member,
        check_connection,
        save_password,
        team_agents,
    )
    from services.teamsync.engine import status_here as sync_status_here
    from services.teamsync.engine import stop_syncing, sync_server
    from services.teamsync.engine import syncs as store_syncs

"""Offline-first sync of a local store with a PostgreSQL store (a team's or one person's).

The local store stays the one agents talk to. ``engram sync`` (or the app) runs a round when
the server answers: local changes are queued in the local store's outbox and pushed, keyed
by this client's id and a sequence (a retried push applies once); others' changes are pulled
by the server's change cursor; a forget travels as an erasure of ids, never as text.
"""

from services.teamsync.engine import (
    SyncReport,
    SyncStatus,
    status_here,
    sync_round,
    sync_status,
)

__all__ = ["SyncReport", "SyncStatus", "status_here", "sync_round", "sync_status"]

"""Persistence: peewee models over SQLite (FTS5 for exact search), schema and migrations."""
from models.db import database_proxy, open_database, connect_database
from models.entities import (
    Agent, Fact, Episode, Session, CompiledLayer, AuditEvent, ForgetRule, ForgetReceipt,
    SchemaVersion, ALL_MODELS,
)

__all__ = [
    "database_proxy", "open_database", "connect_database",
    "Agent", "Fact", "Episode", "Session", "CompiledLayer", "AuditEvent", "ForgetRule",
    "ForgetReceipt", "SchemaVersion", "ALL_MODELS",
]

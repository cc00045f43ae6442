"""Persistence: peewee models over SQLite (FTS5 for exact search), schema and migrations."""

from models.db import connect_database, database_proxy, open_database
from models.tables import (
    ALL_MODELS,
    Agent,
    AuditEvent,
    CompiledLayer,
    Entity,
    EntityCandidate,
    EntityRelation,
    Episode,
    Fact,
    FactEntity,
    ForgetReceipt,
    ForgetRule,
    ReadLog,
    SchemaVersion,
    Session,
)

__all__ = [
    "database_proxy",
    "open_database",
    "connect_database",
    "Agent",
    "Fact",
    "Episode",
    "Session",
    "CompiledLayer",
    "AuditEvent",
    "ForgetRule",
    "ForgetReceipt",
    "ReadLog",
    "SchemaVersion",
    "Entity",
    "FactEntity",
    "EntityRelation",
    "EntityCandidate",
    "ALL_MODELS",
]

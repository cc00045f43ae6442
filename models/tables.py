"""Peewee models. Times are naive UTC datetimes; JSON columns hold lists/dicts as text."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import peewee as pw

from models.db import database_proxy
from models.identity import current_origin, current_user


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def new_uid() -> str:
    """A row's stable identity (schema v10): unlike the integer id, never reused by another
    row, in this store or in a copy or restored backup of it."""
    return uuid.uuid4().hex


class JSONField(pw.TextField):
    def db_value(self, value):
        return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)

    def python_value(self, value):
        return None if value is None else json.loads(value)


class BaseModel(pw.Model):
    class Meta:
        database = database_proxy
        legacy_table_names = False


class SchemaVersion(BaseModel):
    version = pw.IntegerField()
    applied_at = pw.DateTimeField(default=utcnow)


class Agent(BaseModel):
    slug = pw.CharField(unique=True)
    uid = pw.CharField(default=new_uid, null=True)  # schema v10 (index, trigger for raw inserts)
    name = pw.CharField()
    kind = pw.CharField(default="generic")  # claude-code, cursor, codex, hermes, lynn, generic
    workspace = pw.TextField(null=True)
    settings = JSONField(default=dict)  # per-agent knobs (pii policy, caps, budgets)
    created_at = pw.DateTimeField(default=utcnow)
    # team stores (schema v4): "shared" with the team or "private" to its owner (a database
    # role; PostgreSQL row-level security enforces it, see models/access.py)
    visibility = pw.CharField(default="shared")
    owner = pw.CharField(null=True)


FACT_STATUSES = ("active", "archived", "superseded", "pending", "forgotten")
MEMORY_TYPES = ("semantic", "episodic", "procedural", "temporal")


class Fact(BaseModel):
    agent = pw.ForeignKeyField(Agent, backref="facts", on_delete="CASCADE", index=True)
    # schema v10; write-back links and sync key on it. NULL only until the insert trigger
    # (v10) fills it: a raw INSERT (the bulk path) names the column without a value
    uid = pw.CharField(default=new_uid, null=True)
    content = pw.TextField()
    content_hash = pw.CharField(index=True)  # sha256 of normalized content: exact dedup
    category = pw.CharField(default="fact", index=True)
    memory_type = pw.CharField(default="semantic", index=True)
    importance = pw.FloatField(default=0.5)
    confidence = pw.FloatField(default=0.8)
    pinned = pw.BooleanField(default=False, index=True)
    status = pw.CharField(default="active", index=True)
    source = pw.CharField(default="manual")  # manual, cli, import, session, sync
    source_ref = pw.TextField(null=True)  # file path, session id, …
    subject = pw.CharField(null=True, index=True)  # entity/attribute key used for supersession
    tags = JSONField(default=list)
    event_date = pw.DateField(null=True)  # the day the memory is about (entry date, turn date)
    created_at = pw.DateTimeField(default=utcnow, index=True)
    updated_at = pw.DateTimeField(default=utcnow)
    last_accessed = pw.DateTimeField(null=True)
    access_count = pw.IntegerField(default=0)
    expires_at = pw.DateTimeField(null=True)
    superseded_by = pw.ForeignKeyField(
        "self", null=True, backref="supersedes", on_delete="SET NULL"
    )
    metadata = JSONField(default=dict)

    class Meta:
        indexes = ((("agent", "status", "created_at"), False), (("agent", "content_hash"), False))


class Session(BaseModel):
    agent = pw.ForeignKeyField(Agent, backref="sessions", on_delete="CASCADE", index=True)
    external_id = pw.CharField()
    source_path = pw.TextField(null=True)
    started_at = pw.DateTimeField(null=True)
    ended_at = pw.DateTimeField(null=True)
    turn_count = pw.IntegerField(default=0)
    processed_at = pw.DateTimeField(null=True)
    log = pw.TextField(null=True)  # condensed transcript kept for summaries; pruned by GC

    class Meta:
        indexes = ((("agent", "external_id"), True),)


class Episode(BaseModel):
    agent = pw.ForeignKeyField(Agent, backref="episodes", on_delete="CASCADE", index=True)
    day = pw.DateField(index=True)
    time = pw.CharField(null=True)  # "2:30 PM" as agents write it
    summary = pw.TextField()
    tags = JSONField(default=list)
    session = pw.ForeignKeyField(Session, null=True, backref="episodes", on_delete="SET NULL")
    source_file = pw.TextField(null=True)
    content_hash = pw.CharField(index=True)
    created_at = pw.DateTimeField(default=utcnow)


class CompiledLayer(BaseModel):
    agent = pw.ForeignKeyField(Agent, backref="layers", on_delete="CASCADE", index=True)
    layer = pw.CharField()  # today, week, longterm, memory
    markdown = pw.TextField()
    token_count = pw.IntegerField(default=0)
    budget = pw.IntegerField(default=0)
    provenance = JSONField(default=list)  # [[line_no, [fact ids]], …]
    compiled_at = pw.DateTimeField(default=utcnow, index=True)
    path = pw.TextField(null=True)


class AuditEvent(BaseModel):
    agent = pw.ForeignKeyField(Agent, backref="events", on_delete="CASCADE", index=True)
    fact_id = pw.IntegerField(null=True, index=True)  # no FK: history outlives a delete
    action = pw.CharField()  # create, edit, pin, unpin, delete, restore, supersede, gc.*, redact
    before = JSONField(null=True)
    after = JSONField(null=True)
    actor = pw.CharField(default="user")
    reason = pw.TextField(null=True)
    # who (ENGRAM_USER, else user@host) and from where (cli, app, hook, mcp:<client>);
    # schema v4. Defaults, so every insert path records them.
    by_user = pw.CharField(null=True, default=current_user)
    origin = pw.CharField(null=True, default=current_origin)
    created_at = pw.DateTimeField(default=utcnow, index=True)


class ForgetRule(BaseModel):
    agent = pw.ForeignKeyField(Agent, null=True, backref="forget_rules", on_delete="CASCADE")
    label = pw.CharField()
    hashes = JSONField(default=list)  # keyed hashes of normalized n-grams, never the text
    ngram = pw.IntegerField(default=1)
    created_at = pw.DateTimeField(default=utcnow)


class ForgetReceipt(BaseModel):
    agent_slug = pw.CharField(null=True)
    scope = JSONField(default=dict)
    counts = JSONField(default=dict)
    hashes = JSONField(default=list)
    created_at = pw.DateTimeField(default=utcnow)


ENTITY_TYPES = ("person", "organisation", "project", "place", "tool", "concept")
LINK_SOURCES = ("extracted", "import", "subject-key", "user")


class Entity(BaseModel):
    """A person, organisation, project, place, tool or concept one agent knows about."""

    agent = pw.ForeignKeyField(Agent, backref="entities", on_delete="CASCADE", index=True)
    name = pw.CharField()
    key = pw.CharField()  # normalised name: the identity lookup key
    type = pw.CharField(default="concept")
    aliases = JSONField(default=list)
    first_mentioned = pw.DateTimeField(default=utcnow)
    last_mentioned = pw.DateTimeField(default=utcnow)
    mention_count = pw.IntegerField(default=0)
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("agent", "key"), False),)


class FactEntity(BaseModel):
    """A fact mentions an entity; ``source`` says how the link was made."""

    fact = pw.ForeignKeyField(Fact, backref="entity_links", on_delete="CASCADE")
    entity = pw.ForeignKeyField(Entity, backref="links", on_delete="CASCADE", index=True)
    source = pw.CharField(default="extracted")  # extracted, import, subject-key, user

    class Meta:
        indexes = ((("fact", "entity"), True),)


class EntityRelation(BaseModel):
    """A relation a source stated ("X works on Y"); it goes with the fact that stated it."""

    agent = pw.ForeignKeyField(Agent, on_delete="CASCADE", index=True)
    src = pw.ForeignKeyField(Entity, backref="relations_out", on_delete="CASCADE", index=True)
    dst = pw.ForeignKeyField(Entity, backref="relations_in", on_delete="CASCADE", index=True)
    type = pw.CharField()
    fact = pw.ForeignKeyField(Fact, null=True, on_delete="CASCADE", index=True)
    source = pw.CharField(default="extracted")
    created_at = pw.DateTimeField(default=utcnow)


class EntityCandidate(BaseModel):
    """Two entities that may be one (same first name, no evidence): the user decides."""

    agent = pw.ForeignKeyField(Agent, on_delete="CASCADE", index=True)
    entity = pw.ForeignKeyField(Entity, on_delete="CASCADE", index=True)
    other = pw.ForeignKeyField(Entity, on_delete="CASCADE", index=True)
    reason = pw.CharField(default="same-first-name")
    status = pw.CharField(default="open")  # open, merged, dismissed
    created_at = pw.DateTimeField(default=utcnow)


class ReadLog(BaseModel):
    """Which facts an agent read and how (MCP ``recall``/``get_context``, the hooks' context
    injection): ids and the channel, never text; a forgotten fact's reads go with it."""

    agent = pw.ForeignKeyField(Agent, on_delete="CASCADE")
    fact = pw.ForeignKeyField(Fact, on_delete="CASCADE", index=True)
    channel = pw.CharField()  # "mcp recall", "mcp get_context", "hook context"
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "read_log"
        indexes = ((("agent", "created_at"), False),)


# created by migration 5, not by 1 (a released migration never changes)
ENTITY_MODELS = [Entity, FactEntity, EntityRelation, EntityCandidate]

ALL_MODELS = [
    SchemaVersion,
    Agent,
    Fact,
    Session,
    Episode,
    CompiledLayer,
    AuditEvent,
    ForgetRule,
    ForgetReceipt,
]

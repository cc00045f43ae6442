"""Plain data the services hand out (never peewee rows: callers in other threads hold them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from enum import StrEnum


@dataclass(frozen=True)
class AgentInfo:
    id: int
    slug: str
    name: str
    kind: str
    workspace: str | None
    fact_count: int = 0


@dataclass(frozen=True)
class FactView:
    id: int
    agent_id: int
    content: str
    category: str
    memory_type: str
    importance: float
    confidence: float
    pinned: bool
    status: str
    source: str
    source_ref: str | None
    subject: str | None
    tags: tuple[str, ...]
    event_date: date | None
    created_at: datetime
    updated_at: datetime
    last_accessed: datetime | None
    access_count: int
    expires_at: datetime | None
    superseded_by: int | None
    metadata: dict = field(default_factory=dict, compare=False, hash=False)
    # who wrote it and from where: {"created_by", "created_from", "changed_by", "changed_from"}
    # from the audit trail; filled by ``get`` (one fact), None in lists
    provenance: dict | None = field(default=None, compare=False, hash=False)

    def to_json(self) -> dict:
        d = asdict(self)
        d["tags"] = list(self.tags)
        for k, v in list(d.items()):
            if isinstance(v, (date, datetime)):
                d[k] = v.isoformat()
        return d


class RememberStatus(StrEnum):
    """What became of one item given to ``remember``. A ``StrEnum``: it compares equal to,
    prints as and serialises to its value ("added"), which is what the CLI's JSON, the MCP
    tools and the hooks have always shown."""

    ADDED = "added"
    DUPLICATE = "duplicate"
    NEAR_DUPLICATE = "near-duplicate"
    SUPERSEDED = "superseded"  # a correction of a near twin
    CONFLICT = "conflict"  # contradicts a near twin: both kept, the new one in review
    BLOCKED = "blocked"  # a forget rule covers it
    EMPTY = "empty"
    REFUSED = "refused"  # over a size limit: ``reason`` says which
    CANCELLED = "cancelled"  # the batch was cancelled before this item was written


@dataclass
class RememberResult:
    status: RememberStatus
    fact_id: int | None
    superseded: list[int] = field(default_factory=list)
    redactions: int = 0
    reason: str | None = None
    conflicts_with: int | None = None

    @property
    def stored_new(self) -> bool:
        """A new fact row was written (plain, as a correction, or as a conflict for review)."""
        return self.status in (
            RememberStatus.ADDED,
            RememberStatus.SUPERSEDED,
            RememberStatus.CONFLICT,
        )


@dataclass(frozen=True)
class SearchHit:
    fact: FactView
    score: float
    signals: dict  # contribution of each signal to score: keyword, semantic, recency, …
    raw: dict  # raw signal values: bm25, cosine, ranks
    # what ranked it (services.search.hybrid.Pipeline): "keyword-only" when no vectors took part
    pipeline: str = "hybrid"

    @property
    def keyword_only(self) -> bool:
        return self.pipeline == "keyword-only"

    def to_json(self) -> dict:
        return {
            "id": self.fact.id,
            "content": self.fact.content,
            "score": round(self.score, 6),
            "signals": {k: round(v, 6) for k, v in self.signals.items()},
            "raw": self.raw,
            "category": self.fact.category,
            "status": self.fact.status,
            "pinned": self.fact.pinned,
            "created_at": self.fact.created_at.isoformat(),
            "pipeline": self.pipeline,
            "keyword_only": self.keyword_only,
        }


@dataclass
class ImportReport:
    source: str
    format: str
    added: int = 0
    duplicates: int = 0
    superseded: int = 0
    blocked: int = 0
    redacted: int = 0
    episodes_added: int = 0
    episodes_duplicates: int = 0
    episodes_updated: int = 0  # rolling summaries rewritten by the agent since the last import
    archived: int = 0  # statements the source file no longer makes
    revived: int = 0  # statements the source file makes again
    skipped: list = field(default_factory=list)  # ImportProblem

    def to_json(self) -> dict:
        d = asdict(self)
        d["skipped"] = [
            asdict(p) if hasattr(p, "__dataclass_fields__") else p for p in self.skipped
        ]
        return d

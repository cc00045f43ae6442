"""What parsers return. No store access here."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path


@dataclass
class ImportedFact:
    content: str
    category: str = "fact"
    importance: float = 0.5
    event_date: date | None = None
    created_at: datetime | None = None
    tags: list[str] = field(default_factory=list)
    source_ref: str | None = None  # "path:line"
    memory_type: str | None = None
    subject: str | None = None
    pinned: bool = False
    confidence: float = 0.8
    status: str = "active"  # "pending" for overflow queues
    metadata: dict = field(default_factory=dict)


@dataclass
class ImportedEpisode:
    day: date
    summary: str
    time: str | None = None
    tags: list[str] = field(default_factory=list)
    source_ref: str | None = None
    session_ref: str | None = None


@dataclass
class ImportProblem:
    file: str
    line: int | None
    reason: str


@dataclass
class ParsedSource:
    format: str
    root: Path
    facts: list[ImportedFact] = field(default_factory=list)
    episodes: list[ImportedEpisode] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    compiled: dict[str, str] = field(default_factory=dict)  # layer name → markdown seen
    sources: list[str] = field(default_factory=list)  # files read in full (absolute paths)


class ImportFormatError(Exception):
    """The path is not in any format Engram knows (or not in the one asked for)."""

"""Episodes: dated session summaries (``episodes/YYYY-MM-DD.md`` entries), one agent at a time."""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from models import Episode
from models.db import is_postgres
from services.errors import NotFound
from services.events import EventBus
from services.store.text import content_hash, require_clean, require_clean_tags


@dataclass(frozen=True)
class EpisodeView:
    id: int
    day: date
    time: str | None
    summary: str
    tags: tuple[str, ...]
    session_id: int | None
    source_file: str | None

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "day": self.day.isoformat(),
            "time": self.time,
            "summary": self.summary,
            "tags": list(self.tags),
            "session_id": self.session_id,
            "source_file": self.source_file,
        }


_CLOCK = re.compile(r"^\s*(\d{1,2})(?::(\d{2}))?\s*([AaPp][Mm])?")


def clock_minutes(time: str | None) -> int:
    """Minutes after midnight of "2:30 PM" / "14:30" (agents write both); unknown → -1."""
    m = _CLOCK.match(time or "")
    if not m:
        return -1
    h, mins, ampm = int(m.group(1)), int(m.group(2) or 0), (m.group(3) or "").lower()
    if ampm == "pm" and h < 12:
        h += 12
    elif ampm == "am" and h == 12:
        h = 0
    return h * 60 + mins


def episode_view(e: Episode) -> EpisodeView:
    return EpisodeView(
        e.id, e.day, e.time, e.summary, tuple(e.tags or ()), e.session_id, e.source_file
    )


class EpisodeStore:
    def __init__(self, agent_id: int, db: Any, bus: EventBus | None = None):
        self.agent_id, self.db, self.bus = agent_id, db, bus

    def _q(self) -> Any:
        return Episode.select().where(Episode.agent == self.agent_id)

    def add(
        self,
        day: date,
        summary: str,
        time: str | None = None,
        tags: Iterable[str] | None = None,
        session_id: int | None = None,
        source_file: str | None = None,
    ) -> tuple[int, bool]:
        """(episode id, created). The same day+time+summary is stored once (idempotent)."""
        summary = require_clean(summary, "an episode summary").strip()
        tags = require_clean_tags(tags)
        h = content_hash(f"{day.isoformat()} {time or ''} {summary}")
        with self.db.atomic():
            old = self._q().where(Episode.content_hash == h).first()
            if old is not None:
                return old.id, False
            e = Episode.create(
                agent=self.agent_id,
                day=day,
                time=time,
                summary=summary,
                tags=list(tags or []),
                session=session_id,
                source_file=source_file,
                content_hash=h,
            )
        if self.bus:
            self.bus.emit("episode.added", agent_id=self.agent_id, ids=[e.id])
        return e.id, True

    def upsert_by_source(
        self,
        day: date,
        summary: str,
        source_file: str,
        time: str | None = None,
        tags: Iterable[str] | None = None,
    ) -> tuple[int, str]:
        """For sources that rewrite one rolling summary per session (Lynn's
        ``summaries/<session>.json``): the episode from that file is updated in place, not
        stored again. Returns (id, "added" | "updated" | "same")."""
        clean = require_clean(summary, "an episode summary").strip()
        tags = require_clean_tags(tags)
        h = content_hash(f"{day.isoformat()} {time or ''} {clean}")
        with self.db.atomic():
            old = self._q().where(Episode.source_file == source_file).first()
            if old is None:
                eid, _ = self.add(day, summary, time=time, tags=tags, source_file=source_file)
                return eid, "added"
            if old.content_hash == h:
                return old.id, "same"
            old.day, old.time, old.summary, old.content_hash = day, time, clean, h
            old.tags = list(tags or [])
            old.save()
        if self.bus:
            self.bus.emit("episode.updated", agent_id=self.agent_id, ids=[old.id])
        return old.id, "updated"

    def get(self, episode_id: int) -> EpisodeView:
        e = self._q().where(Episode.id == episode_id).first()
        if e is None:
            raise NotFound(f"no episode {episode_id} for this agent")
        return episode_view(e)

    def list(
        self, since: date | None = None, until: date | None = None, limit: int | None = None
    ) -> list[EpisodeView]:
        q = self._q()
        if since:
            q = q.where(Episode.day >= since)
        if until:
            q = q.where(Episode.day <= until)
        q = q.order_by(Episode.day.desc(), Episode.id.desc())
        if limit:
            q = q.limit(limit)
        # newest day first; within a day, in the order the sessions happened
        eps = [episode_view(e) for e in q]
        return sorted(eps, key=lambda e: (-e.day.toordinal(), clock_minutes(e.time), e.id))

    def density(self) -> dict[date, int]:
        """Episodes per day, for the timeline's density strip."""
        from peewee import fn

        q = (
            Episode.select(Episode.day, fn.COUNT(Episode.id))
            .where(Episode.agent == self.agent_id)
            .group_by(Episode.day)
            .tuples()
        )
        return {d: n for d, n in q}

    def delete(self, ids: Iterable[int]) -> int:
        ids = list(ids)
        n = Episode.delete().where((Episode.agent == self.agent_id) & Episode.id.in_(ids)).execute()
        if n and self.bus:
            self.bus.emit("episode.deleted", agent_id=self.agent_id, ids=ids)
        return n

    def search(self, query: str, limit: int = 20) -> builtins.list[EpisodeView]:
        from services.store.text import fts_query

        match = fts_query(query)
        if not match:
            return []
        if is_postgres(self.db):
            rows = self._search_postgres(query, limit)
        else:
            rows = self.db.execute_sql(
                "SELECT e.id FROM episode_fts JOIN episode e ON e.id = episode_fts.rowid "
                "WHERE episode_fts MATCH ? AND e.agent_id = ? ORDER BY bm25(episode_fts) LIMIT ?",
                (match, self.agent_id, limit),
            ).fetchall()
        by_id = {e.id: e for e in self._q().where(Episode.id.in_([r[0] for r in rows]))}
        return [episode_view(by_id[r[0]]) for r in rows if r[0] in by_id]

    def _search_postgres(self, query: str, limit: int) -> builtins.list[tuple]:
        """A team store: the generated ``episode.fts`` tsvector, every term a bound parameter."""
        from services.store.text import query_terms

        phrases, words = query_terms(query)
        terms = [p.strip('"') for p in phrases] + words
        if not terms:
            return []
        q = " || ".join(
            ["phraseto_tsquery('english', %s)"] * len(phrases)
            + ["plainto_tsquery('english', %s)"] * len(words)
        )
        return self.db.execute_sql(
            f"SELECT e.id FROM episode e, (SELECT {q} AS q) AS q WHERE e.fts @@ q.q AND e.agent_id = %s "
            "ORDER BY ts_rank_cd(e.fts, q.q) DESC, e.id DESC LIMIT %s",
            [*terms, self.agent_id, limit],
        ).fetchall()

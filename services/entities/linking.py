"""Linking a stored fact to the entities it names, on every write path.

Sources of a link: ``extracted`` (the fact's words), ``import`` (an importer said so:
``metadata["entity"]``, ``metadata["relation"]``, a ``proj:`` topic of an imported file),
``subject-key`` (the fact's subject names the entity: ``prefers-over:npm``, ``location``),
``user`` (the user linked it). Names that come from metadata rather than the fact's clean text
pass the write policy (``clean``) first; a name the policy would change is not stored."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from models import Fact
from models.db import is_postgres
from models.tables import Entity, EntityRelation, FactEntity, utcnow
from services.entities.extract import Mention, _product_like, entity_key, extract
from services.entities.identity import by_name, resolve
from services.entities.lexicon import TOOLS
from services.entities.relations import stated_relations
from services.store import fact_rows
from services.store.review import was_rejected

Clean = Callable[[str], "str | None"]
SOURCE_RANK = {"extracted": 0, "subject-key": 1, "import": 2, "user": 3}
_TYPE_WORDS = {
    "person": ("person", "people", "user", "human", "contact", "individual"),
    "organisation": (
        "organisation",
        "organization",
        "company",
        "org",
        "team",
        "employer",
        "client",
        "institution",
        "business",
    ),
    "project": (
        "project",
        "repo",
        "repository",
        "codebase",
        "product",
        "app",
        "application",
        "package",
        "module",
        "component",
        "crate",
        "service",
    ),
    "place": ("place", "location", "city", "country", "region", "address"),
    "tool": (
        "tool",
        "software",
        "technology",
        "library",
        "framework",
        "language",
        "database",
        "platform",
    ),
}
# subject keys whose value is itself an entity (services/ingest/subjects.py and importers)
_SUBJECT_VALUE_TYPES = {
    "prefers-over": "tool",
    "person": "person",
    "project": "project",
    "tool": "tool",
    "org": "organisation",
    "place": "place",
}
_SUBJECT_MENTION_TYPES = {"location": "place", "employer": "organisation", "tool-for": "tool"}


def _names_a_tool(value: str, text: str) -> bool:
    """A preference's subject names a tool when the lexicon knows it or the fact spells it
    like a name (``Prefers pnpm over npm`` yes; ``dataclasses over dicts`` no)."""
    if value.lower() in TOOLS:
        return True
    at = text.lower().find(value.lower())
    return at >= 0 and (text[at : at + 1].isupper() or _product_like(text[at : at + len(value)]))


def entity_type(word: str | None) -> str:
    w = (word or "").strip().lower()
    for typ, words in _TYPE_WORDS.items():
        if w in words:
            return typ
    return "concept"


def _as_list(value) -> list[dict]:
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, dict)]
    return []


def _named(name, typ: str, source: str, clean: Clean) -> Mention | None:
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        return None
    ok = clean(name.strip())
    return Mention(ok, typ, source=source) if ok and entity_key(ok) else None


def mentions_of(
    row: Fact, clean: Clean
) -> tuple[list[Mention], list[tuple[Mention, str, Mention]]]:
    """Every entity the fact names (extracted, imported, from its subject or topic) and the
    relations its source states."""
    text = row.content or ""
    found = extract(text)
    meta = row.metadata or {}
    imported = "import" if row.source in ("import", "sync") else "extracted"
    for ent in _as_list(meta.get("entity")) + _as_list(meta.get("entities")):
        m = _named(ent.get("name"), entity_type(ent.get("type")), "import", clean)
        if m:
            found.insert(0, m)
    cat = row.category or ""
    if cat.startswith("proj:") and cat[5:] not in ("", "general"):
        m = _named(cat[5:], "project", "import" if imported == "import" else "subject-key", clean)
        if m:
            found.append(m)
    found = _from_subject(row.subject, found, clean, text)
    rels = []  # the source's own relations first: a sentence restating one is not a second
    for rel in _as_list(meta.get("relation")) + _as_list(meta.get("relations")):
        a = _named(rel.get("from"), "concept", "import", clean)
        b = _named(rel.get("to"), "concept", "import", clean)
        typ = rel.get("type") or rel.get("relationType")
        if a and b and isinstance(typ, str) and typ.strip():
            rels.append((_typed(a, found), typ.strip()[:60], _typed(b, found)))
    rels += [(r.src, r.type, r.dst) for r in stated_relations(text, found)]
    return found, rels


def _typed(m: Mention, found: list[Mention]) -> Mention:
    for f in found:
        if f.key == m.key:
            return Mention(f.name, f.type, source=m.source)
    return m


def _from_subject(
    subject: str | None, found: list[Mention], clean: Clean, text: str = ""
) -> list[Mention]:
    if not subject:
        return found
    kind, _, value = subject.partition(":")
    if kind == "prefers-over" and not _names_a_tool(value, text):
        return found  # "short functions over long functions": a preference, not a tool
    if kind in _SUBJECT_VALUE_TYPES and value:
        m = _named(value, _SUBJECT_VALUE_TYPES[kind], "subject-key", clean)
        if m:
            canon = next((f for f in found if f.key == m.key), None)
            found = [f for f in found if f is not canon]
            found.append(Mention((canon or m).name, m.type, source="subject-key"))
        return found
    want = _SUBJECT_MENTION_TYPES.get(kind)
    for i, f in enumerate(found):
        if want and f.type == want and f.source == "extracted":
            found[i] = Mention(f.name, f.type, f.start, f.end, "subject-key")
            break
    return found


def linkable(row: Fact) -> bool:
    """A fact waiting for review, or one review turned down, is not (yet) what the agent
    knows: the names in it are no entities until it is accepted."""
    return row.status != "pending" and not was_rejected(row.metadata)


def link_fact(agent_id: int, row: Fact, clean: Clean) -> list[int]:
    """Link one stored fact; returns the entity ids it names (none while it is not
    ``linkable``)."""
    if not linkable(row):
        return []
    mentions, rels = mentions_of(row, clean)
    # unambiguous names first: they are the context a bare first name is judged by
    ordered = sorted(mentions, key=lambda m: (m.type == "person" and " " not in m.key, 0))
    ids: dict[str, int] = {}
    for m in ordered:
        if m.key in ids:
            continue
        e = resolve(agent_id, m, set(ids.values()))
        ids[m.key] = e.id
        _link(row, e, m.source)
    for a, typ, b in rels:
        src = ids.get(a.key) or _link(row, resolve(agent_id, a, set(ids.values())), a.source)
        dst = ids.get(b.key) or _link(row, resolve(agent_id, b, set(ids.values())), b.source)
        ids.setdefault(a.key, src)
        ids.setdefault(b.key, dst)
        if src != dst:
            _relate(
                agent_id, src, typ, dst, row.id, "import" if a.source == "import" else "extracted"
            )
    return list(ids.values())


def _relate(agent_id: int, src: int, typ: str, dst: int, fact_id: int, source: str) -> None:
    db = Entity._meta.database
    db.execute_sql(
        _sql(
            db,
            "INSERT INTO entity_relation (agent_id, src_id, dst_id, type, fact_id, source, "
            "created_at) SELECT ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM "
            "entity_relation WHERE src_id = ? AND dst_id = ? AND type = ? AND fact_id = ?)",
        ),
        (agent_id, src, dst, typ, fact_id, source, str(utcnow()), src, dst, typ, fact_id),
    )


def _link(row: Fact, e: Entity, source: str) -> int:
    db = Entity._meta.database
    cur = db.execute_sql(
        _sql(db, "INSERT OR IGNORE INTO fact_entity (fact_id, entity_id, source) VALUES (?, ?, ?)"),
        (row.id, e.id, source),
    )
    if cur.rowcount == 1:
        # counted as it goes: recounting a popular entity's links on every write is quadratic
        when = str(row.created_at)
        db.execute_sql(
            _sql(
                db,
                "UPDATE entity SET mention_count = mention_count + 1, "
                "first_mentioned = CASE WHEN mention_count = 0 THEN ? ELSE min(first_mentioned, ?) END, "
                "last_mentioned = CASE WHEN mention_count = 0 THEN ? ELSE max(last_mentioned, ?) END "
                "WHERE id = ?",
            ),
            (when, when, when, when, e.id),
        )
        e.mention_count += 1
    else:
        weaker = [s for s, r in SOURCE_RANK.items() if r < SOURCE_RANK.get(source, 0)]
        if weaker:
            db.execute_sql(
                _sql(
                    db,
                    "UPDATE fact_entity SET source = ? WHERE fact_id = ? AND entity_id = ? AND "
                    f"source IN ({', '.join('?' * len(weaker))})",
                ),
                (source, row.id, e.id, *weaker),
            )
    return e.id


def refresh(entity_ids: Iterable[int] | int) -> None:
    """Mention count and first/last mention from the entity's linked facts."""
    for eid in [entity_ids] if isinstance(entity_ids, int) else entity_ids:
        n, first, last = fact_rows.entity_mentions(eid)
        # no links left (its only fact went back to review): 0, so the list leaves it out
        fields = {"mention_count": n}
        if n:
            fields.update(first_mentioned=first, last_mentioned=last)
        Entity.update(**fields).where(Entity.id == eid).execute()


def relink(agent_id: int, row: Fact, clean: Clean) -> list[int]:
    """After an edit: the words' links are made again; imported and user links stay."""
    old = [
        eid
        for (eid,) in FactEntity.select(FactEntity.entity).where(FactEntity.fact == row.id).tuples()
    ]
    EntityRelation.delete().where(
        (EntityRelation.fact == row.id) & (EntityRelation.source == "extracted")
    ).execute()
    FactEntity.delete().where(
        (FactEntity.fact == row.id) & FactEntity.source.in_(("extracted", "subject-key"))
    ).execute()
    ids = link_fact(agent_id, row, clean)
    refresh(set(old) | set(ids))
    return ids


__all__ = ["by_name", "link_fact", "linkable", "mentions_of", "refresh", "relink"]


def _sql(db, sql: str) -> str:
    """The hot-path SQL above is written for SQLite; on a team store (PostgreSQL) the same
    statements in its dialect."""
    if not is_postgres(db):
        return sql
    if sql.startswith("INSERT OR IGNORE INTO "):
        sql = "INSERT INTO " + sql[len("INSERT OR IGNORE INTO ") :] + " ON CONFLICT DO NOTHING"
    sql = sql.replace("min(first_mentioned", "LEAST(first_mentioned")
    sql = sql.replace("max(last_mentioned", "GREATEST(last_mentioned")
    return sql.replace("?", "%s")

"""Entities in a real store: linking on every write path, identity, relations, imports,
merge/split/rename/alias with undo, the schema migration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from models import Entity, EntityRelation, FactEntity
from services.entities.extract import entity_key
from services.ingest.pipeline import NewFact
from tests.entities.helpers import mcp_facts

DATA = Path(__file__).parent / "data"


@pytest.fixture
def mem(keyword_engram):
    return keyword_engram.agent("work", create=True)


def by_name(mem, name):
    return [e for e in mem.entities.list() if e.name == name]


def test_remember_links_facts_to_entities_with_counts_and_sources(mem):
    a = mem.remember("Maria Lopez is my manager at Acme Corp.").fact_id
    b = mem.remember("Maria Lopez works on Phoenix.").fact_id
    mem.remember("User prefers pnpm over npm")
    (maria,) = by_name(mem, "Maria Lopez")
    assert maria.type == "person" and maria.mention_count == 2
    page = mem.entities.page("maria lopez")
    assert [f.id for f in page.facts] == [a, b]
    assert ("Maria Lopez", "works on", "Phoenix", by_name(mem, "Phoenix")[0].id) in page.relations
    # the subject key names npm: that link says so
    assert mem.entities.page("npm").sources == {"subject-key": 1}
    assert mem.entities.page("pnpm").sources == {"extracted": 1}


def test_remember_many_and_sessions_share_the_pipeline(mem):
    res = mem.remember_many(
        [
            NewFact("Deploys go through GitHub Actions.", source="session"),
            NewFact("Ask @jdoe before merging.", source="cli"),
        ]
    )
    assert all(r.status == "added" for r in res)
    assert {e.name for e in mem.entities.list()} == {"GitHub Actions", "@jdoe"}


def test_an_edit_relinks_and_a_forgotten_name_leaves_the_entity_table(mem, keyword_engram):
    fid = mem.remember("Lunch with Priya Shah in Berlin.").fact_id
    mem.edit(fid, content="Lunch with Kasia Nowak in Berlin.")
    assert {e.name for e in mem.entities.list()} == {"Kasia Nowak", "Berlin"}
    mem.delete([fid])
    assert mem.entities.list() == []
    raw = (
        sqlite3.connect(keyword_engram.config.data_dir / "engram.db")
        .execute("SELECT count(*) FROM entity WHERE name LIKE '%Priya%'")
        .fetchone()
    )
    assert raw == (0,)


def test_same_first_name_stays_apart_until_the_user_merges(mem):
    mem.remember("Maria Lopez is my manager at Acme Corp.")
    mem.remember("Maria Chen runs the Berlin climbing gym.")
    mem.remember("Maria said the roadmap is due Friday.")
    people = {e.name for e in mem.entities.list("person")}
    assert people == {"Maria Lopez", "Maria Chen", "Maria"}
    cands = mem.entities.candidates()
    assert {(c[1].name, c[2].name) for c in cands} == {
        ("Maria", "Maria Lopez"),
        ("Maria", "Maria Chen"),
    }
    # a bare first name with shared context joins the one entity the context points at
    mem.remember("Maria Chen booked the Berlin gym for Saturday.")
    fid = mem.remember("Maria wants the Berlin gym key back.").fact_id
    chen = mem.entities.page("Maria Chen")
    assert fid in [f.id for f in chen.facts]
    assert mem.entities.find("Maria Lopez").mention_count == 1
    # the user merges; then undoes it
    ev = mem.entities.merge("Maria Lopez", ["Maria"])
    assert {e.name for e in mem.entities.list("person")} == {"Maria Lopez", "Maria Chen"}
    assert mem.entities.find("Maria Lopez").aliases == ("Maria",)
    assert mem.entities.find("Maria Lopez").mention_count == 2
    mem.entities.undo(ev)
    assert {e.name for e in mem.entities.list("person")} == {"Maria Lopez", "Maria Chen", "Maria"}
    assert mem.entities.find("Maria Lopez").mention_count == 1


def test_split_rename_alias_are_audited_and_undoable(mem, keyword_engram):
    a = mem.remember("Sam reviewed the Quartz RFC.").fact_id
    b = mem.remember("Sam from the climbing gym lent me a rope.").fact_id
    new_id, ev = mem.entities.split("Sam", [b], name="Sam Climber")
    assert [f.id for f in mem.entities.page(new_id).facts] == [b]
    assert [f.id for f in mem.entities.page("Sam").facts] == [a]
    mem.entities.undo(ev)
    assert [f.id for f in mem.entities.page("Sam").facts] == [a, b]
    assert Entity.get_or_none(Entity.id == new_id) is None
    ev = mem.entities.rename("Sam", "Samuel Okafor")
    assert mem.entities.find("Sam").name == "Samuel Okafor"  # the old name is an alias
    mem.entities.alias("Samuel Okafor", add=["@sokafor"])
    assert mem.entities.find("@sokafor").aliases == ("Sam", "@sokafor")
    mem.entities.undo(ev)
    assert mem.entities.find("Sam").name == "Sam"
    actions = [
        r[0]
        for r in sqlite3.connect(keyword_engram.config.data_dir / "engram.db").execute(
            "SELECT action FROM audit_event WHERE action LIKE 'entity.%' ORDER BY id"
        )
    ]
    assert actions == [
        "entity.split",
        "entity.undo",
        "entity.rename",
        "entity.alias",
        "entity.undo",
    ]


def test_a_name_the_write_policy_would_change_is_refused(mem):
    mem.remember("Sam reviewed the Quartz RFC.")
    with pytest.raises(Exception, match="write policy"):
        mem.entities.rename("Sam", "sk-ant-api03-" + "A" * 90)
    # an import naming an entity with a secret in it does not store the name
    mem.remember_many(
        [
            NewFact(
                "Token rotated",
                source="import",
                metadata={"entity": {"name": "ghp_" + "a1B2" * 9, "type": "tool"}},
            )
        ]
    )
    assert all("ghp_" not in e.name for e in mem.entities.list())


def test_mcp_memory_jsonl_import_yields_its_entities_and_relations(mem):
    facts, entities, relations = mcp_facts(DATA / "memory.jsonl")
    mem.remember_many(facts, bump=False)
    types = {
        "person": "person",
        "organization": "organisation",
        "project": "project",
        "technology": "tool",
    }
    stored = {(e.name, e.type) for e in mem.entities.list()}
    assert {(n, types[t]) for n, t in entities.items()} <= stored
    got = {
        (r.src.name, r.type, r.dst.name)
        for r in EntityRelation.select().where(EntityRelation.source == "import")
    }
    assert got == relations
    # imported links say so
    imported = {
        e.name for e in Entity.select().join(FactEntity).where(FactEntity.source == "import")
    }
    assert set(entities) <= imported
    # importing the same file again adds nothing
    before = (Entity.select().count(), EntityRelation.select().count())
    mem.remember_many(mcp_facts(DATA / "memory.jsonl")[0], bump=False)
    assert (Entity.select().count(), EntityRelation.select().count()) == before


def test_real_mcp_sample_imports_every_entity(mem, shared_dir):
    path = shared_dir / "formats/samples/mcp-memory/sm-moshi-dmetrics-go/memory.jsonl"
    facts, entities, relations = mcp_facts(path)
    mem.remember_many(facts, bump=False, near_duplicate=None)
    keys = {entity_key(e.name) for e in mem.entities.list()}
    assert {entity_key(n) for n in entities} <= keys
    got = {(r.src.name, r.type, r.dst.name) for r in EntityRelation.select()}
    assert {(entity_key(a), t, entity_key(b)) for a, t, b in relations} <= {
        (entity_key(a), t, entity_key(b)) for a, t, b in got
    }


def test_basic_memory_wiki_relations_and_project_topics(mem):
    mem.remember_many(
        [
            NewFact(
                "Notes on the search rewrite",
                source="import",
                category="proj:atlas",
                metadata={
                    "relation": {
                        "from": "Search Rewrite",
                        "type": "related_to",
                        "to": "Basic Memory",
                    }
                },
            )
        ]
    )
    assert ("atlas", "project") in {(e.name, e.type) for e in mem.entities.list()}
    assert mem.entities.page("Search Rewrite").relations[0][:3] == (
        "Search Rewrite",
        "related_to",
        "Basic Memory",
    )


def test_schema_5_applies_after_3_and_a_later_4_still_applies(tmp_path, monkeypatch):
    """Migrations run by what is missing: a store that got 5 before 4 existed gets 4 later."""
    from models import schema
    from models.db import connect_database

    db = connect_database(str(tmp_path / "s.db"))
    every = {v for v, _ in schema.MIGRATIONS}  # later branches add theirs (8: team store v2)
    assert schema.applied_versions(db) == every
    # a store made on the entities branch before migration 4 (the team store) landed
    db.execute_sql("DELETE FROM schema_version WHERE version = 4")
    assert schema.applied_versions(db) == every - {4}
    ran = []
    later = [(v, (lambda d: ran.append(4)) if v == 4 else fn) for v, fn in schema.MIGRATIONS]
    monkeypatch.setattr(schema, "MIGRATIONS", later)
    assert schema.migrate(db) == schema.CURRENT_VERSION
    assert ran == [4] and schema.applied_versions(db) == every
    db.close()


def test_mention_counts_follow_deletes_and_edits(mem):
    a = mem.remember("Priya Shah reviews every release.").fact_id
    mem.remember("Priya Shah owns the Atlas roadmap.")
    assert mem.entities.find("Priya Shah").mention_count == 2
    mem.edit(a, content="Priya Shah reviews every release on Fridays.")
    assert mem.entities.find("Priya Shah").mention_count == 2
    mem.delete([a])
    assert mem.entities.find("Priya Shah").mention_count == 1


def test_the_mcp_memory_importer_yields_the_same_entities_and_relations(mem, tmp_path):
    """Through the real importer (services/interop/importers/mcp_memory.py), not hand-built facts."""
    import shutil

    src = tmp_path / "memory.jsonl"
    shutil.copy(DATA / "memory.jsonl", src)
    mem.import_path(src, fmt="mcp-memory")
    _facts, entities, relations = mcp_facts(DATA / "memory.jsonl")
    types = {"person": "person", "organization": "organisation", "project": "project",
             "technology": "tool"}  # fmt: skip
    stored = {(e.name, e.type) for e in mem.entities.list()}
    assert {(n, types[t]) for n, t in entities.items()} <= stored
    got = {
        (r.src.name, r.type.replace("_", " "), r.dst.name)
        for r in EntityRelation.select().where(EntityRelation.source == "import")
    }
    assert got == relations

"""Imported memories whose file keeps them (instruction files, Claude Code memory, Hermes, …)
do not expire or decay under Engram's lifecycle; Hermes' own permanence and dates are read."""

from __future__ import annotations

import shutil
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from services.interop.importers.base import ImportFormatError
from services.interop.importers.service import detect_format
from services.lifecycle.config import LifecycleConfig
from services.lifecycle.gc import run_gc
from services.store.facts import FactFilters

NATIVE = Path(__file__).resolve().parent / "fixtures" / "native"
SHORT_TTLS = {"fact": 1, "pref": 1, "rule": 1, "env": 1, "task": 1, "tmp": 1, "proj": 1}


def _statuses(memory) -> dict[str, str]:
    every = FactFilters(status=["active", "archived", "pending", "superseded"])
    return {f.content: f.status for f in memory.list(every, limit=10_000)}


def test_gc_leaves_source_facts_alone_but_expires_its_own(keyword_engram, tmp_path):
    mem = keyword_engram.agent("claude", create=True)
    shutil.copytree(NATIVE / "project", tmp_path / "project")
    rep = mem.import_path(tmp_path / "project")
    imported = _statuses(mem)
    assert len(imported) == rep.added
    mem.remember("The quarterly report is due soon", category="fact")  # Engram's own: TTL applies
    # one imported fact made short-term, so decay would reach it if it could
    fid = next(f.id for f in mem.list() if f.content.startswith("Keep components"))
    f = mem.get(fid)
    mem.edit(fid, actor="test", metadata={**f.metadata, "tier": "short"})
    before = mem.get(fid).importance

    cfg = LifecycleConfig(ttl_days=dict(SHORT_TTLS))
    later = datetime.now() + timedelta(days=400)
    gc = run_gc(mem, now=later, config=cfg)
    st = _statuses(mem)
    assert st["The quarterly report is due soon"] == "archived" and gc.expired == 1
    assert {c: st[c] for c in imported} == imported
    assert set(imported.values()) == {"active"}
    assert mem.get(fid).importance == before


def test_claude_memory_and_hermes_facts_are_marked_source_owned(keyword_engram, hermes_dir):
    mem = keyword_engram.agent("h", create=True)
    mem.import_path(NATIVE / "claude_memory")
    mem.import_path(hermes_dir / "home")
    facts = mem.list(limit=1000)
    assert facts and all(f.metadata.get("lifecycle") == "source" for f in facts)
    assert all(f.metadata.get("source_file") for f in facts)


def test_hermes_permanent_pins_and_updated_dates(keyword_engram, tmp_path):
    mem = keyword_engram.agent("h", create=True)
    home = tmp_path / "hermes" / "memories"
    home.mkdir(parents=True)
    (home / "MEMORY.md").write_text(
        "[ENV · 永久] 工作目录是 ~/work/agent\n§\n"
        "[permanent] Ship builds from the release branch only\n§\n"
        "[FRAMEWORK · Django] Uses Django 5 with HTMX (updated 2026-03-14)\n§\n"
        "A plain entry with no label\n",
        encoding="utf-8",
    )
    mem.import_path(home.parent)
    facts = {f.content: f for f in mem.list(limit=100)}
    assert facts["工作目录是 ~/work/agent"].pinned
    assert facts["Ship builds from the release branch only"].pinned
    django = facts["Uses Django 5 with HTMX (updated 2026-03-14)"]
    assert django.event_date == date(2026, 3, 14) and not django.pinned
    assert not django.category.startswith("proj:")
    assert "framework" in django.tags and "django" in django.tags
    assert not facts["A plain entry with no label"].pinned


def test_a_lone_section_sign_does_not_make_a_document_hermes(tmp_path):
    doc = tmp_path / "notes.md"
    doc.write_text("# Trip notes\n\nPacked the tent.\n§\nBooked the ferry.\n")
    with pytest.raises(ImportFormatError):
        detect_format(doc)
    two = tmp_path / "log.md"
    two.write_text("First entry\n§\nSecond entry\n§\nThird entry\n")
    assert detect_format(two) == "hermes"


def test_reimport_protects_facts_imported_before_sources_were_tracked(keyword_engram, hermes_dir):
    mem = keyword_engram.agent("old", create=True)
    mem.import_path(hermes_dir / "home")
    for f in mem.list(limit=1000):  # what an older Engram stored: no source bookkeeping
        meta = {k: v for k, v in f.metadata.items() if k not in ("lifecycle", "source_file")}
        mem.edit(f.id, actor="test", metadata=meta)
    assert not any(f.metadata.get("lifecycle") for f in mem.list(limit=1000))
    rep = mem.import_path(hermes_dir / "home")
    assert rep.added == 0
    assert all(f.metadata.get("lifecycle") == "source" for f in mem.list(limit=1000))

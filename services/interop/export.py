"""Exports: JSON (facts with everything) and Markdown in the Memory Setup entry format."""

from __future__ import annotations

import json
from pathlib import Path

from services.store.atomic import atomic_write, check_target
from services.store.facts import FactFilters
from services.store.handle import MemoryHandle
from services.store.untrusted import DATA_NOTICE

ENTRY_SEP = "\n§\n"


def memory_md_entry(fact) -> str:
    day = (fact.event_date or fact.created_at.date()).isoformat()
    return f"[{day}][{fact.category}] {fact.content}"


def render_memory_md(facts, title: str = "MEMORY.md") -> str:
    head = (
        f"# {title}\n\n> Durable facts and context. Loaded every session.\n"
        "> Entry format: [YYYY-MM-DD][category] content\n"
        "> Categories: fact, pref, env, proj:<path>, rel:<name>, task, tmp, rule, meta\n"
        f"> {DATA_NOTICE}\n"
    )
    body = ENTRY_SEP.join(memory_md_entry(f) for f in facts)
    return head + ENTRY_SEP + body + "\n" if facts else head


def export_agent(memory: MemoryHandle, out: Path, fmt: str = "json", force: bool = False) -> Path:
    """Write where the user pointed: never over a device, FIFO or socket, over an existing
    file only with ``force``, and never into a directory that does not exist."""
    safe = {"overwrite": force, "create_parent": False}
    check_target(out, **safe)  # before any work: a refusal costs nothing
    facts = memory.list(FactFilters(), order="created_at")
    if fmt == "json":
        data = {
            "agent": memory.slug,
            "kind": memory.info.kind,
            "facts": [f.to_json() for f in facts],
            "episodes": [e.to_json() for e in memory.episodes.list()],
        }
        atomic_write(out, json.dumps(data, ensure_ascii=False, indent=2) + "\n", **safe)
    elif fmt == "markdown":
        active = [f for f in facts if f.status == "active"]
        atomic_write(out, render_memory_md(active), **safe)
    else:
        raise ValueError(f"unknown export format {fmt!r}")
    from services.interop.export_log import record_export  # a forget must reach this copy too

    record_export(memory.engram.config.data_dir, memory.slug, out, fmt)
    return out

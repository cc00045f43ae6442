"""Detect a source's format, parse it, and store it through the ingest pipeline."""

from __future__ import annotations

import importlib
from pathlib import Path

from services.ingest.bulk import BULK_IMPORT_MIN, bulk_store
from services.ingest.pipeline import NewFact
from services.interop.importers.base import ImportFormatError, ImportProblem, ParsedSource
from services.records import ImportReport
from services.store import fact_rows
from services.store.handle import MemoryHandle

_P = "services.interop.importers."
# Order matters: the most specific detector first. Each module has detect(path) and parse(path).
# Claude Code auto memory and Codex memories hold a MEMORY.md too: they go before Hermes.
FORMATS = {
    "gemini-memory": _P + "gemini_memory",
    "claude-subagent-memory": _P + "claude_agent_memory",
    "claude-code-memory": _P + "claude_memory",
    "codex-memory": _P + "codex_memory",
    "mcp-memory": _P + "mcp_memory",
    "openmemory": _P + "openmemory",
    "engram-json": _P + "engram_json",
    "basic-memory": _P + "basic_memory",
    "lynn": _P + "lynn",
    "memory-setup": _P + "memory_setup",
    "instructions": _P + "instructions",
    "agent-rules": _P + "agent_rules",
    "hermes": _P + "hermes",
}
# What users call the files; ``--format`` accepts these too.
ALIASES = {
    "claude-memory": "claude-code-memory",
    "claude-agent-memory": "claude-subagent-memory",
    "claude-md": "instructions",
    "agents-md": "instructions",
    "gemini-md": "instructions",
    "cursor": "instructions",
    "cursor-rules": "instructions",
    "windsurf": "instructions",
    "windsurf-rules": "instructions",
    "aider": "instructions",
    "aider-conventions": "instructions",
    "codex": "codex-memory",
    "cline": "agent-rules",
    "roo": "agent-rules",
    "kilo": "agent-rules",
    "kiro": "agent-rules",
    "continue": "agent-rules",
    "zed": "agent-rules",
    "copilot": "agent-rules",
    "letta": "agent-rules",
    "mem0": "openmemory",
    "engram": "engram-json",
    "engram-markdown": "memory-setup",
}
SUPPORTED = (
    "Claude Code auto memory (claude-code-memory), CLAUDE.md / AGENTS.md / GEMINI.md / Cursor "
    ".mdc and .cursorrules / Windsurf rules / Aider CONVENTIONS.md (instructions), Codex "
    "memories (codex-memory), basic-memory notes (basic-memory), an OpenMemory export zip "
    "(openmemory), an MCP memory server memory.jsonl (mcp-memory), an Engram JSON export "
    "(engram-json), a Memory Setup workspace or Engram Markdown export (memory-setup), Hermes "
    "MEMORY.md/USER.md (hermes), a Lynn memory dir (lynn), Gemini CLI private memory "
    "~/.gemini/tmp/<project>/memory (gemini-memory), Cline / Roo / Kilo / Kiro / Continue / Zed "
    "/ Copilot rules and memory banks, Letta MemFS (agent-rules)"
)
# Facts from these formats are whole-file statements: one the file no longer makes is archived.
TRACKS_REMOVALS = {
    "instructions",
    "claude-code-memory",
    "codex-memory",
    "basic-memory",
    "gemini-memory",
    "agent-rules",
}
# The agent's own memory files: Engram's edits and deletes can be written back (writeback.py).
WRITES_BACK = {
    "instructions",
    "claude-code-memory",
    "codex-memory",
    "hermes",
    "gemini-memory",
    "agent-rules",
}


def format_names() -> list[str]:
    return [*FORMATS, *ALIASES]


def _module(fmt: str):
    fmt = ALIASES.get(fmt, fmt)
    if fmt not in FORMATS:
        raise ImportFormatError(f"unknown format {fmt!r}; known: {', '.join(format_names())}")
    return importlib.import_module(FORMATS[fmt])


def detect_format(path: Path) -> str:
    if not path.exists():
        from services.store.atomic import resolve_target

        resolve_target(path)  # a symlink loop is named as one, not as a missing file
        raise ImportFormatError(f"{path}: no such file or directory")
    from services.interop.importers.notmemory import folder_refusal, refusal

    why = refusal(path)
    if why is None:
        for fmt in FORMATS:
            if _module(fmt).detect(path):
                return fmt
        why = folder_refusal(path)
    if why is not None:
        raise ImportFormatError(
            f"{path}: not imported: {why}. To import it anyway: engram import --format NAME"
        )
    raise ImportFormatError(
        f"{path}: not a format Engram can import. Supported: {SUPPORTED}. If it is one of "
        "these, name it: engram import --format NAME"
    )


def parse_source(path: Path, fmt: str | None = None) -> ParsedSource:
    from services.interop.engram_outputs import is_engram_output

    if path.is_file() and is_engram_output(path):
        raise ImportFormatError(
            f"{path}: Engram wrote this file (its compiled memory for an agent); importing "
            "it would store Engram's own memories a second time. Nothing was imported."
        )
    fmt = ALIASES.get(fmt, fmt) if fmt else detect_format(path)
    return _module(fmt).parse(path)


def import_into(
    memory: MemoryHandle,
    path: Path,
    fmt: str | None = None,
    progress=None,
    cancelled=None,
    parsed: ParsedSource | None = None,
) -> ImportReport:
    parsed = parsed if parsed is not None else parse_source(path, fmt)
    _drop_bad_bytes(parsed)
    report = ImportReport(source=str(path), format=parsed.format, skipped=list(parsed.problems))
    clean_meta = _metadata_cleaner(memory)
    items = [
        NewFact.like(f, source="import", metadata=clean_meta(f.metadata)) for f in parsed.facts
    ]
    # What the user already corrected or deleted in Engram stays corrected/deleted.
    undone = _changed_by_user(memory, items)
    report.duplicates += len(undone)
    items = [it for i, it in enumerate(items) if i not in undone]
    revived: dict[int, int] = {}
    if parsed.format in TRACKS_REMOVALS:
        from services.interop.importers.removals import revive_restated

        revived = revive_restated(memory, items)
        report.revived = len(revived)
        items = [it for i, it in enumerate(items) if i not in revived]
    # Re-importing the same file must change nothing: duplicates are not bumped.
    if len(items) >= BULK_IMPORT_MIN:  # stored at once, embedded and linked behind
        results = bulk_store(memory, items, progress=progress, cancelled=cancelled)
    else:
        results = memory.remember_many(
            items, progress=progress, cancelled=cancelled, actor="import", bump=False
        )
    from services.interop.importers.removals import adopt_duplicates

    adopt_duplicates(memory, items, results)
    if parsed.format in WRITES_BACK:
        from services.interop.writeback import link_imported

        link_imported(memory, [r.fact_id for r in results if r.fact_id is not None])
    if parsed.format in TRACKS_REMOVALS and not (cancelled and cancelled()):
        from services.interop.importers.removals import archive_removed

        keep = {r.fact_id for r in results if r.fact_id is not None} | set(revived.values())
        keep |= {fid for fid in undone.values() if fid is not None}
        report.archived = archive_removed(memory, parsed, keep)
    for item, r in zip(items, results, strict=True):
        if r.status == "refused":  # over a size limit: named, never dropped silently
            report.skipped.append(
                ImportProblem(item.source_ref or str(path), None, r.reason or "refused")
            )
        if r.stored_new:
            report.added += 1
            report.superseded += len(r.superseded)
        elif r.status in ("duplicate", "near-duplicate"):
            report.duplicates += 1
        elif r.status == "blocked":
            report.blocked += 1
        report.redacted += r.redactions
    for e in parsed.episodes:
        if e.session_ref and e.source_ref:  # a rolling per-session summary: update in place
            _, state = memory.upsert_episode(
                e.day, e.summary, e.source_ref, time=e.time, tags=e.tags
            )
            report.episodes_added += state == "added"
            report.episodes_updated += state == "updated"
            report.episodes_duplicates += state == "same"
            continue
        _, created = memory.add_episode(
            e.day, e.summary, time=e.time, tags=e.tags, source_file=e.source_ref
        )
        if created:
            report.episodes_added += 1
        else:
            report.episodes_duplicates += 1
    return report


def _drop_bad_bytes(parsed: ParsedSource) -> None:
    """A statement holding bytes that are not UTF-8 is reported and skipped; the rest of its
    file is imported."""
    from services.interop.importers.base import ImportProblem
    from services.interop.importers.common import has_bad_bytes

    keep = []
    for f in parsed.facts:
        if has_bad_bytes(f.content):
            file, _, line = (f.source_ref or "").rpartition(":")
            parsed.problems.append(
                ImportProblem(
                    file or (f.source_ref or ""),
                    int(line) if line.isdigit() else None,
                    "invalid UTF-8 bytes in the entry",
                )
            )
        else:
            keep.append(f)
    parsed.facts = keep


# Metadata keys that locate or classify (paths, hashes, formats), not memory text.
STRUCTURAL = {
    "source_file",
    "source_format",
    "source_hash",
    "source_lines",
    "lifecycle",
    "date_source",
    "origin",
    "file",
    "agent",
    "type",
    "state",
    "id",
    "tier",
    "always_apply",
    "trigger",
    "patch_file",
    "reason",
}


def _metadata_cleaner(memory: MemoryHandle):
    """Text an importer keeps beside a fact (a frontmatter description, an observation, a
    relation's context) is memory text too: it goes through the write policy like the fact."""
    from services.ingest.policy import Target, policy_for
    from services.interop.importers.common import clean as clean_text

    policy = policy_for(memory)

    def clean(value, key=None):
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                c = clean(v, k)
                if c is not None:
                    out[k] = c
            return out
        if isinstance(value, list):
            return [c for c in (clean(v, key) for v in value) if c is not None]
        if isinstance(value, str) and key not in STRUCTURAL:
            verdict = policy.sanitize(clean_text(value), Target.OTHER)
            return None if verdict.blocked_by else str(verdict.text)
        return value

    return lambda meta: clean(meta or {})


def _changed_by_user(memory: MemoryHandle, items: list[NewFact]) -> dict[int, int | None]:
    """Indexes of items whose text is what a stored fact said before the user edited it (the
    fact still exists) or deleted it, each with the edited fact's id (None: deleted). Without
    this, re-importing the source would bring the old wording back and supersede the user's
    correction."""
    from models.tables import AuditEvent
    from services.ingest.policy import policy_for
    from services.store.text import content_hash

    edited: dict[str, int] = {}
    deleted: set[str] = set()
    rows = (
        AuditEvent.select(
            AuditEvent.action, AuditEvent.fact_id, AuditEvent.before, AuditEvent.after
        )
        .where((AuditEvent.agent == memory.agent_id) & AuditEvent.action.in_(("edit", "delete")))
        .tuples()
    )
    for action, fid, before, after in rows:
        text = (before or {}).get("content")
        if not text or (action == "edit" and (after or {}).get("content") == text):
            continue  # an edit of the status or tags only (an archive) is not a correction
        if action == "delete":
            deleted.add(content_hash(text))
        else:
            edited.setdefault(content_hash(text), fid)
    if not edited and not deleted:
        return {}
    live = fact_rows.not_forgotten(memory.agent_id, edited.values())
    out: dict[int, int | None] = {}
    policy = policy_for(memory)
    for i, it in enumerate(items):
        h = content_hash(policy.sanitize(it.content).text)
        if edited.get(h) in live:
            out[i] = edited[h]
        elif h in deleted:
            out[i] = None
    return out

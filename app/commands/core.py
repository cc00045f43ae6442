"""Core commands: agents, facts, import, recall, export, verify, gui."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli import emit_json
from app.commands.confirm import add_yes, show_preview
from app.commands.help_text import old_spelling
from services.consequences import DELETE_FACT, EMPTY_TRASH

if TYPE_CHECKING:
    from services.engram import Engram


# every kind an importer or `discover` gives an agent, and "generic" for the rest
AGENT_KINDS = (
    "generic", "claude-code", "codex", "gemini", "cursor", "windsurf", "opencode", "aider",
    "copilot", "cline", "roo", "kilo", "kiro", "continue", "zed", "letta", "hermes", "lynn",
    "basic-memory", "mcp-memory", "openmemory", "memory-setup",
)  # fmt: skip


def _float01(s: str) -> float:
    """argparse names a failed type by its function ("invalid _float01 value"): the message
    must be the rule itself."""
    try:
        v = float(s)
    except ValueError:
        v = float("nan")
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"importance must be between 0 and 1 (got {s!r})")
    return v


def register(sub) -> None:
    p = sub.add_parser("agents", help="list agents")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_agents)

    p = sub.add_parser("agent", help="add, rename or remove an agent")
    asub = p.add_subparsers(dest="agent_cmd", required=True)
    a = asub.add_parser("add", help="add an agent")
    a.add_argument("slug", help="short name used on the command line (letters, digits, -)")
    a.add_argument(
        "--kind", default="generic", choices=AGENT_KINDS, metavar="KIND",
        help=f"which agent it is: {', '.join(AGENT_KINDS)} (default generic)",
    )  # fmt: skip
    a.add_argument("--name", help="display name (default: the slug)")
    a.add_argument("--workspace", help="the project folder the agent works in")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.set_defaults(func=cmd_agent_add)
    a = asub.add_parser("rename", help="change an agent's display name")
    a.add_argument("slug")
    a.add_argument("name", help="the new display name")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.set_defaults(func=cmd_agent_rename)
    from app.commands.teamstore import add_agent_commands

    add_agent_commands(asub)
    from app.commands.pause import add_pause_commands

    add_pause_commands(asub)
    a = asub.add_parser("remove", help="move an agent and its memories to the trash")
    a.add_argument("slug")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_agent_remove)
    a = asub.add_parser("restore", help="bring an agent back from the trash")
    a.add_argument("slug")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_agent_restore)
    a = asub.add_parser(
        "trash", help="list removed agents; --empty --yes deletes them for good (no undo)"
    )
    a.add_argument(
        "--empty",
        action="store_true",
        help="delete every agent in the trash for good: every trace (as `forget --all` does), "
        "Engram's hooks for it, then its row (without --yes: only show which)",
    )
    a.add_argument("--agent", help="with --empty: only this agent")
    add_yes(a)
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_agent_trash)

    p = sub.add_parser("remember", help="store a fact")
    p.add_argument("--agent", required=True)
    p.add_argument("text", help="the fact, one sentence in plain words")
    p.add_argument("--category", default="fact")
    p.add_argument("--importance", type=_float01, default=0.5)
    p.add_argument(
        "--pin", action="store_true", help="pin it: always in the compiled memory, never decays"
    )
    p.add_argument("--subject", help="who or what the fact is about (default: found in the text)")
    p.add_argument("--tags", default="", help="comma-separated tags")
    p.add_argument("--create-agent", action="store_true", help="create the agent if missing")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_remember)

    p = sub.add_parser("list", help="list an agent's facts")
    p.add_argument("--agent", required=True)
    p.add_argument("--status")
    p.add_argument("--category")
    p.add_argument(
        "--type", dest="memory_type", help="only this memory type (semantic, episodic, procedural)"
    )
    p.add_argument("--pinned", action="store_true", help="only pinned facts")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument(
        "--sort",
        default="-created_at",
        help="a field to sort by, `-` first for descending (default: -created_at)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="show one fact with its history")
    p.add_argument("id", type=int)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("edit", help="change a fact")
    p.add_argument("id", type=int)
    p.add_argument("--content", help="the corrected text")
    p.add_argument("--category")
    p.add_argument("--importance", type=_float01)
    p.add_argument("--tags", help="comma-separated; replaces the fact's tags ('' clears them)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_edit)

    for name, helptext in (
        ("pin", "pin a fact (never decays, compiled first)"),
        ("unpin", "unpin a fact"),
        ("delete", "delete a fact (preview first; --yes to do it)"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("id", type=int, nargs="+")
        p.add_argument("--json", action="store_true", help="machine-readable output")
        if name == "delete":
            add_yes(p)
        p.set_defaults(func=cmd_pin_unpin_delete, action=name)

    p = sub.add_parser("import", help="import an agent's memory files (format auto-detected)")
    p.add_argument("--agent", required=True)
    p.add_argument("path")
    p.add_argument(
        "--format",
        dest="fmt",
        help="claude-code-memory, instructions (claude-md, agents-md, gemini-md, cursor, "
        "windsurf, aider), codex-memory, basic-memory, openmemory, mcp-memory, engram-json, "
        "memory-setup, hermes, lynn",
    )
    p.add_argument(
        "--kind", default=None, choices=AGENT_KINDS, metavar="KIND",
        help="agent kind when the agent is created (as in `agent add --kind`)",
    )  # fmt: skip
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "writeback",
        help="write Engram's edits and deletes back into the agent's memory files (acts at "
        "once: it reconciles the files with the store rather than erasing; --dry-run shows it)",
    )
    p.add_argument("--agent", required=True)
    p.add_argument(
        "--prefer",
        choices=["engram", "file"],
        help="when both changed a line: keep Engram's or the file's",
    )
    p.add_argument("--dry-run", action="store_true", help="show what would be written")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_writeback)

    p = sub.add_parser("discover", help="find the memory files the agents on this machine keep")
    p.add_argument("--json", action="store_true")
    p.add_argument("--import", dest="do_import", action="store_true", help="import what is new")
    p.add_argument("--home", help=argparse.SUPPRESS)
    p.add_argument("--project", help="project folder to look in (default: the current one)")
    p.add_argument(
        "--split",
        action="store_true",
        help="one agent per agent kind in a repository (default: one agent per repository)",
    )
    p.set_defaults(func=cmd_discover)

    p = sub.add_parser("recall", help="hybrid search of an agent's memory")
    p.add_argument("--agent")
    p.add_argument("query")
    p.add_argument(
        "-n",
        "--limit",
        dest="k",
        type=int,
        default=10,
        metavar="N",
        help="how many results (default 10)",
    )
    old_spelling(p, "-k", dest="k", type=int)
    p.add_argument(
        "--mode",
        choices=["hybrid", "keyword", "semantic"],
        default="hybrid",
        help="hybrid: words and meaning (default); keyword: exact words only, no model "
        "loaded; semantic: meaning only",
    )
    old_spelling(p, "--keyword-only", dest="mode", action="store_const", const="keyword")
    p.add_argument("--category")
    p.add_argument("--status")
    p.add_argument(
        "--scope",
        choices=["all", "facts", "episodes"],
        default="all",
        help="facts, episodes (the sessions it is about) or both (default)",
    )
    old_spelling(p, "--facts-only", dest="scope", action="store_const", const="facts")
    old_spelling(p, "--episodes-only", dest="scope", action="store_const", const="episodes")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser("export", help="export an agent's facts")
    p.add_argument("--agent", required=True)
    p.add_argument(
        "--format", choices=["json", "markdown"], default="json", help="file format (default: json)"
    )
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument("out")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("verify", help="check that SQLite, FTS and Chroma agree")
    p.add_argument(
        "--repair",
        action="store_true",
        help="rebuild what is out of step (full text, vectors) from the rows",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("model", help="embedding model status or install")
    p.add_argument(
        "action",
        choices=["status", "install", "fill"],
        help="status: is the model there and sound; install: put it in place; fill: embed the "
        "vectors owed by facts stored without the model (a bulk import starts it in the "
        "background)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_model)

    p = sub.add_parser("gui", help="start the desktop app")
    p.set_defaults(func=cmd_gui)


def cmd_agents(args, ctx):
    agents = ctx.engram(semantic=False).agents()
    if args.json:
        emit_json(
            [
                {
                    "slug": a.slug,
                    "name": a.name,
                    "kind": a.kind,
                    "workspace": a.workspace,
                    "facts": a.fact_count,
                }
                for a in agents
            ]
        )
    else:
        for a in agents:
            print(f"{a.slug}\t{a.kind}\t{a.fact_count} facts\t{a.workspace or ''}")


def cmd_agent_add(args, ctx):
    ws = str(Path(args.workspace).expanduser().resolve()) if args.workspace else None
    a = ctx.engram(semantic=False).add_agent(
        args.slug, name=args.name, kind=args.kind, workspace=ws
    )
    if getattr(args, "json", False):
        emit_json({"slug": a.slug, "name": a.name, "kind": a.kind, "workspace": a.workspace})
    else:
        print(a.slug)


def cmd_agent_rename(args, ctx):
    ctx.engram(semantic=False).update_agent(args.slug, name=args.name)
    if getattr(args, "json", False):
        emit_json({"slug": args.slug, "name": args.name})


def cmd_agent_remove(args, ctx):
    t = ctx.engram(semantic=False).trash_agent(args.slug)
    if args.json:
        emit_json(
            {"trashed": t.slug, "facts": t.fact_count, "undo": f"engram agent restore {t.slug}"}
        )
        return
    print(
        f"Moved {t.slug} and its {t.fact_count:,} facts to the trash. "
        f"`engram agent restore {t.slug}` brings it back."
    )


def cmd_agent_restore(args, ctx):
    a = ctx.engram(semantic=False).restore_agent(args.slug)
    if args.json:
        emit_json({"restored": a.slug})
        return
    print(f"Restored {a.slug} with all its memories.")


def cmd_agent_trash(args, ctx):
    if args.empty and not args.yes:
        return _preview_empty_trash(args, ctx)
    if args.empty:
        gone = ctx.engram().empty_trash(args.agent)
        if not gone:
            print("The trash is empty.")
        for d in gone:
            print(f"Deleted for good: {d.slug} (forget receipt {d.receipt})")
            for path in d.unwired:
                print(f"  removed Engram's integration for {d.slug} from {path}")
            for n in d.notes:
                print(f"  note: {n}")
            if d.remaining:
                print(f"  still found in {d.remaining} place(s): see `engram receipts`")
        return 1 if any(d.remaining for d in gone) else 0
    items = ctx.engram(semantic=False).trashed_agents()
    if args.json:
        emit_json([t.__dict__ for t in items])
        return
    if not items:
        print("The trash is empty.")
    for t in items:
        print(f"{t.slug}\t{t.fact_count} facts\tremoved {t.trashed_at} UTC")


def _preview_empty_trash(args, ctx) -> int:
    items = [t for t in ctx.engram(semantic=False).trashed_agents() if args.agent in (None, t.slug)]
    lines = [f"Would delete for good: {t.slug} and its {t.fact_count:,} facts" for t in items]
    data = {"agents": [t.__dict__ for t in items]}
    if not items:
        lines = ["The trash is empty: nothing would be deleted."]
    return show_preview(args, lines, data, "delete them for good", EMPTY_TRASH)


def cmd_remember(args, ctx):
    # the model loads here: a paraphrase merges, a changed value supersedes with a note and an
    # antonym waits in review only when the new text is compared with its nearest neighbours,
    # and a write that skipped those checks would be the silent duplicate or contradiction this
    # command must never make. The fast path is the resident Engram: while `engram serve` or the
    # app runs, the CLI hands this command to it (app/daemon_client.py) and it answers in
    # milliseconds with every check. A store without the model still stores (exact duplicates
    # merge) and owes the vector (services/vectors/backlog.py).
    eng = ctx.engram()
    mem = eng.agent(args.agent, create=args.create_agent)
    tags = [t.strip() for t in args.tags.split(",") if t.strip()]
    r = mem.remember(
        args.text,
        category=args.category,
        importance=args.importance,
        pinned=args.pin,
        source="cli",
        subject=args.subject,
        tags=tags,
    )
    if args.json:
        emit_json(
            {
                "status": r.status,
                "id": r.fact_id,
                "superseded": r.superseded,
                "conflicts_with": r.conflicts_with,
                "redactions": r.redactions,
                "reason": r.reason,
            }
        )
    elif r.status == "blocked":
        print(f"engram: not stored: {r.reason}", file=sys.stderr)
        return 3
    elif r.status == "empty":
        print("engram: nothing to remember (empty text)", file=sys.stderr)
        return 1
    elif r.status == "refused":
        print(f"engram: not stored: {r.reason}", file=sys.stderr)
        return 1
    else:
        print(r.fact_id)
        if r.status == "superseded" or r.superseded:
            ids = ", ".join(map(str, r.superseded))
            print(f"({r.reason or f'a correction: supersedes fact {ids}'})", file=sys.stderr)
        elif r.status == "conflict":
            print(
                f"(contradicts fact {r.conflicts_with}: both kept, see `engram review`)",
                file=sys.stderr,
            )
        elif r.status != "added":
            print(f"({r.status} of fact {r.fact_id})", file=sys.stderr)
        if r.redactions:
            print(f"({r.redactions} secret(s) redacted)", file=sys.stderr)


def _status(value: str | None) -> str | None:
    """``all`` means every status; an unknown one is an error, not an empty list."""
    from models.tables import FACT_STATUSES
    from services.errors import InvalidInput

    if value is None or value == "all":
        return None
    if value not in FACT_STATUSES:
        raise InvalidInput(
            f"unknown status {value!r}: use one of {', '.join((*FACT_STATUSES, 'all'))}"
        )
    return value


def _filters(args):
    from services.store.facts import FactFilters

    return FactFilters(
        status=_status(getattr(args, "status", None)),
        category=args.category,
        memory_type=getattr(args, "memory_type", None),
        pinned=True if getattr(args, "pinned", False) else None,
    )


def cmd_list(args, ctx):
    mem = ctx.engram(semantic=False).agent(args.agent)
    facts = mem.list(_filters(args), order=args.sort, limit=args.limit)
    if args.json:
        emit_json([f.to_json() for f in facts])
    else:
        for f in facts:
            pin = "*" if f.pinned else " "
            print(f"{f.id:>6} {pin} [{f.category}] {f.status:<10} {f.content}")


def cmd_show(args, ctx):
    eng = ctx.engram(semantic=False)
    mem = eng.agent(eng.locate_fact(args.id))
    f = mem.get(args.id)
    hist = mem.facts.history(args.id)
    from services.teamstore import audit_roles

    roles = audit_roles(eng.db, [h["id"] for h in hist])
    for h in hist:  # a team store: the database role that wrote it, stamped by the server
        if h["id"] in roles:
            h["db_role"] = roles[h["id"]]
    if args.json:
        emit_json({**f.to_json(), "agent": mem.slug, "history": hist})
    else:
        print(
            f"#{f.id} ({mem.slug}) [{f.category}/{f.memory_type}] {f.status}"
            f"{' pinned' if f.pinned else ''} importance={f.importance:.2f}"
        )
        print(f.content)
        print(
            f"created {f.created_at}  accessed {f.access_count}x  source {f.source} {f.source_ref or ''}"
        )
        prov = f.provenance or {}
        if prov.get("created_by"):
            print(f"written by {prov['created_by']} from {prov.get('created_from') or 'unknown'}")
        for h in hist:
            who = f" ({h['by_user']}, {h['origin'] or 'unknown'})" if h.get("by_user") else ""
            if h.get("db_role"):
                who += f" [database role {h['db_role']}]"
            print(f"  {h['created_at']} {h['action']} by {h['actor']}{who} {h['reason'] or ''}")


def _owner(ctx, fact_id: int, semantic: bool = True):
    eng = ctx.engram(semantic=semantic)
    return eng.agent(eng.locate_fact(fact_id))


def _tag_list(raw: str | None) -> list[str] | None:
    return None if raw is None else [t.strip() for t in raw.split(",") if t.strip()]


def cmd_edit(args, ctx):
    changes = {
        k: v
        for k, v in (
            ("content", args.content),
            ("category", args.category),
            ("importance", args.importance),
            ("tags", _tag_list(args.tags)),
        )
        if v is not None
    }
    if not changes:
        raise ValueError("nothing to change: give --content, --category, --importance or --tags")
    # only new words need the model (a new vector); importance, category and tags do not
    f = _owner(ctx, args.id, semantic=args.content is not None).edit(args.id, **changes)
    if getattr(args, "json", False):
        emit_json(f.to_json())
    else:
        print(f.id)


def cmd_pin_unpin_delete(args, ctx):
    as_json = getattr(args, "json", False)
    if args.action == "delete" and not args.yes:
        return _preview_delete(args, ctx)
    for fid in args.id:
        mem = _owner(ctx, fid, semantic=False)  # a deleted fact's vector is owed (backlog)
        if args.action == "delete":
            mem.delete(fid)
        else:
            getattr(mem, args.action)(fid)
        if not as_json:
            print(fid)
    if as_json:
        emit_json({"action": args.action, "ids": args.id})


def _preview_delete(args, ctx) -> int:
    facts = [_owner(ctx, fid, semantic=False).facts.get(fid) for fid in args.id]
    lines = [f"Would delete fact {f.id}: {f.content}" for f in facts]
    data = {"action": "delete", "ids": args.id}
    return show_preview(args, lines, data, "delete them", DELETE_FACT)


def cmd_import(args, ctx):
    from services.ingest.bulk import BULK_IMPORT_MIN
    from services.interop.importers.service import import_into, parse_source

    path = Path(args.path).expanduser()
    parsed = parse_source(path, args.fmt)
    # a large import is stored without the model (keyword-searchable at once) and embedded
    # behind by a child; a small one checks near-duplicates with it, as `remember` does
    bulk = len(parsed.facts) >= BULK_IMPORT_MIN
    eng = ctx.engram(semantic=not bulk)
    existed = args.agent in {a.slug for a in eng.agents(with_counts=False)}
    mem = eng.agent(args.agent, create=True, kind=args.kind or "generic")
    from app.commands.progress import interruptible, progress

    try:
        with interruptible() as stop, progress(f"import {path.name}", args) as shown:
            rep = import_into(mem, path, progress=shown, cancelled=stop, parsed=parsed)
    except Exception:
        if not existed and mem.facts.count() == 0:
            eng.remove_agent(args.agent)  # a failed first import leaves no empty agent behind
        raise
    taken = rep.added + rep.duplicates + rep.blocked + rep.episodes_added + rep.episodes_duplicates
    failed = bool(rep.skipped) and taken == 0
    if failed and not existed:
        eng.remove_agent(args.agent)
    behind = _embed_behind(eng) if rep.added else None
    if stop.requested:  # every batch is one transaction: what was stored is whole
        if not existed and mem.facts.count() == 0:
            eng.remove_agent(args.agent)
        print(
            f"engram: interrupted: kept {rep.added} new fact(s) stored before Ctrl+C; "
            "run the same import again to add the rest (what is stored is skipped)",
            file=sys.stderr,
        )
        if args.json:
            emit_json(rep.to_json())
        return 130
    if args.json:
        emit_json(rep.to_json())
        return 1 if failed else 0
    print(
        f"imported {rep.source} ({rep.format}): added {rep.added}, duplicates "
        f"{rep.duplicates}, superseded {rep.superseded}, blocked {rep.blocked}, "
        f"episodes {rep.episodes_added} (+{rep.episodes_duplicates} already there"
        f"{f', {rep.episodes_updated} updated' if rep.episodes_updated else ''}), "
        f"skipped {len(rep.skipped)}, secrets redacted {rep.redacted}"
        + (f", archived {rep.archived} (no longer in the file)" if rep.archived else "")
        + (f", revived {rep.revived}" if rep.revived else "")
    )
    if behind:
        print(behind)
    for p in rep.skipped:
        loc = f"{p.file}:{p.line}" if p.line else p.file
        print(f"  skipped {loc}: {p.reason}")
    if failed:
        print(
            f"engram: nothing imported from {rep.source}: {rep.skipped[0].reason}", file=sys.stderr
        )
        return 1
    return 0


def _embed_behind(eng) -> str | None:
    """Vectors owed (a bulk import, or a store opened without the model): a detached child
    (`engram model fill`) embeds them now, logging its progress to the store's log, so the
    command returns as soon as the rows are in. None when nothing is owed."""
    import subprocess

    from services.integrations.hooks_install import engram_argv
    from services.vectors import backlog

    data_dir = Path(eng.config.data_dir)
    if eng.index is not None or not backlog.pending(data_dir):
        return None
    words = engram_argv(data_dir) + ["model", "fill"]
    try:
        proc = subprocess.Popen(
            words,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives this command and its terminal
        )
    except OSError as exc:
        return (
            f"vectors: not started ({exc}); keyword search finds the facts now, "
            "`engram model fill` embeds them"
        )
    return (
        f"vectors: embedding in the background (pid {proc.pid}); keyword search finds the "
        "facts now, semantic search as they are embedded (`engram log` shows progress)"
    )


def cmd_discover(args, ctx):
    from services.interop.discover import discover_sources, import_discovered

    eng = ctx.engram()
    home = Path(args.home).expanduser() if args.home else None
    project = Path(args.project).expanduser() if args.project else None
    found = discover_sources(
        home=home, project=project, engram=eng, split=getattr(args, "split", False)
    )
    done = []
    if args.do_import:
        from app.commands.progress import progress

        with progress("import discovered", args) as shown:
            done = import_discovered(eng, found, progress=shown)
    if args.json:
        emit_json(
            {
                "sources": [s.to_json() for s in found],
                "imported": [
                    {"path": str(s.path), "agent": s.suggested_agent, "error": err}
                    | (rep.to_json() if rep else {})
                    for s, rep, err in done
                ],
            }
        )
        return 1 if any(err for _, _, err in done) else 0
    if not found:
        print("no agent memory files found")
    for s in found:
        if s.export:  # memory only the vendor's service keeps
            print(f"{s.label}: {s.export}")
            continue
        state = (
            f"imported by {s.imported_by}"
            if s.imported_by
            else ("transcripts, not imported here" if not s.importable else "not imported")
        )
        unit = s.unit
        print(
            f"{s.label}: {s.path} · {s.entries} {unit} · {state}"
            + (f" · suggested agent {s.suggested_agent}" if not s.imported_by else "")
        )
    for s, rep, err in done:
        if err:
            print(f"  failed {s.path}: {err}", file=sys.stderr)
        else:
            print(
                f"  imported {s.path} into {s.suggested_agent}: added {rep.added}, "
                f"duplicates {rep.duplicates}, skipped {len(rep.skipped)}"
            )
    return 1 if any(err for _, _, err in done) else 0


def cmd_writeback(args, ctx):
    from services.interop.writeback import StoreBehindLinks, write_back

    try:
        rep = write_back(ctx.engram().agent(args.agent), prefer=args.prefer, dry_run=args.dry_run)
    except StoreBehindLinks as exc:  # a restored backup: refused like a conflict, nothing written
        return _refused(args, exc)
    if args.json:
        emit_json(rep.to_json())
        return 4 if rep.conflicts else 0
    for c in rep.changes:
        print(c)
    for conflict in rep.conflicts:
        print(f"CONFLICT {conflict.file} fact {conflict.fact_id}: {conflict.reason}")
    print(
        f"written back {rep.pushed}, conflicts {len(rep.conflicts)}"
        + (" (dry run: nothing written)" if args.dry_run else "")
    )
    return 4 if rep.conflicts else 0


def _refused(args, exc) -> int:
    """A write-back the store refused (it is older than the links): exit 4, like a conflict."""
    if getattr(args, "json", False):
        emit_json({"refused": str(exc), "pushed": 0, "conflicts": [], "changes": []})
    print(f"engram: refused: {exc}", file=sys.stderr)
    return 4


def cmd_recall(args, ctx):
    eng = ctx.engram(semantic=False)
    if args.agent:
        eng.agent(args.agent)  # a mistyped agent is said before the model loads
    if args.mode != "keyword":  # keyword: no model, no Chroma
        eng.load_semantic()
    if eng.semantic_error and args.mode != "keyword":
        print(f"engram: {eng.semantic_error}", file=sys.stderr)
    mode = args.mode if eng.semantic_enabled else "keyword"
    filt = _filters(args)
    scope = getattr(args, "scope", "all")
    episodes = _recall_episodes(eng, args) if scope != "facts" else []
    if scope == "episodes":
        hits = []
    elif args.agent:
        hits = [
            (args.agent, h)
            for h in eng.agent(args.agent).search(args.query, k=args.k, filters=filt, mode=mode)
        ]
    else:
        hits = eng.search_all(args.query, k=args.k, filters=filt, mode=mode)
    if args.json:
        emit_json(
            [{**h.to_json(), "agent": slug} for slug, h in hits]
            + [{**e.to_json(), "agent": slug} for slug, e in episodes]
        )
    else:
        for slug, h in hits:
            sig = " ".join(f"{k}={v:.3f}" for k, v in h.signals.items() if v)
            print(f"{h.fact.id:>6} {h.score:.3f} [{slug}] {h.fact.content}\n         {sig}")
        for slug, e in episodes:
            ep = e.episode
            print(f"  ep{ep.id:<4} {e.score:.3f} [{slug}] {ep.day} {ep.time or ''}  {ep.summary}")


def _recall_episodes(eng: Engram, args) -> list:
    slugs = [args.agent] if args.agent else [a.slug for a in eng.agents(with_counts=False)]
    out = []
    for slug in slugs:
        out += [(slug, e) for e in eng.agent(slug).recall_episodes(args.query, k=min(args.k, 5))]
    return sorted(out, key=lambda se: -se[1].score)[: args.k]


def cmd_export(args, ctx):
    from services.interop.export import export_agent

    mem = ctx.engram(semantic=False).agent(args.agent)
    path = export_agent(mem, Path(args.out).expanduser(), args.format, force=args.force)
    if args.json:
        emit_json({"path": str(path), "format": args.format})
        return
    print(path)


def cmd_verify(args, ctx):
    rep = ctx.engram().verify(repair=args.repair)
    if args.json:
        emit_json(rep.to_json())
    else:
        for m in rep.messages:
            print(m)
        for c in rep.agents:
            print(
                f"{c.slug}: {c.facts} facts, {c.vectors} vectors, missing "
                f"{len(c.missing_vectors)}, orphan {len(c.orphan_vectors)}, stale "
                f"{len(c.stale_vectors)}"
            )
        if rep.repaired:
            print(f"repaired: {rep.repaired}")
        print(
            "ok" if rep.ok else ("repaired" if args.repair else "inconsistent (run with --repair)")
        )
    if not rep.ok and not args.repair:
        return 1
    return 0


def cmd_model(args, ctx):
    from services.vectors import model_files

    if args.action == "fill":
        return _fill(ctx)
    as_json = getattr(args, "json", False)
    installed = model_files.install_tokenizer() if args.action == "install" else None
    if installed is not None and not as_json:
        print(installed)
    files = model_files.locate_model()
    if as_json:
        emit_json(
            {
                "model": model_files.MODEL_ID,
                "onnx": str(files.onnx),
                "tokenizer": str(files.tokenizer),
                "hashes_ok": True,
            }
        )
    else:
        print(f"model {model_files.MODEL_ID}: {files.onnx} + {files.tokenizer} (hashes ok)")


def _fill(ctx) -> int:
    import logging
    import time

    from services.vectors import backlog

    log = logging.getLogger("engram.fill")
    eng = ctx.engram()
    last = [0.0]

    def shown(done: int, total: int) -> None:
        if done == total or time.monotonic() - last[0] > 5:  # a line every few seconds
            last[0] = time.monotonic()
            log.info("embedding owed vectors: %d of %d", done, total)

    n = backlog.drain(eng, progress=shown)
    print(f"embedded {n} owed vector(s)")
    return 0


def cmd_gui(args, ctx):
    from app.main import main as gui_main

    argv = ["engram-gui"] + (["--data-dir", args.data_dir] if args.data_dir else [])
    return gui_main(argv)

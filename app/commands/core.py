"""Core commands: agents, facts, import, recall, export, verify, gui."""

from __future__ import annotations

import sys
from pathlib import Path

from app.cli import emit_json


def _float01(s: str) -> float:
    v = float(s)
    if not 0.0 <= v <= 1.0:
        raise ValueError("importance must be between 0 and 1")
    return v


def register(sub) -> None:
    p = sub.add_parser("agents", help="list agents")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_agents)

    p = sub.add_parser("agent", help="add, rename or remove an agent")
    asub = p.add_subparsers(dest="agent_cmd", required=True)
    a = asub.add_parser("add")
    a.add_argument("slug")
    a.add_argument("--kind", default="generic")
    a.add_argument("--name")
    a.add_argument("--workspace")
    a.set_defaults(func=cmd_agent_add)
    a = asub.add_parser("rename")
    a.add_argument("slug")
    a.add_argument("name")
    a.set_defaults(func=cmd_agent_rename)

    p = sub.add_parser("remember", help="store a fact")
    p.add_argument("--agent", required=True)
    p.add_argument("text")
    p.add_argument("--category", default="fact")
    p.add_argument("--importance", type=_float01, default=0.5)
    p.add_argument("--pin", action="store_true")
    p.add_argument("--subject")
    p.add_argument("--tags", default="")
    p.add_argument("--create-agent", action="store_true", help="create the agent if missing")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_remember)

    p = sub.add_parser("list", help="list an agent's facts")
    p.add_argument("--agent", required=True)
    p.add_argument("--status")
    p.add_argument("--category")
    p.add_argument("--type", dest="memory_type")
    p.add_argument("--pinned", action="store_true")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--sort", default="-created_at")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="show one fact with its history")
    p.add_argument("id", type=int)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("edit", help="change a fact")
    p.add_argument("id", type=int)
    p.add_argument("--content")
    p.add_argument("--category")
    p.add_argument("--importance", type=_float01)
    p.set_defaults(func=cmd_edit)

    for name, helptext in (
        ("pin", "pin a fact (never decays, compiled first)"),
        ("unpin", "unpin a fact"),
        ("delete", "delete a fact"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("id", type=int, nargs="+")
        p.set_defaults(func=cmd_pin_unpin_delete, action=name)

    p = sub.add_parser("import", help="import an agent's memory files (format auto-detected)")
    p.add_argument("--agent", required=True)
    p.add_argument("path")
    p.add_argument("--format", dest="fmt")
    p.add_argument("--kind", default=None, help="agent kind when the agent is created")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("recall", help="hybrid search of an agent's memory")
    p.add_argument("--agent")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--mode", choices=["hybrid", "keyword", "semantic"], default="hybrid")
    p.add_argument("--category")
    p.add_argument("--status")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser("export", help="export an agent's facts")
    p.add_argument("--agent", required=True)
    p.add_argument("--format", choices=["json", "markdown"], default="json")
    p.add_argument("out")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("verify", help="check that SQLite, FTS and Chroma agree")
    p.add_argument("--repair", action="store_true")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("model", help="embedding model status or install")
    p.add_argument("action", choices=["status", "install"])
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
    print(a.slug)


def cmd_agent_rename(args, ctx):
    ctx.engram(semantic=False).update_agent(args.slug, name=args.name)


def cmd_remember(args, ctx):
    mem = ctx.engram().agent(args.agent, create=args.create_agent)
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
    else:
        print(r.fact_id)
        if r.status != "added":
            print(f"({r.status} of fact {r.fact_id})", file=sys.stderr)
        if r.redactions:
            print(f"({r.redactions} secret(s) redacted)", file=sys.stderr)


def _filters(args):
    from services.store.facts import FactFilters

    return FactFilters(
        status=getattr(args, "status", None),
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
            print(f"  {h['created_at']} {h['action']} by {h['actor']}{who} {h['reason'] or ''}")


def _owner(ctx, fact_id: int, semantic: bool = True):
    eng = ctx.engram(semantic=semantic)
    return eng.agent(eng.locate_fact(fact_id))


def cmd_edit(args, ctx):
    changes = {
        k: v
        for k, v in (
            ("content", args.content),
            ("category", args.category),
            ("importance", args.importance),
        )
        if v is not None
    }
    if not changes:
        raise ValueError("nothing to change: give --content, --category or --importance")
    f = _owner(ctx, args.id).edit(args.id, **changes)
    print(f.id)


def cmd_pin_unpin_delete(args, ctx):
    for fid in args.id:
        mem = _owner(ctx, fid)
        if args.action == "delete":
            mem.delete(fid)
        else:
            getattr(mem, args.action)(fid)
        print(fid)


def cmd_import(args, ctx):
    eng = ctx.engram()
    existed = args.agent in {a.slug for a in eng.agents(with_counts=False)}
    mem = eng.agent(args.agent, create=True, kind=args.kind or "generic")
    try:
        rep = mem.import_path(Path(args.path).expanduser(), fmt=args.fmt)
    except Exception:
        if not existed and mem.facts.count() == 0:
            eng.remove_agent(args.agent)  # a failed first import leaves no empty agent behind
        raise
    taken = rep.added + rep.duplicates + rep.blocked + rep.episodes_added + rep.episodes_duplicates
    failed = bool(rep.skipped) and taken == 0
    if failed and not existed:
        eng.remove_agent(args.agent)
    if args.json:
        emit_json(rep.to_json())
        return 1 if failed else 0
    print(
        f"imported {rep.source} ({rep.format}): added {rep.added}, duplicates "
        f"{rep.duplicates}, superseded {rep.superseded}, blocked {rep.blocked}, "
        f"episodes {rep.episodes_added} (+{rep.episodes_duplicates} already there"
        f"{f', {rep.episodes_updated} updated' if rep.episodes_updated else ''}), "
        f"skipped {len(rep.skipped)}, secrets redacted {rep.redacted}"
    )
    for p in rep.skipped:
        loc = f"{p.file}:{p.line}" if p.line else p.file
        print(f"  skipped {loc}: {p.reason}")
    if failed:
        print(
            f"engram: nothing imported from {rep.source}: {rep.skipped[0].reason}", file=sys.stderr
        )
        return 1
    return 0


def cmd_recall(args, ctx):
    eng = ctx.engram()
    if eng.semantic_error and args.mode != "keyword":
        print(f"engram: {eng.semantic_error}", file=sys.stderr)
    mode = args.mode if eng.semantic_enabled else "keyword"
    filt = _filters(args)
    if args.agent:
        hits = [
            (args.agent, h)
            for h in eng.agent(args.agent).search(args.query, k=args.k, filters=filt, mode=mode)
        ]
    else:
        hits = eng.search_all(args.query, k=args.k, filters=filt, mode=mode)
    if args.json:
        emit_json([{**h.to_json(), "agent": slug} for slug, h in hits])
    else:
        for slug, h in hits:
            sig = " ".join(f"{k}={v:.3f}" for k, v in h.signals.items() if v)
            print(f"{h.fact.id:>6} {h.score:.3f} [{slug}] {h.fact.content}\n         {sig}")


def cmd_export(args, ctx):
    from services.interop.export import export_agent

    mem = ctx.engram(semantic=False).agent(args.agent)
    path = export_agent(mem, Path(args.out).expanduser(), args.format)
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

    if args.action == "install":
        print(model_files.install_tokenizer())
    files = model_files.locate_model()
    print(f"model {model_files.MODEL_ID}: {files.onnx} + {files.tokenizer} (hashes ok)")


def cmd_gui(args, ctx):
    from app.main import main as gui_main

    argv = ["engram-gui"] + (["--data-dir", args.data_dir] if args.data_dir else [])
    return gui_main(argv)

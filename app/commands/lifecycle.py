"""Lifecycle commands: ingest-session, compile, gc."""

from __future__ import annotations

import argparse
from datetime import date, datetime

from app.cli import emit_json


def _day(s: str) -> datetime:
    try:
        d = date.fromisoformat(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r} is not a date like 2026-05-01") from None
    return datetime(d.year, d.month, d.day, 12, 0, 0)


def register(sub) -> None:
    p = sub.add_parser("restore", help="bring archived facts back (what GC archived)")
    p.add_argument("ids", nargs="+", type=int, metavar="ID")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser(
        "ingest-session",
        help="read an agent session transcript: episodes "
        "every N turns and facts the user stated (once per session id)",
    )
    p.add_argument("--agent", required=True)
    p.add_argument("file")
    p.add_argument("--session-id", help="default: the id in the transcript, else the file name")
    p.add_argument("--format", dest="fmt", choices=("claude-code", "jsonl"))
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest_session)

    p = sub.add_parser("compile", help="compile today/week/longterm/memory.md within budgets")
    p.add_argument("--agent", required=True)
    p.add_argument("--diff", action="store_true", help="also print what changed in memory.md")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("gc", help="decay, expire, consolidate, drain and prune memories")
    p.add_argument("--agent", required=True)
    p.add_argument("--now", type=_day, help="simulate another day (YYYY-MM-DD)")
    p.add_argument("--dry-run", action="store_true", help="show what would change")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_gc)


def cmd_ingest_session(args, ctx) -> int:
    from services.capture.sessions import ingest_session

    memory = ctx.engram().agent(args.agent, create=True)
    r = ingest_session(memory, args.file, session_id=args.session_id, fmt=args.fmt)
    if args.json:
        emit_json(r.to_json())
        return 0
    if r.already_processed:
        print(f"session {r.session_id} was already processed; nothing added")
        return 0
    print(
        f"session {r.session_id}: {r.turns} turns, {r.episodes_added} episodes added, "
        f"{r.facts_added} facts added"
        + (f" ({r.facts_pending} pending)" if r.facts_pending else "")
    )
    for w in r.warnings:
        print(f"note: {w}")
    return 0


def cmd_compile(args, ctx) -> int:
    from services.lifecycle.compile import CompileService, layer_diff

    memory = ctx.engram().agent(args.agent)
    result = CompileService(memory).compile()
    if args.json:
        data = result.to_json()
        if args.diff:
            data["diff"] = layer_diff(memory, "memory")
        emit_json(data)
        return 0
    print(result.layers["memory"].path)
    if args.diff:
        print(layer_diff(memory, "memory") or "(no change)", end="")
    for w in result.warnings:
        print(f"note: {w}")
    return 0


def cmd_gc(args, ctx) -> int:
    from services.lifecycle.gc import run_gc

    memory = ctx.engram(semantic=False).agent(args.agent)
    r = run_gc(memory, now=args.now, dry_run=args.dry_run)
    if args.json:
        emit_json(r.to_json())
        return 0
    head = "would change (dry run)" if r.dry_run else "done"
    print(
        f"gc {head}: {r.decayed} decayed, {r.expired} expired, {r.archived} archived, "
        f"{r.evicted} evicted, {r.promoted} promoted, {r.drained} drained, "
        f"{r.episodes_pruned} episodes and {r.sessions_pruned} session logs pruned"
    )
    for a in r.actions:
        if a.kind != "decay":
            print(f"  {a.kind} {a.target} {a.fact_id if a.fact_id is not None else ''}: {a.reason}")
    return 0


def cmd_restore(args, ctx) -> int:
    from services.lifecycle.gc import restore_archived

    engram = ctx.engram(semantic=False)
    by_agent: dict[str, list[int]] = {}
    for fid in args.ids:
        by_agent.setdefault(engram.locate_fact(fid), []).append(fid)
    done: list[int] = []
    for slug, ids in by_agent.items():
        done += restore_archived(engram.agent(slug), ids)
    skipped = [i for i in args.ids if i not in done]
    if args.json:
        emit_json({"restored": done, "not_archived": skipped})
        return 0
    print(f"restored {len(done)} fact(s)" + (f": {', '.join(map(str, done))}" if done else ""))
    if skipped:
        print(f"not archived (left as they are): {', '.join(map(str, skipped))}")
    return 0 if done or not skipped else 1

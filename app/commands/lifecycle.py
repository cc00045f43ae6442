"""Lifecycle commands: ingest-session, review, episodes, compile, gc."""

from __future__ import annotations

import argparse
from datetime import date, datetime
from typing import TYPE_CHECKING

from app.cli import emit_json
from app.commands.confirm import add_yes, show_preview
from app.commands.help_text import flag, with_json
from services.consequences import REJECT

if TYPE_CHECKING:
    from pathlib import Path

    from services.engram import AgentMemory, Engram


def _day(s: str) -> datetime:
    try:
        d = date.fromisoformat(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r} is not a date like 2026-05-01") from None
    return datetime(d.year, d.month, d.day, 12, 0, 0)


def date_arg(s: str) -> date:
    try:
        return date.fromisoformat(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r} is not a date like 2026-05-01") from None


def register(sub) -> None:
    p = sub.add_parser(
        "restore",
        help="bring archived facts back (IDs), or the whole store from a backup (NAME)",
        description="`engram restore ID...` brings back facts GC archived. "
        "`engram restore NAME` replaces the store with a backup (`engram backup --list`): "
        "it shows what would change unless --yes. `engram restore` alone lists the backups.",
    )
    p.add_argument("ids", nargs="*", metavar="ID|NAME", help="archived fact ids, or a backup")
    flag(p, "--yes", help="restore the backup (default: preview)")
    with_json(p, cmd_restore)

    p = sub.add_parser(
        "ingest-session",
        help="read an agent session transcript: episodes "
        "every N turns and facts the user stated (once per session id)",
    )
    p.add_argument("--agent", required=True)
    p.add_argument(
        "file",
        help="a transcript, or a folder of them (a Claude Code project folder, "
        "~/.claude/projects, a Codex sessions tree): each session is read once",
    )
    p.add_argument("--session-id", help="default: the id in the transcript, else the file name")
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("claude-code", "codex", "jsonl"),
        help="the transcript's format (default: detected)",
    )
    with_json(p, cmd_ingest_session)

    p = sub.add_parser(
        "review",
        help="memories waiting for you: list, accept, edit, reject (erase everywhere; "
        "preview first, --yes to do it) or not-now (keep hidden) candidates",
    )
    p.add_argument(
        "action",
        nargs="?",
        choices=("list", "accept", "reject", "not-now", "edit"),
        default="list",
        help="list (default), accept, reject (erase everywhere), not-now (keep hidden) "
        "or edit (correct, then accept)",
    )
    p.add_argument("ids", nargs="*", type=int, metavar="ID")
    p.add_argument("--agent", help="default: every agent (needed for accept/reject/edit)")
    p.add_argument("--content", help="edit: the corrected text (the candidate is then accepted)")
    p.add_argument("--json", action="store_true")
    flag(p, "--yes", help="reject: do it (default: preview)")
    p.set_defaults(func=cmd_review)

    p = sub.add_parser("episodes", help="what happened in an agent's sessions, newest first")
    p.add_argument("--agent", required=True)
    p.add_argument("--since", type=date_arg, help="only from this day (YYYY-MM-DD)")
    p.add_argument("--limit", type=int, default=50)
    with_json(p, cmd_episodes)

    p = sub.add_parser("compile", help="compile today/week/longterm/memory.md within budgets")
    p.add_argument("--agent", required=True)
    flag(p, "--diff", help="also print what changed in memory.md")
    with_json(p, cmd_compile)

    p = sub.add_parser(
        "gc",
        help="decay, expire, consolidate, drain and prune memories (preview first; --yes to do it)",
    )
    p.add_argument("--agent", required=True)
    p.add_argument("--now", type=_day, help="simulate another day (YYYY-MM-DD)")
    add_yes(p)
    # the old spelling of the default: still previews, even with --yes (as `forget` does)
    flag(p, "--dry-run", help=argparse.SUPPRESS)
    with_json(p, cmd_gc)


def cmd_ingest_session(args, ctx) -> int:
    from pathlib import Path

    from services.capture.sessions import ingest_session

    memory = ctx.engram().agent(args.agent, create=True)
    if Path(args.file).expanduser().is_dir():
        if args.session_id:
            from services.errors import InvalidInput

            raise InvalidInput("--session-id names one transcript; a folder holds many")
        return _ingest_folder(memory, Path(args.file).expanduser(), args)
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
        + (f", {r.facts_updated} updated" if r.facts_updated else "")
    )
    for w in r.warnings:
        print(f"note: {w}")
    return 0


def _ingest_folder(memory: AgentMemory, folder: Path, args: argparse.Namespace) -> int:
    from services.capture.folders import ingest_folder

    rep = ingest_folder(memory, folder, fmt=args.fmt)
    if args.json:
        emit_json(rep.to_json())
        return 0
    new = [s for s in rep.sessions if not s.already_processed]
    print(
        f"{folder}: {len(rep.sessions)} session(s), {len(new)} new, "
        f"{sum(s.facts_added for s in new)} facts added "
        f"({sum(s.facts_pending for s in new)} for review), "
        f"{sum(s.episodes_added for s in new)} episodes added"
    )
    for s in new:
        for w in s.warnings:
            print(f"note: {s.session_id}: {w}")
    for line in rep.skipped:
        print(f"skipped: {line}")
    return 0


def cmd_review(args, ctx) -> int:
    from services.errors import InvalidInput

    # erasing rebuilds the agent's vectors without the candidate: that needs the model
    # (a preview of a reject reads only rows: no model to load)
    eng = ctx.engram(semantic=args.action == "edit" or (args.action == "reject" and args.yes))
    if args.action == "list":
        return _review_list(eng, args)
    if not args.agent:
        raise InvalidInput(f"review {args.action}: say which agent (--agent)")
    if not args.ids:
        raise InvalidInput(f"review {args.action}: give the candidate id(s) to {args.action}")
    memory = eng.agent(args.agent)
    if args.action == "reject" and not args.yes:
        return _preview_reject(memory, args)
    if args.action == "edit":
        if len(args.ids) != 1 or not args.content:
            raise InvalidInput("review edit: one ID and --content 'the corrected text'")
        # the original is erased, the correction stored as a new memory: print its id
        done = [memory.review.edit(args.ids[0], args.content, actor="user")]
        verb = "edited and accepted"
    elif args.action == "accept":
        done, verb = memory.review.accept(args.ids), "accepted"
    elif args.action == "not-now":
        done, verb = memory.review.not_now(args.ids), "kept hidden (not now)"
    else:
        done, verb = memory.review.reject(args.ids), "rejected and erased"
    receipt = memory.review.last_receipt if args.action in ("reject", "edit") else None
    if args.json:
        emit_json({"action": args.action, "ids": done, "receipt": receipt})
        return 0
    print(f"{verb} {len(done)} candidate(s): {' '.join(map(str, done)) or '-'}")
    if args.action == "not-now":
        print(
            "their text is kept in the store, hidden from the agent; "
            f"`engram review reject --agent {args.agent} ID` erases it"
        )
    if receipt:
        c = receipt["counts"]
        print(f"receipt {receipt['id']}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
        for n in receipt.get("notes", []):
            print(f"  note: {n}")
    return 0 if not receipt or not receipt["counts"].get("remaining_after_verify") else 1


def _preview_reject(memory: AgentMemory, args: argparse.Namespace) -> int:
    waiting = {it.fact.id: it for it in memory.review.items()}
    ids = [i for i in args.ids if i in waiting]
    lines = [f"Would reject and erase {i}: {waiting[i].fact.content}" for i in ids]
    lines += [f"not waiting for review: {i}" for i in args.ids if i not in waiting]
    data = {"action": "reject", "ids": ids}
    return show_preview(args, lines, data, "erase them everywhere", REJECT)


def _review_list(eng: Engram, args: argparse.Namespace) -> int:
    slugs = [args.agent] if args.agent else [a.slug for a in eng.agents(with_counts=False)]
    rows = []
    for slug in slugs:
        rows += [(slug, it) for it in eng.agent(slug).review.items()]
    if args.json:
        emit_json([{**it.to_json(), "agent": slug} for slug, it in rows])
        return 0
    if not rows:
        print("nothing to review")
    for slug, it in rows:
        conf = it.confidence
        where = it.detail.get("session") or it.detail.get("source") or ""
        print(
            f"{it.fact.id:>6} [{slug}] {it.reason}"
            + (f" {conf:.2f}" if isinstance(conf, (int, float)) else "")
            + f" {it.fact.category}: {it.fact.content}"
            + (f"\n         why: {it.detail['why']}" if it.detail.get("why") else "")
            + (f"\n         from {where}" if where else "")
        )
    return 0


def cmd_episodes(args, ctx) -> int:
    memory = ctx.engram(semantic=False).agent(args.agent)
    eps = memory.episodes.list(since=args.since, limit=args.limit)
    if args.json:
        emit_json([e.to_json() for e in eps])
        return 0
    if not eps:
        print("no episodes" + (f" since {args.since}" if args.since else ""))
    for e in eps:
        print(f"{e.day} {e.time or '':>8}  {e.summary}")
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
    r = run_gc(memory, now=args.now, dry_run=args.dry_run or not args.yes)
    if args.json:
        emit_json({"preview": True, **r.to_json()} if r.dry_run else r.to_json())
        return 0
    head = "would change (preview)" if r.dry_run else "done"
    print(
        f"gc {head}: {r.decayed} decayed, {r.expired} expired, {r.archived} archived, "
        f"{r.evicted} evicted, {r.promoted} promoted, {r.drained} drained, "
        f"{r.episodes_pruned} episodes and {r.sessions_pruned} session logs pruned"
    )
    for a in r.actions:
        if a.kind != "decay":
            print(f"  {a.kind} {a.target} {a.fact_id if a.fact_id is not None else ''}: {a.reason}")
    if r.dry_run:
        print("Nothing changed. Run again with --yes to do it.")
    return 0


def cmd_restore(args, ctx) -> int:
    from app.commands.backup import cmd_restore_backup, is_backup_name
    from services.lifecycle.gc import restore_archived

    if is_backup_name(args.ids):
        return cmd_restore_backup(args, ctx)
    args.ids = [int(i) for i in args.ids]
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

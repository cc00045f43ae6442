"""Entity commands: ``engram entities`` (list, candidates, relink) and ``engram entity``
(show, merge, split, rename, alias, type, undo, dismiss)."""

from __future__ import annotations

from app.cli import emit_json
from app.commands.confirm import add_yes, show_preview
from app.commands.help_text import flag, with_json
from services.consequences import MERGE_ENTITIES

TYPES = ("person", "organisation", "project", "place", "tool", "concept")


def register(sub) -> None:
    p = sub.add_parser("entities", help="the people, projects, places and tools an agent knows")
    p.add_argument("--agent", required=True)
    p.add_argument("--type", choices=TYPES, help="only entities of this type")
    flag(p, "--candidates", help="possible duplicates to review")
    flag(p, "--relink", help="link every stored fact again")
    with_json(p, cmd_entities)

    p = sub.add_parser("entity", help="show, merge, split, rename or alias an entity")
    esub = p.add_subparsers(dest="entity_cmd", required=True)

    def sp(name: str, helptext: str):
        a = esub.add_parser(name, help=helptext)
        a.add_argument("--agent", required=True)
        if name not in ("show", "merge"):  # those two add it with their own options
            a.add_argument("--json", action="store_true")
        return a

    a = sp("show", "an entity's facts over time, relations and sources")
    a.add_argument("entity", help="name, alias or id")
    with_json(a, cmd_show)
    a = sp(
        "merge",
        "merge entities into the first one (their names become aliases; preview first, "
        "--yes to do it)",
    )
    a.add_argument("target", help="the entity the others are merged into")
    a.add_argument("others", nargs="+", help="entities merged into the target")
    a.add_argument("--json", action="store_true")
    add_yes(a)
    a.set_defaults(func=cmd_merge)
    a = sp("split", "move some facts to a new entity (two people with one name)")
    a.add_argument("entity")
    a.add_argument("--facts", required=True, help="fact ids, comma separated")
    a.add_argument("--name", help="the new entity's name (default: the same name)")
    a.set_defaults(func=cmd_split)
    a = sp("rename", "rename an entity (the old name stays as an alias)")
    a.add_argument("entity")
    a.add_argument("name", help="the new name")
    flag(a, "--no-alias", help="do not keep the old name")
    a.set_defaults(func=cmd_rename)
    a = sp("alias", "add or remove an entity's aliases")
    a.add_argument("entity")
    a.add_argument("--add", action="append", default=[], help="an alias to add (repeatable)")
    a.add_argument("--remove", action="append", default=[], help="an alias to remove (repeatable)")
    a.set_defaults(func=cmd_alias)
    a = sp("type", "set an entity's type")
    a.add_argument("entity")
    a.add_argument("type", choices=TYPES, help="the entity's type")
    a.set_defaults(func=cmd_type)
    a = sp("undo", "undo a merge, split, rename, alias or type change (its event id)")
    a.add_argument(
        "event", type=int, help="the merge or split to undo (its id in `engram entity show`)"
    )
    a.set_defaults(func=cmd_undo)
    a = sp("dismiss", "these two are different: drop a merge candidate")
    a.add_argument(
        "candidate", type=int, help="the suggested merge to dismiss (its id in `engram entities`)"
    )
    a.set_defaults(func=cmd_dismiss)


def _mem(args, ctx):
    return ctx.engram(semantic=False).agent(args.agent)


def cmd_entities(args, ctx) -> int:
    mem = _mem(args, ctx)
    if args.relink:
        from services.store.fact_rows import fact_ids

        ids = fact_ids(mem.agent_id)
        for fid in ids:
            mem.entities.relink(fid)
        print(f"relinked {len(ids)} fact(s)")
        return 0
    if args.candidates:
        rows = mem.entities.candidates()
        if args.json:
            emit_json([{"candidate": c, "entity": a.to_json(), "other": b.to_json(),
                        "reason": r} for c, a, b, r in rows])  # fmt: skip
            return 0
        for c, a, b, reason in rows:
            print(f"{c:>5}  {a.name} [{a.id}, {a.mention_count}] ? {b.name} [{b.id}, "
                  f"{b.mention_count}]  ({reason})")  # fmt: skip
        if not rows:
            print("no merge candidates")
        return 0
    rows = mem.entities.list(args.type)
    if args.json:
        emit_json([e.to_json() for e in rows])
        return 0
    for e in rows:
        aka = f"  (aka {', '.join(e.aliases)})" if e.aliases else ""
        print(f"{e.id:>5}  {e.type:<12} {e.mention_count:>4}  {e.last_mentioned:%Y-%m-%d}  "
              f"{e.name}{aka}")  # fmt: skip
    if not rows:
        print("no entities")
    return 0


def cmd_show(args, ctx) -> int:
    page = _mem(args, ctx).entities.page(args.entity)
    if args.json:
        emit_json(page.to_json())
        return 0
    e = page.entity
    print(f"{e.name}  [{e.type}, id {e.id}]")
    if e.aliases:
        print("aka: " + ", ".join(e.aliases))
    print(f"{e.mention_count} fact(s), first {e.first_mentioned:%Y-%m-%d}, "
          f"last {e.last_mentioned:%Y-%m-%d}; links: "
          + ", ".join(f"{k} {v}" for k, v in sorted(page.sources.items())))  # fmt: skip
    for a, typ, b, _ in page.relations:
        print(f"  {a} —{typ}→ {b}")
    for f in page.facts:
        status = "" if f.status == "active" else f" ({f.status})"
        print(f"  {f.created_at:%Y-%m-%d} #{f.id} [{f.link_source}] {f.content}{status}")
    for c, other in page.candidates:
        print(f"  maybe the same as {other.name} (id {other.id}); candidate {c}")
    return 0


def _undo(args, event: int) -> str:
    # the entity commands need --agent: the hint must run as printed
    return f"engram entity undo --agent {args.agent} {event}"


def _done(what: str, event: int, args) -> int:
    if getattr(args, "json", False):
        emit_json({"done": what, "event": event, "undo": _undo(args, event)})
        return 0
    print(f"{what} (undo: {_undo(args, event)})")
    return 0


def cmd_merge(args, ctx) -> int:
    ents = _mem(args, ctx).entities
    if not args.yes:
        target, others = ents.find(args.target), [ents.find(o) for o in args.others]
        lines = [
            f"Would merge {o.name} (id {o.id}, {o.mention_count} mentions) into {target.name} "
            f"(id {target.id}); its names become aliases"
            for o in others
        ]
        data = {"action": "merge", "target": target.to_json()}
        data["others"] = [o.to_json() for o in others]
        return show_preview(args, lines, data, "merge them", MERGE_ENTITIES)
    event = ents.merge(args.target, args.others)
    if args.json:
        emit_json(
            {
                "action": "merge",
                "event": event,
                "undo": _undo(args, event),
            }
        )
        return 0
    return _done("merged", event, args)


def cmd_split(args, ctx) -> int:
    ids = [int(x) for x in args.facts.replace(" ", "").split(",") if x]
    new, ev = _mem(args, ctx).entities.split(args.entity, ids, args.name)
    return _done(f"split into entity {new}", ev, args)


def cmd_rename(args, ctx) -> int:
    mem = _mem(args, ctx)
    return _done("renamed", mem.entities.rename(args.entity, args.name, not args.no_alias), args)


def cmd_alias(args, ctx) -> int:
    return _done(
        "aliases updated",
        _mem(args, ctx).entities.alias(args.entity, args.add, args.remove),
        args,
    )


def cmd_type(args, ctx) -> int:
    return _done("type set", _mem(args, ctx).entities.set_type(args.entity, args.type), args)


def _said(word: str, what: int, args) -> int:
    """WORD on its own, or {WORD: WHAT} with --json."""
    if args.json:
        emit_json({word: what})
    else:
        print(word)
    return 0


def cmd_undo(args, ctx) -> int:
    _mem(args, ctx).entities.undo(args.event)
    return _said("undone", args.event, args)


def cmd_dismiss(args, ctx) -> int:
    _mem(args, ctx).entities.dismiss(args.candidate)
    return _said("dismissed", args.candidate, args)

"""`engram migrate`: copy a local store into the team store (--from DIR) or back (--to DIR)."""

from __future__ import annotations

import sys
from pathlib import Path

from app.commands.help_text import with_json


def register(sub) -> None:
    p = sub.add_parser(
        "migrate",
        help="copy a local store into the configured (team) store, or the team store to a dir",
    )
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--from", dest="src", help="local store directory to copy from")
    g.add_argument("--to", dest="dst", help="local store directory to copy the store into")
    p.add_argument("--agent", action="append", help="only this agent (repeatable)")
    with_json(p, cmd_migrate)

    p = sub.add_parser("team", help="the team store: members")
    tsub = p.add_subparsers(dest="team_cmd", required=True)
    a = tsub.add_parser("add-member", help="a login role for one person (as the admin role)")
    a.add_argument("name", help="the member's name (their database role)")
    a.add_argument(
        "--password-stdin", action="store_true", help="read the password from stdin (one line)"
    )
    with_json(a, cmd_team_add_member)


def add_agent_commands(asub) -> None:
    """`engram agent share|private A` (team stores: the owner decides who sees an agent)."""
    for name, vis, text in (
        ("share", "shared", "every member of the team sees the agent"),
        ("private", "private", "only you (its owner) see the agent"),
    ):
        a = asub.add_parser(name, help=text)
        a.add_argument("slug")
        with_json(a, cmd_agent_visibility, visibility=vis)


def cmd_agent_visibility(args, ctx):
    e = ctx.engram(semantic=False)
    e.set_visibility(args.slug, args.visibility)
    if args.json:
        from app.cli import emit_json

        emit_json({"agent": args.slug, "visibility": args.visibility})
        return 0
    print(f"{args.slug}: {args.visibility}")
    return 0


def cmd_team_add_member(args, ctx):
    import getpass
    import sys

    from models.db import is_postgres
    from services.errors import InvalidInput
    from services.teamstore import add_member

    e = ctx.engram(semantic=False)
    if not is_postgres(e.db):
        raise InvalidInput("not a team store (set ENGRAM_DB_URL to the team's PostgreSQL)")
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {args.name}: ")
    if len(password) < 8:
        raise InvalidInput("a member's password has at least 8 characters")
    add_member(e.db, args.name, password)
    if args.json:
        from app.cli import emit_json

        emit_json({"member": args.name})
        return 0
    print(f"{args.name}: member of the team (give them the password out of band)")
    return 0


def cmd_migrate(args, ctx):
    from app.cli import emit_json
    from app.settings import store_config
    from services.config import StoreConfig
    from services.migrate import migrate

    here = store_config(ctx.data_dir, semantic=False)
    if args.src:
        source, target = StoreConfig(data_dir=Path(args.src).expanduser()), here
        if not (source.data_dir / "engram.db").is_file():
            from services.errors import InvalidInput

            raise InvalidInput(f"{source.data_dir} holds no Engram store (no engram.db)")
    else:
        source, target = here, StoreConfig(data_dir=Path(args.dst).expanduser())
    from app.commands.progress import progress

    try:
        with progress("migrate", args) as shown:
            rep = migrate(source, target, args.agent, progress=shown)
    except KeyboardInterrupt:
        # every batch commits on its own: what was copied stays, and a rerun carries on
        print(
            "engram: interrupted: what was copied is kept; run the same command again "
            "to finish (it copies only what is missing)",
            file=sys.stderr,
        )
        return 130
    if args.json:
        emit_json(rep.to_json())
        return 0
    for slug, counts in rep.copied.items():
        parts = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
        print(f"{slug}: copied ({parts})")
    for slug, counts in rep.resumed.items():
        parts = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
        print(f"{slug}: already there, its vectors finished ({parts})")
    for slug in rep.skipped:
        print(f"{slug}: already there, unchanged")
    if not rep.copied and not rep.skipped and not rep.resumed:
        print("nothing to copy")
    return 0


def cmd_server_sync(args, ctx):
    """`engram sync [--server URL] [--status]`: this local store with a PostgreSQL store."""
    import os

    from app.cli import emit_json
    from app.settings import store_config
    from services.errors import InvalidInput
    from services.teamsync import sync_round, sync_status

    cfg = store_config(ctx.data_dir)
    if cfg.db_url:
        raise InvalidInput(
            "this client talks to the team store directly (ENGRAM_DB_URL); sync is for a "
            "local store (unset ENGRAM_DB_URL and use --server or ENGRAM_SYNC_URL)"
        )
    server = args.server or os.environ.get("ENGRAM_SYNC_URL")
    if args.status:
        st = sync_status(cfg, server)
        if args.json:
            emit_json(st.to_json())
            return 0
        waiting = ", ".join(f"{n} {op}" for op, n in sorted(st.pending.items())) or "nothing"
        print(f"server: {st.server or '(none yet)'}")
        print(f"pending: {waiting}")
        print(f"last sync: {st.last_round or 'never'} (cursor {st.cursor})")
        if st.last_problem:
            print(f"last problem: {st.last_problem}")
        return 0
    if not server:
        st = sync_status(cfg)
        server = st.server
    if not server:
        raise InvalidInput("no server: pass --server postgresql://… or set ENGRAM_SYNC_URL")
    rep = sync_round(cfg, server)
    if args.json:
        emit_json(rep.to_json())
    elif not rep.online:
        print(f"offline: {rep.problem} (changes stay queued; `engram sync --status`)")
    else:
        print(
            f"pushed {rep.pushed}, pulled {rep.pulled}, erased here {rep.erased_here}, "
            f"erased there {rep.erased_there}, deleted here {rep.deleted_here}, "
            f"deleted there {rep.deleted_there}, conflicts {rep.conflicts}, "
            f"blocked {rep.blocked}"
        )
        for note in rep.notes:
            print(f"note: {note}")
    if not rep.online:
        return 3
    return 4 if rep.conflicts else 0  # an edit made on two machines waits in review

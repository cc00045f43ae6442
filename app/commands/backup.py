"""`engram backup` and `engram restore NAME`: whole-store copies a damaged store comes back from."""

from __future__ import annotations

from pathlib import Path

from app.cli import emit_json
from app.commands.help_text import flag, with_json


def register(sub) -> None:
    p = sub.add_parser(
        "backup",
        help="copy the store (database and vector index) into <data dir>/backups/<time>/",
        description="Without options: take a backup now. Backups are restored with "
        "`engram restore NAME`. A daily backup is taken automatically and kept for "
        "--keep-days days.",
    )
    flag(p, "--list", help="list the backups instead")
    p.add_argument(
        "--keep-days",
        type=_days,
        metavar="N",
        help="keep daily backups N days (saved in settings.json; 0 turns them off)",
    )
    with_json(p, cmd_backup)


def _days(s: str) -> int:
    import argparse

    try:
        n = int(s)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError("keep-days must be a whole number of days, 0 or more")
    return n


def _local(ctx):
    """(data dir, database file, vector folder) of a local store; a team store has none."""
    from app.settings import store_config
    from services.errors import InvalidInput

    config = store_config(ctx.data_dir, semantic=False)
    if config.db_url and "://" in config.db_url and not config.db_url.startswith("sqlite"):
        raise InvalidInput("backups are of a local store; a team store is backed up on its server")
    db = Path(config.database_url)
    chroma = None if "://" in config.vector_location else Path(config.vector_location)
    return config.data_dir, db, chroma


def cmd_backup(args, ctx) -> int:
    from services.store import backup as b

    data_dir, db, chroma = _local(ctx)
    if args.keep_days is not None:
        b.set_keep_days(data_dir, args.keep_days)
        if not args.json:
            print(
                f"daily backups are kept {args.keep_days} day(s)"
                if args.keep_days
                else "daily backups are off"
            )
    if args.list:
        _print_list(b.list_backups(data_dir), args.json)
        return 0
    if args.keep_days is not None:
        return 0
    if not db.exists():
        from services.errors import InvalidInput

        raise InvalidInput(f"no store to back up in {data_dir}")
    ctx.engram(semantic=False)  # opening migrates and checks it: a backup of a valid store
    made = b.create_backup(data_dir, db, chroma, reason="manual")
    if args.json:
        emit_json(made.to_json())
    else:
        print(f"backed up {made.agents} agent(s), {made.facts} fact(s) to {made.path}")
        print(f"restore it with: engram restore {made.name}")
    return 0


def _print_list(backups, as_json: bool) -> None:
    if as_json:
        emit_json([x.to_json() for x in backups])
        return
    if not backups:
        print("no backups yet: `engram backup` takes one")
    for x in backups:
        print(
            f"{x.name}\t{x.created:%Y-%m-%d %H:%M}\t{x.reason}\t{x.agents} agent(s)\t"
            f"{x.facts} fact(s)\t{x.size / 1e6:.1f} MB"
        )


def cmd_restore_backup(args, ctx) -> int:
    """`engram restore NAME`: preview unless --yes; the store in place is backed up first."""
    from services.errors import InvalidInput
    from services.store import backup as b

    data_dir, db, chroma = _local(ctx)
    if not args.ids:
        _print_list(b.list_backups(data_dir), args.json)
        return 0
    if len(args.ids) != 1:
        raise InvalidInput("name one backup to restore (see `engram backup --list`)")
    chosen = b.find_backup(data_dir, args.ids[0])
    if chosen is None:
        raise InvalidInput(
            f"no backup named {args.ids[0]!r} in {data_dir / b.BACKUP_DIR} "
            "(see `engram backup --list`)"
        )
    agents, facts = b._counts(db) if db.exists() else (0, 0)
    plan = {
        "backup": chosen.to_json(),
        "current": {"agents": agents, "facts": facts},
        "restored": False,
    }
    if not args.yes:
        if args.json:
            emit_json(plan)
        else:
            print(
                f"would replace the store in {data_dir} ({agents} agent(s), {facts} fact(s))\n"
                f"with backup {chosen.name} of {chosen.created:%Y-%m-%d %H:%M} "
                f"({chosen.agents} agent(s), {chosen.facts} fact(s)).\n"
                "The current store is backed up first. Run again with --yes to restore."
            )
        return 0
    _refuse_while_running(data_dir)
    before = b.restore_backup(data_dir, chosen, db, chroma)
    plan["restored"] = True
    plan["previous"] = before.to_json() if before else None
    if args.json:
        emit_json(plan)
    else:
        print(f"restored backup {chosen.name}: {chosen.agents} agent(s), {chosen.facts} fact(s)")
        if before is not None:
            print(
                f"the store it replaced is kept as backup {before.name} "
                f"(`engram restore {before.name} --yes` undoes this)"
            )
    return 0


def _refuse_while_running(data_dir: Path) -> None:
    """The app or `engram serve` keeps the store open: replacing it under them loses writes."""
    from services.errors import InvalidInput
    from services.integrations.daemon import request, socket_path

    if socket_path(data_dir).exists() and request(data_dir, {"op": "ping"}, timeout=2):
        raise InvalidInput(
            "Engram is running on this store (the app or `engram serve`): quit it, then restore"
        )


def is_backup_name(words: list[str]) -> bool:
    return not words or any(not w.isdigit() for w in words)

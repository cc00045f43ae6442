"""`engram migrate`: copy a local store into the team store (--from DIR) or back (--to DIR)."""

from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser(
        "migrate",
        help="copy a local store into the configured (team) store, or the team store to a dir",
    )
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--from", dest="src", help="local store directory to copy from")
    g.add_argument("--to", dest="dst", help="local store directory to copy the store into")
    p.add_argument("--agent", action="append", help="only this agent (repeatable)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_migrate)


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
    rep = migrate(source, target, args.agent)
    if args.json:
        emit_json(rep.to_json())
        return 0
    for slug, counts in rep.copied.items():
        parts = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
        print(f"{slug}: copied ({parts})")
    for slug in rep.skipped:
        print(f"{slug}: already there, unchanged")
    if not rep.copied and not rep.skipped:
        print("nothing to copy")
    return 0

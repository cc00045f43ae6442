"""``engram agent pause|resume SLUG``: an incognito session for one agent. While paused its
MCP ``remember``, its hooks and transcript capture write nothing (services/store/pause.py)."""

from __future__ import annotations

from app.cli import emit_json


def add_pause_commands(asub) -> None:
    for name, on, text in (
        ("pause", True, "pause capture (incognito): the agent's memories are not written"),
        ("resume", False, "resume capture after `engram agent pause`"),
    ):
        a = asub.add_parser(name, help=text)
        a.add_argument("slug")
        a.add_argument("--json", action="store_true", help="machine-readable output")
        a.set_defaults(func=cmd_agent_pause, paused=on)


def cmd_agent_pause(args, ctx) -> int:
    from services.store.pause import is_paused, set_paused

    memory = ctx.engram(semantic=False).agent(args.slug)  # NotFound names the agents
    set_paused(memory.agent_id, args.paused)
    paused = is_paused(memory.agent_id)
    if getattr(args, "json", False):
        emit_json({"slug": args.slug, "capture_paused": paused})
    elif paused:
        print(
            f"Capture paused for {args.slug}: its MCP remember, hooks and transcripts write "
            f"nothing until `engram agent resume {args.slug}`."
        )
    else:
        print(f"Capture resumed for {args.slug}.")
    return 0

"""Agent integration commands: hooks, hook-run, context, sync, archive, demo."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli import emit_json
from app.commands.help_text import flag, keyword_only, minutes, old_spelling, with_json

if TYPE_CHECKING:
    from services.engram import Engram


class _Targets:
    """``hooks_install.TARGETS`` for argparse's choices, imported when argparse checks or
    shows them: the module brings the agents' config editors (and ``ssl``), and every
    command (`pin`) paid for them when the parser was built."""

    def _all(self) -> tuple[str, ...]:
        from services.integrations.hooks_install import TARGETS

        return TARGETS

    def __iter__(self):
        return iter(self._all())

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __len__(self) -> int:
        return len(self._all())


TARGETS = _Targets()


def register(sub) -> None:
    p = sub.add_parser(
        "hooks", help="install or remove an agent integration (shows the plan first)"
    )
    hsub = p.add_subparsers(dest="hooks_cmd", required=True)
    for name, helptext in (
        ("install", "write the integration (needs --yes; without it only the plan is printed)"),
        ("uninstall", "remove it, restoring the files Engram edited"),
    ):
        h = hsub.add_parser(name, help=helptext)
        h.add_argument(
            "target",
            choices=TARGETS,
            metavar="TARGET",  # a {a,b,...} metavar would read the choices as it is built
            help="the agent whose hooks and MCP entry to change: %(choices)s",
        )
        h.add_argument("--agent", help="agent slug (default: the target's name)")
        h.add_argument("--home", help="home directory to install into (default: ~)")
        h.add_argument("--project", help="project directory (CLAUDE.md / .cursor/rules)")
        flag(h, "--yes", help="apply the plan")
        flag(h, "--dry-run", help="print the plan only (default)")
        h.add_argument("--json", action="store_true")
        g = h.add_mutually_exclusive_group()
        g.add_argument(
            "--no-mcp",
            dest="mcp",
            action="store_false",
            help="leave the agent's MCP server list alone",
        )
        g.add_argument(
            "--mcp-only",
            dest="mcp",
            action="store_const",
            const="only",
            help="only the MCP server registration (no hooks, rules or imports)",
        )
        if name == "install":
            flag(
                h,
                "--with-context",
                help="claude-code: also add the relevant memory to every prompt "
                "(a UserPromptSubmit hook running `engram context`)",
            )
            h.add_argument(
                "--budget",
                type=int,
                default=1500,
                help="token budget of that per-prompt block (default 1500)",
            )
        h.set_defaults(func=cmd_hooks, action=name, mcp=True)
    h = hsub.add_parser("status", help="what Engram installed where")
    with_json(h, cmd_hooks_status)

    p = sub.add_parser(
        "mcp",
        help="serve one agent's memory to MCP clients (stdio; --http 127.0.0.1:PORT for "
        "Streamable HTTP); `engram mcp token` prints the HTTP bearer token",
    )
    p.add_argument(
        "what",
        nargs="?",
        choices=("serve", "token"),
        default="serve",
        help="serve: the MCP server on stdio (default); token: the bearer token of the HTTP transport",
    )
    p.add_argument("--agent", help="the agent whose memory is served (required to serve)")
    flag(p, "--create-agent", dest="create", help="create the agent if it is missing")
    old_spelling(p, "--create", dest="create", action="store_true")
    p.add_argument("--http", metavar="HOST:PORT", help="Streamable HTTP on a loopback address")
    keyword_only(p, "no embedding model: keyword search only (starts faster, uses less memory)")
    minutes(
        p,
        "--sync-every",
        5.0,
        "a store that syncs with a team server: a round every MINUTES while it serves "
        "(the first after MINUTES; default 5; 0: none)",
    )
    p.add_argument("--json", action="store_true", help="token: print it as JSON")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser(
        "hook-run", help="entry point an agent's hook calls (reads the hook's JSON on stdin)"
    )
    p.add_argument(
        "target",
        choices=("claude-code", "claude-code-context", "generic"),
        help="which hook event format is on stdin",
    )
    p.add_argument("--agent", required=True)
    p.add_argument("--budget", type=int, default=1500, help="claude-code-context: tokens")
    with_json(p, cmd_hook_run)

    p = sub.add_parser("context", help="the memory block to put in an agent's prompt")
    p.add_argument("query")
    p.add_argument("--agent", required=True)
    p.add_argument("--budget", type=int, default=1500, help="tokens (default 1500)")
    with_json(p, cmd_context)

    p = sub.add_parser(
        "sync",
        help="two jobs: `sync --agent A` reconciles the agent's Memory Setup workspace files; "
        "`sync --server URL` this store with a team store on PostgreSQL "
        "(exit status 4 while conflicts remain; acts at once without --yes: it reconciles "
        "both sides rather than erasing)",
    )
    p.add_argument("--agent", help="the agent whose workspace files to sync")
    p.add_argument(
        "--server",
        help="sync this local store with a PostgreSQL store (default: ENGRAM_SYNC_URL, "
        "else the last one used)",
    )
    flag(p, "--status", help="what waits to be pushed (server sync)")
    p.add_argument(
        "--direction",
        choices=("both", "pull", "push"),
        default="both",
        help="pull: files into Engram; push: Engram into files; both (default)",
    )
    p.add_argument(
        "--prefer", choices=("engram", "file"), help="resolve conflicts in favour of one side"
    )
    flag(p, "--dry-run")
    with_json(p, cmd_sync)

    p = sub.add_parser("archive", help="a whole agent as JSON lines, and back")
    asub = p.add_subparsers(dest="archive_cmd", required=True)
    a = asub.add_parser("export", help="write an agent's facts, episodes and layers to a file")
    a.add_argument("--agent", required=True)
    a.add_argument("out")
    a.add_argument("--json", action="store_true")
    flag(a, "--vectors", help="include embedding vectors")
    flag(a, "--force", help="replace OUT if it exists")
    a.set_defaults(func=cmd_archive_export)
    a = asub.add_parser("import", help="bring an archived agent back (new ids, same words)")
    a.add_argument("path")
    a.add_argument("--agent", help="import under this name (default: the archived one)")
    with_json(a, cmd_archive_import)

    p = sub.add_parser(
        "demo", help="add four clearly-marked demo agents (once: a second run adds nothing)"
    )
    with_json(p, cmd_demo)


def cmd_hooks(args, ctx):
    from services.integrations import hooks_install as hooks

    eng = ctx.engram(semantic=False)
    slug = args.agent or args.target.replace("-code", "")
    home = Path(args.home).expanduser().resolve() if args.home else None
    project = Path(args.project).expanduser().resolve() if args.project else None
    if args.action == "install":
        mem = eng.agent(slug, create=True, kind=args.target)
        if args.with_context and args.target != "claude-code":
            raise ValueError(
                "--with-context is for claude-code (Cursor and scripts call "
                "`engram context` themselves)"
            )
        plan = hooks.plan_install(
            mem,
            args.target,
            home=home,
            project=project,
            # the store this command runs on, pinned: an agent started without the user's
            # ENGRAM_HOME must not open an empty default store instead
            data_dir=Path(eng.config.data_dir).expanduser().resolve(),
            with_context=args.with_context,
            context_budget=args.budget,
            mcp=args.mcp,
        )
        return _show_and_apply(plan, args, eng.config.data_dir)
    # without --agent: every agent installed into this target's files (an install for
    # "alpha" is not the default slug's), the latest first; each plan is made after the
    # previous one is applied, as they may share a file
    slugs = [slug]
    if not args.agent:
        slugs = hooks.installed_agents(
            args.target, eng.config.data_dir, home=home, project=project, mcp=args.mcp
        ) or [slug]
    for s in slugs:
        if slugs != [slug]:  # the user did not name it: say whose part goes
            print(f"{args.target}, agent {s}:")
        plan = hooks.plan_uninstall(
            s, args.target, eng.config.data_dir, home=home, project=project, mcp=args.mcp
        )
        _show_and_apply(plan, args, eng.config.data_dir)
    return 0


def _show_and_apply(plan, args, data_dir: Path) -> int:
    from services.integrations import hooks_install as hooks

    act = bool(plan.pending) and args.yes and not args.dry_run
    if args.json:
        touched = hooks.apply(plan, data_dir) if act else []
        emit_json(
            {
                "action": args.action,
                "target": plan.target,
                "agent": plan.agent,
                "preview": not act,
                "changes": [
                    {"path": str(c.path), "change": "write" if c.after is not None else "remove"}
                    for c in plan.pending
                ],
                "notes": list(plan.notes),
                "backups": [str(b) for b in touched],
            }
        )
        return 0
    sys.stdout.write(plan.preview())
    for n in plan.notes:
        print(f"note: {n}")
    if not plan.pending:
        return 0
    if not act:
        print(f"(plan only: run again with --yes to {args.action})")
        return 0
    from services.integrations import user_service

    served = Path(data_dir).expanduser().resolve()
    service = hooks.service_changes(plan)
    for c in service:  # stopped while its file is still there to say what to stop
        said = user_service.stop(c.path, served) if c.after is None else None
        if said:
            print(f"note: {said}")
    touched = hooks.apply(plan, data_dir)
    for c in plan.pending:
        print(f"{'wrote' if c.after is not None else 'removed'} {c.path}")
    for b in touched:
        print(f"{'backup' if args.action == 'install' else 'removed backup'} {b}")
    for c in service:
        if c.after is not None:
            print(f"note: {user_service.start(c.path, served, hooks.engram_command(served))}")
    return 0


def cmd_hooks_status(args, ctx):
    from services.integrations import hooks_install as hooks

    got = hooks.installed(ctx.engram(semantic=False).config.data_dir)
    if args.json:
        emit_json(got)
        return
    if not got:
        print("no integrations installed")
    for key, rec in sorted(got.items()):
        print(f"{rec['target']}\t{rec['agent']}\t{rec.get('path') or key}")


def cmd_mcp(args, ctx):
    if args.what == "token":
        from services.integrations.mcp import transports

        token = transports.ensure_token(ctx.engram(semantic=False).config.data_dir)
        if args.json:
            emit_json({"token": token})
        else:
            print(token)
        return 0
    if not args.agent:
        raise ValueError("say which agent's memory to serve: engram mcp --agent SLUG")
    if args.http:
        from services.integrations.mcp import transports

        transports.parse_listen(args.http)  # refuse a non-loopback address before loading
        eng = ctx.engram(semantic=False)
        _served_agent(eng, args.agent, args.create)
        from app.serve_sync import syncing

        with syncing(eng, args.sync_every, at_start=False):
            transports.serve_http(eng, args.agent, args.http, warm_up=not args.keyword)
        return 0
    # stdio: the client's `initialize` is answered first (services/integrations/
    # mcp/fast_start.py), then the store opens and the SDK loads; the model and Chroma load
    # in the background after that, recall is keyword-only until they are ready
    from app.settings import store_config
    from services.integrations.mcp.fast_start import Relay, refuse_missing_agent

    cfg = store_config(ctx.data_dir, semantic=False)
    # a removed agent fails here, before the client is told it is connected
    if not args.create and not refuse_missing_agent(cfg.database_url, args.agent):
        _served_agent(ctx.engram(semantic=False), args.agent, args.create)
    relay = Relay(cfg.data_dir, args.agent)
    relay.start()
    try:
        eng = ctx.engram(semantic=False)
        _served_agent(eng, args.agent, args.create)
        from app.serve_sync import syncing
        from services.integrations.mcp import transports

        with syncing(eng, args.sync_every, at_start=False):
            transports.serve_stdio(eng, args.agent, warm_up=not args.keyword)
    finally:
        relay.finish()
    return 0


def _served_agent(eng: Engram, slug: str, create: bool) -> None:
    """A typo must not become a new, empty agent that a client then writes into."""
    from services.errors import NotFound

    if create:
        eng.agent(slug, create=True)
        return
    try:
        eng.agent(slug)
    except NotFound:
        known = ", ".join(a.slug for a in eng.agents(with_counts=False)) or "none yet"
        raise NotFound(
            f"no agent {slug!r} (agents: {known}); pass --create to make it, or "
            "`engram hooks install` for a client"
        ) from None


def cmd_hook_run(args, ctx):
    """Fast path: no model load; vectors are added later by the app or `verify --repair`.
    Agents hide a hook's stderr, so each run also leaves one line in ``<data>/hook.log``."""
    from services.integrations import hook_runtime

    if args.target == "claude-code-context":
        return _prompt_context(args, ctx)
    t0 = time.perf_counter()
    eng = ctx.engram(semantic=False)
    hook: dict = {}
    try:
        hook = hook_runtime.read_hook_input(sys.stdin)
        if not hook_runtime.has_transcript(hook):
            hook_runtime.log_hook_run(
                eng.config.data_dir,
                args.target,
                args.agent,
                hook.get("session_id"),
                "nothing to do (no transcript)",
            )
            return 0
        mem = eng.agent(args.agent, create=True, kind=args.target)
        rep = hook_runtime.run_hook(mem, hook)
    except Exception as exc:
        hook_runtime.log_hook_run(
            eng.config.data_dir, args.target, args.agent, hook.get("session_id"), f"error: {exc}"
        )
        raise
    ms = (time.perf_counter() - t0) * 1000
    data = {
        k: getattr(rep, k, None)
        for k in ("session_id", "already_processed", "turns", "episodes_added", "facts_added")
    }
    data["ms"] = round(ms, 1)
    state = (
        "already ingested"
        if data["already_processed"]
        else f"{data['turns']} turns, {data['facts_added']} facts, {data['episodes_added']} episodes"
    )
    hook_runtime.log_hook_run(
        eng.config.data_dir, args.target, args.agent, data["session_id"], f"{state} in {ms:.0f} ms"
    )
    if args.json:
        emit_json(data)
    else:
        print(f"engram: session {data['session_id']}: {state} ({ms:.0f} ms)", file=sys.stderr)


def _prompt_context(args, ctx):
    """UserPromptSubmit: what Claude Code adds to the prompt is this command's stdout. A
    failure prints nothing (the prompt goes on without memory) and is logged."""
    from services.integrations import hook_runtime
    from services.search.context import build_context

    # hybrid, as the resident daemon (`engram serve`, which `hooks install` installs as a
    # user service) answers it: the same prompt gets the same block either way. Here, when
    # no daemon runs, that costs loading the model (1-3 s) on the prompt.
    eng = ctx.engram()
    try:
        prompt = hook_runtime.read_prompt_input(sys.stdin)
        mem = eng.agent(args.agent)
        text = (
            build_context(mem, prompt, budget=args.budget, reader="hook context")
            if prompt.strip()
            else ""
        )
    except Exception as exc:
        hook_runtime.log_hook_run(
            eng.config.data_dir, args.target, args.agent, None, f"error: {exc}"
        )
        return 0
    sys.stdout.write(text)
    return 0


def cmd_context(args, ctx):
    from services.search.context import build_context

    eng = ctx.engram()
    mem = eng.agent(args.agent)
    text = build_context(mem, args.query, budget=args.budget)
    if args.json:
        from services.search.context import token_counter

        emit_json(
            {
                "agent": mem.slug,
                "budget": args.budget,
                "tokens": token_counter(mem)(text),
                "context": text,
            }
        )
    else:
        sys.stdout.write(text)


def cmd_sync(args, ctx):
    from services.interop.sync import sync_workspace
    from services.interop.writeback import StoreBehindLinks, has_links, write_back

    if args.status or args.server or not args.agent:
        from app.commands.teamstore import cmd_server_sync

        return cmd_server_sync(args, ctx)
    mem = ctx.engram().agent(args.agent)
    if not mem.info.workspace and has_links(mem):  # imported agent memory files (writeback.py)
        try:
            rep = write_back(mem, prefer=args.prefer, dry_run=args.dry_run)
        except StoreBehindLinks as exc:  # a restored backup: nothing written
            from app.commands.core import _refused

            return _refused(args, exc)
    else:
        rep = sync_workspace(
            mem, direction=args.direction, prefer=args.prefer, dry_run=args.dry_run
        )
    if args.json:
        emit_json(rep.to_json())
    else:
        for c in rep.changes:
            print(c)
        for k in rep.conflicts:
            print(
                f"CONFLICT {k.file} fact {k.fact_id}: {k.reason}\n"
                f"  file:   {k.file_text if k.file_text is not None else '(removed)'}\n"
                f"  engram: {k.engram_text if k.engram_text is not None else '(removed)'}"
            )
        print(
            f"pulled {rep.pulled}, pushed {rep.pushed}, conflicts {len(rep.conflicts)}"
            + (" (dry run: nothing written)" if args.dry_run else "")
        )
        if rep.conflicts:
            print("resolve by editing either side to match, or sync with --prefer engram|file")
    return 4 if rep.conflicts else 0


def cmd_archive_export(args, ctx):
    from services.interop.archive import export_archive

    eng = ctx.engram(semantic=bool(args.vectors))
    counts = export_archive(
        eng.agent(args.agent), Path(args.out).expanduser(), vectors=args.vectors, force=args.force
    )
    if args.json:
        emit_json({"path": str(Path(args.out).expanduser()), "counts": counts})
        return
    print(f"{args.out}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))


def cmd_archive_import(args, ctx):
    from services.interop.archive import import_archive

    rep = import_archive(ctx.engram(), Path(args.path).expanduser(), slug=args.agent)
    if args.json:
        emit_json(rep.to_json())
        return
    print(
        f"imported agent {rep.agent}: "
        + ", ".join(f"{n} {k}" for k, n in rep.counts.items())
        + f"; ids {'renumbered' if rep.ids_remapped else 'kept'}; vectors: {rep.vectors} "
        f"from the archive, {rep.embedded} embedded"
        + (
            f", {rep.embedded_later} left for `engram verify --repair`"
            if rep.embedded_later
            else ""
        )
        + (f"; {rep.blocked} blocked by forget rules" if rep.blocked else "")
        + (f"; {rep.skipped_lines} bad line(s) skipped" if rep.skipped_lines else "")
    )


def cmd_demo(args, ctx):
    from app.commands.progress import interruptible, progress
    from services import seed_demo

    eng = ctx.engram()
    with interruptible() as stop, progress("demo agents", args) as shown:
        added = seed_demo(eng, progress=shown, cancelled=stop)
    if stop.requested:
        kept = [slug for slug, n in added.items() if n]
        print(
            f"engram: interrupted: kept {len(kept)} whole demo agent(s)"
            + (f" ({', '.join(kept)})" if kept else "")
            + "; `engram demo` adds the rest",
            file=sys.stderr,
        )
        return 130
    if args.json:
        emit_json({"added": added})
        return 0
    if not any(added.values()):
        print("the demo agents are already here: nothing added")
    for a in eng.agents():
        print(f"{a.slug}\t{a.fact_count} facts")

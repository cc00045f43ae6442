"""`engram stats`: per agent, what the app's Statistics view counts."""

from __future__ import annotations

from app.cli import emit_json


def register(sub) -> None:
    p = sub.add_parser(
        "stats",
        help="per agent: facts by status, pinned, episodes, tokens of memory.md, last compile",
    )
    p.add_argument("--agent", help="only this agent (default: every agent)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_stats)


def agent_summary(eng, slug: str) -> dict:
    from services import agent_stats, latest_layers

    mem = eng.agent(slug)
    s = agent_stats(mem)
    layers = latest_layers(mem)
    memory = layers.get("memory")
    compiled = [x.compiled_at for x in layers.values() if x.compiled_at is not None]
    return {
        "agent": slug,
        "facts": s.total,
        "by_status": s.by_status,
        "pinned": s.pinned,
        "episodes": s.episodes,
        "memory_md_tokens": memory.tokens if memory else None,
        "last_compile": max(compiled).isoformat(timespec="seconds") if compiled else None,
    }


def cmd_stats(args, ctx) -> int:
    eng = ctx.engram(semantic=False)
    slugs = [args.agent] if args.agent else [a.slug for a in eng.agents(with_counts=False)]
    rows = [agent_summary(eng, slug) for slug in slugs]
    if args.json:
        emit_json(rows)
        return 0
    if not rows:
        print("no agents yet")
    for r in rows:
        statuses = ", ".join(f"{n} {k}" for k, n in sorted(r["by_status"].items())) or "none"
        tokens = r["memory_md_tokens"]
        print(
            f"{r['agent']}: {r['facts']} facts ({statuses}), {r['pinned']} pinned, "
            f"{r['episodes']} episodes, memory.md "
            + (f"{tokens} tokens" if tokens is not None else "not compiled")
            + f", last compile {r['last_compile'] or 'never'}"
        )
    return 0

"""Forget commands: ``engram forget``, ``engram rules``, ``engram receipts``, ``engram pii``."""

from __future__ import annotations

import argparse
import contextlib
import sys
from datetime import date, datetime

from app.cli import emit_json
from app.commands.help_text import flag, with_json


def _date(s: str) -> datetime:
    try:
        return (
            datetime.fromisoformat(s)
            if "T" in s or " " in s
            else datetime.combine(date.fromisoformat(s), datetime.min.time())
        )
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r}: use YYYY-MM-DD (or YYYY-MM-DDTHH:MM)") from None


def register(sub) -> None:
    p = sub.add_parser(
        "forget",
        help="erase memories everywhere (preview first; --yes to do it)",
        description="Without --yes this only shows what would be removed from "
        "each place. With --yes it removes it, adds a forget rule and prints "
        "the receipt.",
    )
    p.add_argument("--agent")
    flag(p, "--all-agents", help="every agent: with --matching TEXT, or alone to forget everything")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--fact", type=int, action="append", metavar="ID", help="one fact (repeatable)")
    g.add_argument(
        "--matching",
        metavar="TEXT",
        help="every fact holding the phrase TEXT (whole words, in order) or saying it otherwise",
    )
    g.add_argument(
        "--entity", metavar="NAME", help="a person, project…: its facts and every mention"
    )
    g.add_argument("--before", type=_date, metavar="DATE", help="everything created before DATE")
    flag(g, "--all", help="all of the agent's memory")
    g.add_argument(
        "--verify",
        metavar="TEXT",
        action="append",
        help="scan every store and file for TEXT (and each part of a known name); exit 1 while any remains",
    )
    flag(p, "--keyword-only", help="--matching: no semantic matches")
    flag(
        p,
        "--include-partial",
        help="--matching a known name: also forget facts naming only part of it",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="--matching: cosine for semantic matches (default 0.8)",
    )
    p.add_argument(
        "--exclude",
        type=int,
        action="append",
        default=[],
        metavar="ID",
        help="leave this candidate out (after reviewing the preview)",
    )
    p.add_argument("--label", help="the forget rule's label (default: the date)")
    flag(p, "--no-rule", help="do not block this content in future")
    flag(p, "--rule", help="add a forget rule for date/agent scopes too")
    flag(p, "--dry-run", help="preview only, even with --yes")
    flag(p, "--yes", help="do it")
    with_json(p, cmd_forget)

    p = sub.add_parser("rules", help="forget rules: content that is never stored again")
    rs = p.add_subparsers(dest="rules_cmd", required=True)
    r = rs.add_parser("list", help="the rules, newest last (terms are kept hashed, never as text)")
    with_json(r, cmd_rules_list)
    r = rs.add_parser("remove", help="drop a rule: its words may be stored again")
    r.add_argument("id", type=int, help="the rule's id (`engram rules list`)")
    with_json(r, cmd_rules_remove)

    p = sub.add_parser("receipts", help="what each forget removed (counts and hashes, no content)")
    with_json(p, cmd_receipts)

    p = sub.add_parser("pii", help="show or set an agent's personal-data policy")
    p.add_argument("--agent", required=True)
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "policy",
        nargs="?",
        choices=["allow", "ask", "deny"],
        help="allow: keep personal data; ask: hold it for review; deny: refuse it (no value: show the policy)",
    )
    p.add_argument(
        "--kind",
        choices=["email", "phone", "address", "card", "national-id"],
        help="set the policy for one kind only",
    )
    p.set_defaults(func=cmd_pii)


def _scope(args):
    from services.forget.service import SEMANTIC_THRESHOLD, ForgetScope

    rule = False if args.no_rule else (True if args.rule else None)
    return ForgetScope(
        agent=args.agent,
        fact_ids=tuple(args.fact or ()),
        matching=args.matching,
        before=args.before,
        all=args.all,
        all_agents=args.all_agents,
        semantic=not args.keyword_only,
        threshold=args.threshold if args.threshold is not None else SEMANTIC_THRESHOLD,
        exclude_ids=tuple(args.exclude),
        rule=rule,
        label=args.label,
        include_partial=args.include_partial,
    )


def _print_preview(pv) -> None:
    c = pv.counts()
    print("This forget would remove:")
    for ap in pv.agents:
        ac = ap.counts()
        print(
            f"  agent {ap.slug}: {ac['facts']} fact(s), {ac['history_events']} history "
            f"event(s), {ac['fts_entries']} FTS entr(ies), {ac['vectors']} vector(s), "
            f"{ac['episodes']} episode(s), {ac['session_logs']} session log(s), "
            f"{ac['compiled_layers']} compiled layer(s) + {ac['layer_files']} layer file(s), "
            f"{ac['workspace_entries']} workspace entr(ies) in {ac['workspace_files']} "
            f"file(s), {ac['exports']} export(s)"
        )
        for f in ap.facts[:200]:
            why = f["why"] + (f" {f['score']:.2f}" if f.get("score") is not None else "")
            print(f"    #{f['id']} [{why}] {f['content'][:100]}")
        if len(ap.facts) > 200:
            print(f"    … and {len(ap.facts) - 200} more")
        _print_partial(ap.partial)
        for e in ap.episodes[:20]:
            print(f"    episode {e['id']} {e['day']}: {e['summary'][:80]}")
        for ed in ap.native:
            _print_native(ed)
        for ed in ap.workspace + ap.exports + ap.layer_files:
            what = (
                "delete file"
                if ed.new_data is None and not ed.problem
                else f"{len(ed.removed)} {ed.kind}"
            )
            print(f"    {ed.path}: {ed.problem or what}")
    for b in pv.backups:
        print(f"  store backup holding it (deleted): {b}")
    for n in pv.notes:
        if not n.startswith("agent's file: "):  # listed above, with their lines
            print(f"  note: {n}")
    if pv.empty:
        print("  nothing matches.")
    else:
        print(f"Total: {sum(v for v in c.values())} item(s). Run again with --yes to forget.")


def _print_partial(partial: list[dict]) -> None:
    if not partial:
        return
    print("    also mentions part of the name (not forgotten unless --include-partial / ticked):")
    for f in partial[:50]:
        print(f"      #{f['id']} [{f['why']}] {f['content'][:100]}")
    if len(partial) > 50:
        print(f"      … and {len(partial) - 50} more")


def _print_native(ed) -> None:
    """An agent's own file: which lines the forget touches, or why it cannot."""
    if ed.problem:
        print(f"    {ed.path}: {ed.problem}")
        return
    where = f"line(s) {', '.join(map(str, ed.lines[:30]))}" if ed.lines else ""
    what = f"{len(ed.removed)} {ed.kind}" + (f" at {where}" if where else "")
    backup = ", backup kept (forgotten lines replaced by a marker)" if ed.user_owned else ""
    print(f"    {ed.path} ({ed.fmt or 'native file'}): rewrite {what}{backup}")
    for r in ed.removed[:10]:
        print(f"      - {r}")


def cmd_forget(args, ctx):
    from services.errors import InvalidInput
    from services.forget.service import ForgetService

    eng = ctx.engram()
    svc = ForgetService(eng)
    if not _finish_interrupted(svc) and not args.verify:
        return 1
    if args.verify:
        if args.yes or args.all_agents:
            raise InvalidInput("--verify only checks; it takes TEXT and optionally --agent")
        rep = svc.verify(args.verify, agent=args.agent, each_word=True)
        if args.json:
            emit_json(rep.to_json())
        else:
            for place, detail in rep.remaining:
                print(f"remains: {place}: {detail}")
            for place, detail in rep.shared:
                print(f"held by other agents (not this one's): {place}: {detail}")
            for g in rep.guarantees:  # a team store: what the queries could prove
                print(f"team store: {g}")
            for place, what in rep.checked:
                print(f"{place}: {what}")
            print(
                f"scanned {rep.files_scanned} file(s), {rep.bytes_scanned} bytes: "
                + ("nothing remains" if rep.ok else f"{len(rep.remaining)} place(s) remain")
            )
        return 0 if rep.ok else 1
    scope = _scope(args)
    if args.entity:
        from services.forget.entity_scope import expand_entity

        scope = expand_entity(eng, scope, args.entity)
    pv = svc.preview(scope)
    if not args.yes or args.dry_run:
        if args.json:
            emit_json(pv.to_json())
        else:
            _print_preview(pv)
        return 0
    if pv.empty:
        print("engram: nothing to forget", file=sys.stderr)
        return 0
    receipt = svc.execute(scope, preview=pv)
    _with_roles(eng, [receipt])
    if args.json:
        emit_json(receipt)
    else:
        _print_receipt(receipt)
    return 0 if receipt["counts"].get("remaining_after_verify", 0) == 0 else 1


def _finish_interrupted(svc) -> bool:
    """Any forget command first finishes a forget that was killed half way (its plan was
    journaled before its first change). False: it could not; its receipt says what is left."""
    try:
        done = svc.resume_pending()
    except Exception as exc:  # said with the receipt, which stays "incomplete"
        print(f"engram: an interrupted forget could not be finished: {exc}", file=sys.stderr)
        for r in svc.receipts():
            if isinstance(r["counts"].get("incomplete"), list):
                _print_receipt(r)
        return False
    if done is not None:  # on stderr: a --json answer on stdout stays one document
        with contextlib.redirect_stdout(sys.stderr):
            print(f"finished an interrupted forget (receipt {done['id']}):")
            _print_receipt(done)
    return True


def _with_roles(engram, recs: list[dict]) -> None:
    """On a team store: who forgot, as the server recorded it (the database role)."""
    from services.teamstore import receipt_roles

    roles = receipt_roles(engram.db, [r["id"] for r in recs])
    for r in recs:
        if r["id"] in roles:
            r["by_role"], erased = roles[r["id"]]
            if erased is not None:
                r["audit_events_erased"] = erased


def _print_receipt(r: dict) -> None:
    c = r["counts"]
    by = f", by {r['by_role']} (database role)" if r.get("by_role") else ""
    if "audit_events_erased" in r:  # the server's own count, not the client's
        by += f", {r['audit_events_erased']} audit event(s) erased"
    print(
        f"receipt {r['id']} at {r['created_at']} ({r['scope'].get('kind')}"
        f"{', agent ' + r['agent'] if r.get('agent') else ''}{by}):"
    )
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if not isinstance(v, list)))
    for k, v in sorted(c.items()):
        if isinstance(v, list):  # files: backups kept, files not erased (paths, never text)
            for item in v:
                print(f"  {k.replace('_', ' ')}: {item}")
    for n in r.get("notes", []):
        print(f"  note: {n}")


def cmd_rules_list(args, ctx):
    from services.forget.service import ForgetService

    rules = ForgetService(ctx.engram(semantic=False)).rules()
    if args.json:
        emit_json([r.to_json() for r in rules])
        return
    if not rules:
        print("no forget rules")
    for r in rules:
        print(
            f"{r.id:>4}  {r.created_at}  {r.agent or 'all agents':<12} {r.terms} term(s)  {r.label}"
        )


def cmd_rules_remove(args, ctx):
    from services.forget.service import ForgetService

    ForgetService(ctx.engram(semantic=False)).remove_rule(args.id)
    if args.json:
        emit_json({"removed_rule": args.id})
        return
    print(f"removed rule {args.id}")


def cmd_receipts(args, ctx):
    from services.forget.service import ForgetService

    svc = ForgetService(ctx.engram(semantic=False))
    recs = svc.receipts()
    _with_roles(svc.e, recs)
    if args.json:
        emit_json(recs)
        return
    if not recs:
        print("no forget receipts")
    for r in recs:
        _print_receipt(r)


def cmd_pii(args, ctx):
    from services.ingest.pii import KINDS, validate_policy

    eng = ctx.engram(semantic=False)
    mem = eng.agent(args.agent)
    cur = mem.settings.get("pii") or "allow"
    if args.policy is None:
        if args.json:
            emit_json({"agent": args.agent, "pii": _per_kind(cur, KINDS)})
            return 0
        if isinstance(cur, str):
            print(", ".join(f"{k}: {cur}" for k in KINDS))
        else:
            print(", ".join(f"{k}: {cur.get(k, cur.get('default', 'allow'))}" for k in KINDS))
        return 0
    if args.kind:
        base = dict(cur) if isinstance(cur, dict) else {"default": cur}
        base[args.kind] = args.policy
        new = validate_policy(base)
    else:
        new = validate_policy(args.policy)
    eng.update_agent(args.agent, settings={"pii": new})
    if args.json:
        emit_json({"agent": args.agent, "pii": _per_kind(new, KINDS)})
        return 0
    print(f"{args.agent}: pii {new}")


def _per_kind(policy, kinds) -> dict[str, str]:
    if isinstance(policy, str):
        return {k: policy for k in kinds}
    return {k: policy.get(k, policy.get("default", "allow")) for k in kinds}

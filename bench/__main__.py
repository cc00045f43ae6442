"""``python -m bench all [--quick]`` runs every benchmark, prints a compact table per part and
writes JSON under ``bench/results/``. Parts also run alone:

    python -m bench locomo --data PATH --json OUT
    python -m bench throughput [--texts N]
    python -m bench scale [--sizes 10000,100000]
    python -m bench gui --data-dir D
    python -m bench mcp [--facts 10000] [--semantic]
    python -m bench teamstore [--sizes 10000,100000]
    python -m bench team-check [--writers 2] [--each 40] [--chroma]
    python -m bench redaction
    python -m bench capture [--transcripts] [--samples ../shared/formats/samples] [--verbose]
    python -m bench speed [--quick] [--old REF]   # an old tree vs this one, in rounds
    python -m bench supersession
    python -m bench limits
    python -m bench harness [--examples 5000] [--all]   # the invariant harness, longer
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# benchmarks make fresh stores on purpose: `--data-dir NEW` creates them (the CLI's --init)
os.environ.setdefault("ENGRAM_INIT", "1")
RESULTS = Path(__file__).resolve().parent / "results"
FULL_SIZES = [10_000, 100_000, 1_000_000]
QUICK_SIZES = [10_000]
VECTOR_SIZES = {10_000, 100_000}


def _write(path: Path, data: dict) -> Path:
    from services.store.atomic import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (json.dumps(data, indent=2, default=str) + "\n").encode("utf-8"))
    return path


def _machine() -> dict:
    return {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "loadavg_at_start": os.getloadavg(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


@contextmanager
def _scratch(name: str) -> Iterator[Path]:
    """A temp dir for one benchmark's stores, removed when it ends, however it ends."""
    work = Path(tempfile.mkdtemp(prefix=f"engram-{name}-"))
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _report(file: str, r: dict, table: Callable[[dict], str] | None = None) -> dict:
    """Print the benchmark's table (when it has one) and write its result, with the machine
    it ran on, to bench/results/FILE."""
    if table is not None:
        print(table(r))
    _write(RESULTS / file, r | {"machine": _machine()})
    return r


def cmd_locomo(args) -> dict:
    from bench import locomo

    data = Path(args.data) if args.data else locomo.DEFAULT_DATA
    if not data.exists():
        raise SystemExit(f"no LoCoMo file at {data} (pass --data PATH)")
    print(f"LoCoMo retrieval on {data}")
    with tempfile.TemporaryDirectory(prefix="engram-locomo-") as tmp:
        r = locomo.run(
            data,
            Path(tmp),
            conversations=args.conversations,
            held_out=tuple(args.held_out.split(",")) if args.held_out else locomo.TEST,
            ablations=not (getattr(args, "quick", False) or getattr(args, "no_ablations", False)),
        )
    r["data"] = str(data)
    print(locomo.table(r))
    print(
        f"queries {r['queries']} over {r['turns']} turns; dropped {r['dropped']['questions']} "
        f"questions with no resolvable evidence and {r['dropped']['evidence_ids']} "
        f"unresolvable evidence ids"
    )
    for key, f in r["fidelity"].items():
        print(
            f"HNSW fidelity ({key}): top-10 differs from exact cosine for {f['differ']}/"
            f"{f['queries']} queries ({f['fraction']:.4f}); as a set {f['differ_as_set']}; "
            f"rank-1 gold lost {f['gold_rank1_lost']}"
        )
    out = Path(args.json) if getattr(args, "json", None) else RESULTS / "locomo.json"
    _write(out, r | {"machine": _machine()})
    print(f"→ {out}")
    return r


def cmd_rerank_scale(args) -> dict:
    from bench import rerank_scale

    print(f"The second ranking stage at {args.facts:,d} facts")
    with tempfile.TemporaryDirectory(prefix="engram-rerank-") as tmp:
        r = rerank_scale.run(Path(tmp), facts=args.facts, queries=args.queries)
    print(rerank_scale.table(r))
    _write(RESULTS / "rerank_scale.json", r | {"machine": _machine()})
    return r


def cmd_throughput(args) -> dict:
    from bench import throughput
    from bench.synth import Generator

    gen = Generator(5)
    texts = [gen.fact(i)[0] for i in range(args.texts)]
    print(f"Embedding throughput on {len(texts)} texts")
    r = throughput.run(texts)
    print(throughput.table(r))
    _write(RESULTS / "throughput.json", r | {"machine": _machine()})
    return r


def cmd_scale(args) -> list:
    from bench import scale

    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else FULL_SIZES
    work = Path(args.work or tempfile.mkdtemp(prefix="engram-scale-"))
    print(f"Scale: {', '.join(f'{n:,d}' for n in sizes)} facts (work dir {work})")
    rows = scale.run(
        sizes,
        work,
        VECTOR_SIZES,
        keep=getattr(args, "keep", None),
        forget_timeout=args.forget_timeout,
        queries=args.queries,
    )
    print(scale.table(rows))
    _write(RESULTS / "scale.json", {"rows": rows, "machine": _machine()})
    return rows


def cmd_scale_step(args) -> None:
    from bench import scale

    print(
        json.dumps(scale.step(args.size, Path(args.dir), args.vectors, queries=args.queries)),
        flush=True,
    )


def cmd_team_check(args) -> dict:
    from bench import team_check

    row = team_check.run(args.writers, args.each, args.chroma)
    print(json.dumps(row, indent=2))
    _write(RESULTS / "team_check.json", {"row": row, "machine": _machine()})
    return row


def cmd_scale_forget(args) -> None:
    from bench import scale

    print(json.dumps(scale.forget_step(Path(args.dir))), flush=True)


def cmd_teamstore(args) -> list:
    from bench import teamstore

    sizes = [int(s) for s in args.sizes.split(",")]
    vec = {int(s) for s in args.vector_sizes.split(",") if s}
    work = Path(tempfile.mkdtemp(prefix="engram-teambench-"))
    print(f"Team store vs local: {', '.join(f'{n:,d}' for n in sizes)} facts")
    stores = tuple(s for s in args.stores.split(",") if s)
    rows = teamstore.run(sizes, vec, work, queries=args.queries, stores=stores)
    print(teamstore.table(rows))
    _write(RESULTS / "teamstore.json", {"rows": rows, "machine": _machine()})
    import shutil

    shutil.rmtree(work, ignore_errors=True)
    return rows


def cmd_gui(args) -> dict:
    from bench import gui

    r = gui.run(Path(args.data_dir))
    print(f"GUI first paint: {json.dumps(r)}")
    _write(RESULTS / "gui.json", r | {"data_dir": str(args.data_dir), "machine": _machine()})
    return r


def cmd_mcp(args) -> dict:
    from bench import mcp_latency

    with _scratch("mcp") as work:
        r = mcp_latency.run(work, facts=args.facts, queries=args.queries, semantic=args.semantic)
    return _report("mcp.json", r, mcp_latency.table)


def cmd_redaction(args) -> dict:
    from bench import redaction

    return _report("redaction.json", redaction.run(), redaction.table)


def cmd_speed(args) -> dict:
    from bench import speed

    if args.keyword_store:
        r = speed.keyword_only(
            Path(args.keyword_store), args.slug, args.queries, args.old, args.hybrid
        )
        return _report("speed-keyword.json", r)
    with _scratch("speed") as work:
        r = speed.run(args.quick, work, args.old)
    return _report("speed-quick.json" if args.quick else "speed.json", r)


def cmd_supersession(args) -> dict:
    from bench import supersession

    with _scratch("supersession") as work:
        r = supersession.run_in(work)
    return _report("supersession.json", r, supersession.table)


def cmd_limits(args) -> dict:
    from bench import limits

    with _scratch("limits") as work:
        r = limits.run(work, entities=args.entities)
    return _report("limits.json", r, limits.table)


def cmd_harness(args) -> dict:
    from bench import harness

    r = harness.run(examples=args.examples, every_rule=args.all)
    return _report("harness.json", r, harness.table)


def cmd_all(args) -> None:
    import shutil

    t0 = time.perf_counter()
    summary: dict = {"quick": args.quick, "machine": _machine()}
    args.json = None
    args.conversations = 2 if args.quick else None
    args.held_out = None if args.quick else "conv-42,conv-43,conv-44"
    try:
        summary["locomo"] = cmd_locomo(args)
    except SystemExit as exc:  # no data file: the other parts still run
        print(f"LoCoMo skipped: {exc}")
        summary["locomo"] = {"skipped": str(exc)}
    print()
    args.texts = 100 if args.quick else 1000
    summary["throughput"] = cmd_throughput(args)
    print()
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    work = Path(tempfile.mkdtemp(prefix="engram-scale-"))
    args.sizes, args.work, args.keep = ",".join(map(str, sizes)), str(work), sizes[-1]
    args.forget_timeout = 300
    args.queries = 50 if args.quick else 200
    summary["scale"] = cmd_scale(args)
    print()
    args.data_dir = work / f"scale-{sizes[-1]}"
    print(f"GUI at {sizes[-1]:,d} facts")
    summary["gui"] = cmd_gui(args) | {"facts_in_store": sizes[-1]}
    shutil.rmtree(work, ignore_errors=True)
    print()
    args.facts, args.semantic = 10_000, False
    summary["mcp"] = cmd_mcp(args)
    print()
    summary["redaction"] = cmd_redaction(args)
    print()
    args.examples, args.all = (200 if args.quick else 5000), False
    summary["harness"] = cmd_harness(args)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    name = "all-quick.json" if args.quick else "all.json"
    _write(RESULTS / name, summary)
    print(f"\nall benchmarks: {summary['seconds']} s → {RESULTS / name}")


def cmd_capture(args) -> dict:
    from bench import capture

    r = capture.run()
    print("Capture quality on the gold set (bench/capture_gold)")
    print(capture.table(r))
    if args.verbose:
        print(capture.errors(r))
    if args.transcripts:
        from bench import capture_pairs, capture_sessions

        for key, title, part, run in (
            (
                "transcripts",
                "Session capture per agent (bench/capture_gold/sessions)",
                capture_sessions,
                capture_sessions.run,
            ),
            (
                "pairs",
                "Value changes and opposites (bench/capture_gold/pairs, real write pipeline)",
                capture_pairs,
                capture_pairs.run_fresh,
            ),
        ):
            result = run()
            print(f"\n{title}")
            print(part.table(result))
            if args.verbose:
                print(part.errors(result))
            r[key] = result
    if args.samples:
        folder = Path(args.samples)
        r["samples"] = capture.samples(folder)
        for name, s in r["samples"].items():
            if "refused" in s:
                print(f"\n{name}: not imported: {s['refused']}")
                continue
            print(f"\n{name} ({s['format']}): {len(s['facts'])} facts")
            for f in s["facts"]:
                print("  - " + f.replace("\n", " ⏎ ")[:160])
    out = Path(args.json) if args.json else RESULTS / "capture.json"
    _write(out, r | {"machine": _machine()})
    print(f"→ {out}")
    return r


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench")
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("all", help="every benchmark")
    a.add_argument("--quick", action="store_true", help="small sizes (under 2 minutes)")
    a.add_argument("--data", help="LoCoMo JSON (default ../shared/bench/locomo/locomo_dev.json)")
    a.set_defaults(func=cmd_all)
    lo = sub.add_parser("locomo", help="retrieval quality on a LoCoMo-format file")
    lo.add_argument("--data")
    lo.add_argument("--json", help="write results here (default bench/results/locomo.json)")
    lo.add_argument("--conversations", type=int, help="only the first N conversations")
    lo.add_argument(
        "--held-out", help="comma-separated sample ids reported apart (default: locomo.TEST)"
    )
    lo.add_argument("--no-ablations", action="store_true", help="the systems side by side only")
    lo.set_defaults(func=cmd_locomo)
    rs = sub.add_parser("rerank-scale", help="the second ranking stage's cost at 100k facts")
    rs.add_argument("--facts", type=int, default=100_000)
    rs.add_argument("--queries", type=int, default=300)
    rs.set_defaults(func=cmd_rerank_scale)
    t = sub.add_parser("throughput", help="Engram embedder vs Chroma's default function")
    t.add_argument("--texts", type=int, default=1000)
    t.set_defaults(func=cmd_throughput)
    s = sub.add_parser("scale", help="ingest/search/compile/forget at 10k..1M facts")
    s.add_argument("--sizes", help="comma-separated, default 10000,100000,1000000")
    s.add_argument("--work", help="work directory (default: a temp dir)")
    s.add_argument("--queries", type=int, default=200, help="searches timed per size")
    s.add_argument(
        "--forget-timeout",
        type=float,
        default=300,
        help="cut forget off at 100k+ facts after this many seconds ('> N')",
    )
    s.set_defaults(func=cmd_scale, keep=None)
    ts = sub.add_parser(
        "teamstore", help="keyword/hybrid p50/p95: PostgreSQL + pgvector / Chroma server"
    )
    ts.add_argument("--sizes", default="10000,100000")
    ts.add_argument("--vector-sizes", default="10000,100000")
    ts.add_argument("--queries", type=int, default=100)
    ts.add_argument("--stores", default="local,pgvector,chroma", help="local,pgvector,chroma")
    ts.set_defaults(func=cmd_teamstore)
    tc = sub.add_parser(
        "team-check", help="the scripted team flow: 2 writers x 40, recall, migrate, forget"
    )
    tc.add_argument("--writers", type=int, default=2)
    tc.add_argument("--each", type=int, default=40)
    tc.add_argument("--chroma", action="store_true")
    tc.set_defaults(func=cmd_team_check)
    st = sub.add_parser("scale-step", help=argparse.SUPPRESS)
    st.add_argument("--size", type=int, required=True)
    st.add_argument("--dir", required=True)
    st.add_argument("--vectors", action="store_true")
    st.add_argument("--queries", type=int, default=200)
    st.set_defaults(func=cmd_scale_step)
    sf = sub.add_parser("scale-forget", help=argparse.SUPPRESS)
    sf.add_argument("--dir", required=True)
    sf.set_defaults(func=cmd_scale_forget)
    g = sub.add_parser("gui", help="start-up to first painted page")
    g.add_argument("--data-dir", required=True)
    g.set_defaults(func=cmd_gui)
    rd = sub.add_parser("redaction", help="secret corpora caught, ordinary text untouched")
    rd.set_defaults(func=cmd_redaction)
    mc = sub.add_parser("mcp", help="recall over MCP stdio vs the same search in-process")
    mc.add_argument("--facts", type=int, default=10_000)
    mc.add_argument("--queries", type=int, default=200)
    mc.add_argument("--semantic", action="store_true", help="hybrid search (loads the model)")
    mc.set_defaults(func=cmd_mcp)
    cp = sub.add_parser("capture", help="precision/recall of capture on the gold set")
    cp.add_argument("--samples", help="also import the real samples in this folder (read only)")
    cp.add_argument("--transcripts", action="store_true", help="also score session capture")
    cp.add_argument("--verbose", action="store_true", help="list false positives and misses")
    cp.add_argument("--json")
    cp.set_defaults(func=cmd_capture)
    sp = sub.add_parser("speed", help="an old tree vs this one, in rounds, results checked")
    sp.add_argument("--quick", action="store_true", help="10k only, 3 rounds (≤ 10 minutes)")
    sp.add_argument(
        "--old", help="git ref of the old tree (default: merge-base with main, or HEAD~1)"
    )
    sp.add_argument("--queries", type=int, default=300, help="--keyword-store: queries a side")
    sp.add_argument("--keyword-store", help="only keyword search, old vs new, on this store")
    sp.add_argument("--slug", default="scale", help="--keyword-store: the agent to search")
    sp.add_argument("--hybrid", action="store_true", help="--keyword-store: hybrid search too")
    sp.set_defaults(func=cmd_speed)
    su = sub.add_parser("supersession", help="merge/supersede/conflict/keep confusion matrix")
    su.set_defaults(func=cmd_supersession)
    li = sub.add_parser("limits", help="hostile inputs: time and peak RSS of each, refused/capped")
    li.add_argument("--entities", type=int, default=10_000, help="memory.jsonl size to import")
    li.set_defaults(func=cmd_limits)
    hx = sub.add_parser("harness", help="the invariant harness: many random sequences")
    hx.add_argument("--examples", type=int, default=5000, help="sequences, split over the files")
    hx.add_argument("--all", action="store_true", help="also the rules in KNOWN_OPEN")
    hx.set_defaults(func=cmd_harness)
    args = p.parse_args(argv)
    args.func(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

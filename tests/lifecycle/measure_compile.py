"""Measure compile (and gc) time on large stores; run by hand, not collected by pytest.

    .venv/bin/python tests/lifecycle/measure_compile.py            # 10k and 100k facts
    .venv/bin/python tests/lifecycle/measure_compile.py 5000 --transcript-mb 200

Facts are bulk-inserted (rows + FTS through the triggers; no vectors, compile does not read
them) into a keyword-only store in a temp dir, spread over 60 days and 9 categories with
pinned ones, plus a week of episodes. Times are wall-clock seconds of
``CompileService.compile``, ``run_gc(dry_run=True)`` and a real ``run_gc``; the peak RSS is the process's.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from models import Fact
from services.config import StoreConfig
from services.engram import Engram
from services.lifecycle.compile import CompileService
from services.lifecycle.config import LifecycleConfig
from services.lifecycle.gc import run_gc
from services.store.text import content_hash

CATS = ["pref", "env", "fact", "proj:alpha", "proj:beta", "rule", "task", "tmp", "rel:sam"]
WORDS = (
    "deploy postgres redis kafka cluster staging review branch release latency cache "
    "budget invoice parser schema migration token editor shell laptop python rust "
    "coffee meeting tuesday backup retention alert dashboard"
).split()


def populate(memory, n: int, now: datetime, seed: int = 7) -> None:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        created = now - timedelta(days=rnd.randrange(60), minutes=rnd.randrange(1440))
        text = f"Memory {i}: " + " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(6, 18)))
        rows.append(
            {
                "agent": memory.agent_id,
                "content": text,
                "content_hash": content_hash(text),
                "category": CATS[i % len(CATS)],
                "importance": round(rnd.random(), 3),
                "pinned": i % 997 == 0,
                "status": "active",
                "source": "bench",
                "created_at": created,
                "updated_at": created,
                "event_date": created.date(),
                "metadata": {"tier": "short" if i % 3 else "long"},
                "tags": [],
                "memory_type": "semantic",
                "confidence": 0.8,
                "access_count": rnd.randrange(5),
            }
        )
    with memory.db.atomic():
        for s in range(0, n, 1000):
            Fact.insert_many(rows[s : s + 1000]).execute()
    for d in range(7):
        for k in range(4):
            memory.add_episode(
                (now - timedelta(days=d)).date(),
                f"Session {d}-{k}: worked on " + " ".join(rnd.sample(WORDS, 8)),
                time=f"{1 + k * 2}:15 PM",
            )


def measure(n: int) -> dict:
    now = datetime(2026, 3, 10, 15, 0)
    with tempfile.TemporaryDirectory() as tmp:
        eng = Engram.open(StoreConfig(data_dir=Path(tmp), semantic=False))
        mem = eng.agent("bench", create=True)
        t0 = time.perf_counter()
        populate(mem, n, now)
        fill = time.perf_counter() - t0
        cfg = LifecycleConfig()
        svc = CompileService(mem, cfg)
        t0 = time.perf_counter()
        res = svc.compile(now=now)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        svc.compile(now=now)
        second = time.perf_counter() - t0
        t0 = time.perf_counter()
        rep = run_gc(mem, now=now + timedelta(days=1), dry_run=True, config=cfg)
        gc_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        real = run_gc(mem, now=now + timedelta(days=1), config=cfg)
        gc_real = time.perf_counter() - t0
        eng.close()
    return {
        "facts": n,
        "insert_s": round(fill, 2),
        "compile_s": round(first, 3),
        "compile_again_s": round(second, 3),
        "gc_dry_run_s": round(gc_s, 3),
        "gc_s": round(gc_real, 3),
        "gc_actions": len(rep.actions),
        "gc_counts": {
            k: getattr(real, k) for k in ("decayed", "expired", "archived", "evicted", "promoted")
        },
        "tokens": {k: f"{v.tokens}/{v.budget}" for k, v in res.layers.items()},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def measure_transcript(mb: int) -> dict:
    """A Claude Code-shaped file of ``mb`` MB (mostly tool output): parse time and peak RSS."""
    from services.capture.transcripts import parse_transcript

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "big.jsonl"
        blob = "y" * 4_000  # ~40k lines per 100 MB, like real tool output and progress
        parent, i = None, 0
        with open(p, "w", encoding="utf-8") as fh:
            while fh.tell() < mb * 1024 * 1024:
                for kind, content in (
                    ("user", f"I prefer option {i} for the build."),
                    ("user", [{"type": "tool_result", "content": blob}]),
                ):
                    uid = f"n{i}-{kind}-{len(str(content))}"
                    fh.write(
                        json.dumps(
                            {
                                "type": kind,
                                "uuid": uid,
                                "parentUuid": parent,
                                "sessionId": "big",
                                "timestamp": "2026-03-02T10:00:00Z",
                                "message": {"role": "user", "content": content},
                            }
                        )
                        + "\n"
                    )
                    parent = uid
                i += 1
        size = p.stat().st_size
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        t = parse_transcript(p)
        secs = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "transcript_mb": round(size / 2**20),
        "parse_s": round(secs, 2),
        "messages": len(t.messages),
        "rss_growth_mb": round((after - before) / 1024, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    ap.add_argument("--transcript-mb", type=int, default=0)
    args = ap.parse_args()
    if args.transcript_mb:
        print(json.dumps(measure_transcript(args.transcript_mb)), flush=True)
    for n in args.sizes:
        print(json.dumps(measure(n)), flush=True)


if __name__ == "__main__":
    main()

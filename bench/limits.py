"""Hostile inputs, each in its own process so its time and peak RSS are its own
(``python -m bench limits``). Issue #27's bar: each refused or capped within 10 s and 300 MB.

The files are generated into a temp dir: a 1 MB gzip that inflates to 1 GiB inside an
OpenMemory zip, a YAML "billion laughs" in a Cursor rule and in a Claude Code auto-memory
topic file, a 200 MB one-line JSONL, a 33 MB topic file of 600k bullets, a 10 MB
``remember``, a 100k-word query, ``context --budget 1500`` over a 10 MB fact stored before
the cap, and an MCP ``memory.jsonl`` of N real-shaped entities (time to import all of it).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from bench.scale import peak_rss_mb
from tests.trust.hostile_inputs import LAUGHS


def _cli(data: Path, *args: str) -> int:
    from app.cli import main

    return main(["--data-dir", str(data), *args]) or 0


def _gzip_bomb(work: Path) -> Path:
    z = work / "openmemory.zip"
    with gzip.open(work / "bomb.gz", "wb", compresslevel=9) as fh:
        block = b"\0" * (16 * 1024 * 1024)
        for _ in range(64):  # 1 GiB of zeros, about 1 MB compressed
            fh.write(block)
    comp = (work / "bomb.gz").read_bytes()
    dump = {"export_meta": {}, "memories": [{"id": "1", "content": "Dana likes green tea"}]}
    with zipfile.ZipFile(z, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("memories.json", json.dumps(dump))
        zf.writestr("memories.jsonl.gz", comp)
    return z


def case_gzip_bomb(work: Path) -> dict:
    z = _gzip_bomb(work)
    t = time.perf_counter()
    rc = _cli(work / "store", "import", "--agent", "om", str(z), "--json")
    return {"seconds": time.perf_counter() - t, "exit": rc, "input_mb": z.stat().st_size / 1e6}


def case_laughs_mdc(work: Path) -> dict:
    project = work / "project"
    rules = project / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (project / "CLAUDE.md").write_text("- Run the tests with pytest -q\n")
    (rules / "laughs.mdc").write_text(LAUGHS + "- Prefer small pull requests\n")
    t = time.perf_counter()
    rc = _cli(work / "store", "import", "--agent", "p", str(project), "--json")
    return {"seconds": time.perf_counter() - t, "exit": rc}


def case_laughs_auto_memory(work: Path) -> dict:
    folder = work / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("# Memory Index\n- [Bomb](feedback_bomb.md) — a test\n")
    (folder / "feedback_bomb.md").write_text(
        LAUGHS.replace("description: *i", "name: Bomb\ndescription: *i\ntype: feedback")
        + "Keep commit messages short.\n"
    )
    t = time.perf_counter()
    rc = _cli(work / "store", "import", "--agent", "cc", str(folder), "--json")
    return {"seconds": time.perf_counter() - t, "exit": rc}


def case_jsonl_line(work: Path) -> dict:
    path = work / "memory.jsonl"
    with path.open("w") as fh:
        fh.write(json.dumps({"type": "entity", "name": "A", "observations": ["is in Oslo"]}))
        fh.write('\n{"type": "entity", "name": "Big", "observations": ["')
        chunk = "x" * (1024 * 1024)
        for _ in range(200):
            fh.write(chunk)
        fh.write('"]}\n')
    t = time.perf_counter()
    rc = _cli(work / "store", "import", "--agent", "g", str(path), "--json")
    return {"seconds": time.perf_counter() - t, "exit": rc, "input_mb": path.stat().st_size / 1e6}


def case_topic_bullets(work: Path) -> dict:
    folder = work / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("# Memory Index\n- [Notes](project_notes.md) — notes\n")
    body = "".join(
        f"- note number {i} about the build pipeline and its caches\n" for i in range(600_000)
    )
    (folder / "project_notes.md").write_text("---\nname: Notes\ntype: project\n---\n" + body)
    t = time.perf_counter()
    rc = _cli(work / "store", "import", "--agent", "cc", str(folder), "--json")
    size = (folder / "project_notes.md").stat().st_size / 1e6
    return {"seconds": time.perf_counter() - t, "exit": rc, "input_mb": size}


def case_remember_10mb(work: Path) -> dict:
    _cli(work / "store", "agent", "add", "a")
    t = time.perf_counter()
    rc = _cli(work / "store", "remember", "--agent", "a", "x" * 10_000_000)
    return {"seconds": time.perf_counter() - t, "exit": rc}


def _legacy_store(work: Path) -> Path:
    """A store holding a 10 MB fact written before the size limit (the limit raised), made
    in another process so its cost is not this case's."""
    data = work / "store"
    code = (
        "import os, sys; os.environ['ENGRAM_MAX_MEMORY'] = str(20 * 1024 * 1024)\n"
        "from bench.limits import _cli\n"
        "from pathlib import Path\n"
        "d = Path(sys.argv[1])\n"
        "_cli(d, 'agent', 'add', 'a')\n"
        "_cli(d, 'remember', '--agent', 'a', '--pin', 'y' * 10_000_000)\n"
        "_cli(d, 'remember', '--agent', 'a', 'Deploys happen on Tuesdays')\n"
    )
    subprocess.run([sys.executable, "-c", code, str(data)], check=True, capture_output=True)
    return data


def case_context_budget(work: Path) -> dict:
    import contextlib
    import io

    data = _legacy_store(work)
    out = io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(out):
        rc = _cli(data, "context", "--agent", "a", "--budget", "1500", "deploys")
    took = time.perf_counter() - t
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        _cli(data, "compile", "--agent", "a")
    md = max((p.stat().st_size for p in (data / "agents").rglob("memory.md")), default=0)
    return {
        "seconds": took,
        "exit": rc,
        "context_bytes": len(out.getvalue().encode()),
        "compile_seconds": time.perf_counter() - t,
        "memory_md_bytes": md,
    }


def case_query_100k(work: Path) -> dict:
    data = work / "store"
    _cli(data, "agent", "add", "a")
    for i in range(200):
        _cli(data, "remember", "--agent", "a", f"Fact {i} about term{i} and the build")
    q = " ".join(f"term{i}" for i in range(100_000))
    t = time.perf_counter()
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        rc = _cli(data, "recall", "--agent", "a", "--mode", "keyword", q)
    return {"seconds": time.perf_counter() - t, "exit": rc}


def case_baseline(work: Path) -> dict:
    """The same process importing one ordinary file: what every case pays before its input."""
    (work / "CLAUDE.md").write_text("- Run the tests with pytest -q\n")
    t = time.perf_counter()
    rc = _cli(work / "store", "import", "--agent", "p", str(work / "CLAUDE.md"), "--json")
    return {"seconds": time.perf_counter() - t, "exit": rc}


def case_batch_twins(work: Path, n: int = 100_000) -> dict:
    """The within-batch near-duplicate check alone, on n memories of one shape (the worst
    case: one signature) with random unit vectors: linear, not quadratic."""
    import numpy as np

    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.pipeline import Ingestor, NewFact
    from services.records import RememberResult

    rng = np.random.default_rng(7)
    vecs = rng.standard_normal((n, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    text = "Customer feedback mentions slow pages"  # one signature: every item in one bucket
    fresh = [(i, NewFact(text), text, "") for i in range(n)]
    with Engram.open(StoreConfig(data_dir=work / "store", semantic=False)) as e:
        ing = Ingestor(e.agent("a", create=True))
        results = [RememberResult("added", None) for _ in range(n)]
        t = time.perf_counter()
        kept, _ = ing._near_duplicates(fresh, vecs, 0.95, results, {}, ("active",))
        took = time.perf_counter() - t
    return {"seconds": took, "memories": n, "kept": len(kept)}


def case_entities(work: Path, n: int = 10_000) -> dict:
    path = work / "memory.jsonl"
    with path.open("w") as fh:
        for i in range(n):
            obs = [f"is based in city {i}", f"was founded in {1900 + i % 120}"]
            fh.write(
                json.dumps(
                    {"type": "entity", "name": f"Org{i}", "entityType": "org", "observations": obs}
                )
                + "\n"
            )
    t = time.perf_counter()
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        rc = _cli(work / "store", "import", "--agent", "graph", str(path), "--json")
    from services.config import StoreConfig
    from services.engram import Engram

    with Engram.open(StoreConfig(data_dir=work / "store", semantic=False)) as e:
        from services.store.facts import FactFilters

        active = e.agent("graph").facts.count(FactFilters(status="active"))
    return {"seconds": time.perf_counter() - t, "exit": rc, "memories": 2 * n, "active": active}


CASES = {
    "baseline: import one small file": "case_baseline",
    "gzip-bomb (openmemory zip, 1 GiB inflated)": "case_gzip_bomb",
    "billion laughs in a .mdc": "case_laughs_mdc",
    "billion laughs in an auto-memory topic": "case_laughs_auto_memory",
    "200 MB one-line memory.jsonl": "case_jsonl_line",
    "33 MB topic file, 600k bullets": "case_topic_bullets",
    "remember 10 MB": "case_remember_10mb",
    "context --budget 1500 over a 10 MB fact": "case_context_budget",
    "keyword recall, 100k-word query": "case_query_100k",
}


def run_case(fn: str, work: str, arg: str | None = None) -> None:
    import contextlib
    import io

    f = globals()[fn]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        r = f(Path(work), int(arg)) if arg else f(Path(work))
    r["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(r))


def _child(fn: str, work: Path, arg: str | None = None) -> dict:
    work.mkdir(parents=True)
    code = f"from bench.limits import run_case; run_case({fn!r}, {str(work)!r}, {arg!r})"
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=1800
    )
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def run(work: Path, entities: int = 10_000) -> dict:
    out: dict = {}
    for k, (name, fn) in enumerate(CASES.items()):
        out[name] = _child(fn, work / f"case-{k}")
    for n in (10_000, 100_000):
        out[f"within-batch twin check, {n:,} memories"] = _child(
            "case_batch_twins", work / f"twins-{n}", str(n)
        )
    out[f"memory.jsonl of {entities:,} entities"] = _child(
        "case_entities", work / "entities", str(entities)
    )
    return out


def table(r: dict) -> str:
    lines = [f"{'hostile input':48} {'seconds':>8} {'peak MB':>8}  notes"]
    for name, v in r.items():
        if "error" in v:
            lines.append(f"{name:48} {'-':>8} {'-':>8}  error: {v['error']}")
            continue
        notes = ", ".join(
            f"{k} {v[k]:.1f}" if isinstance(v[k], float) else f"{k} {v[k]}"
            for k in v
            if k not in ("seconds", "peak_rss_mb")
        )
        lines.append(f"{name:48} {v['seconds']:>8.2f} {v['peak_rss_mb']:>8.1f}  {notes}")
    return "\n".join(lines)

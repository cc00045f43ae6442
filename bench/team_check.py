"""The scripted team check, through the CLI a user types: two writers x N `remember` at once,
keyword and paraphrase recall, `migrate --from`, `forget --matching … --yes`, `verify`; each
step timed, the whole bounded (every team connection has statement and lock timeouts).

    python -m bench.team_check [--writers 2] [--each 40] [--chroma]

Starts the test harness's PostgreSQL (pgserver's, with pgvector) unless ENGRAM_DB_URL names
one; ``--chroma`` also starts ``chroma run`` and keeps the vectors there instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECRET = "The Kestrel launch code phrase is amber falcon"


def _engram(env, data, *args, timeout=300):
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "app.cli", "--data-dir", str(data), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return r.returncode, r.stdout, r.stderr, time.perf_counter() - t


def _writer(env, data, w, n):
    for i in range(n):
        text = f"Writer {w} note {i}: the build of service {w}-{i} takes {i + 3} minutes"
        rc, _, err, _ = _engram(env, data, "remember", "--agent", "team", text)
        if rc != 0:
            raise RuntimeError(f"writer {w} remember {i}: {err.strip()}")


def run(writers: int, each: int, chroma: bool) -> dict:
    from tests.teamstore.servers import start_chroma, start_postgres

    servers = []
    tmp = Path(tempfile.mkdtemp(prefix="engram-teamcheck-"))
    steps: dict[str, float] = {}
    try:
        url = os.environ.get("ENGRAM_DB_URL")
        if not url:
            pg = start_postgres()
            servers.append(pg)
            con = pg.admin()
            con.cursor().execute("CREATE DATABASE teamcheck")
            con.close()
            url = pg.url("teamcheck")
        env = {**os.environ, "ENGRAM_DB_URL": url, "PYTHONPATH": str(ROOT)}
        env.pop("ENGRAM_CHROMA_URL", None)
        if chroma:
            ch = start_chroma()
            servers.append(ch)
            env["ENGRAM_CHROMA_URL"] = ch.url
        # the local store `migrate --from` copies up: set up before the clock starts
        local = tmp / "local"
        lenv = {k: v for k, v in env.items() if k not in ("ENGRAM_DB_URL", "ENGRAM_CHROMA_URL")}
        rc, _, err, _ = _engram(lenv, local, "agent", "add", "laptop")
        assert rc == 0, err
        code = (
            "import sys; from services.config import StoreConfig; from services.engram import "
            "Engram; from services.ingest.pipeline import NewFact; e = Engram.open(StoreConfig("
            "data_dir=sys.argv[1])); e.agent('laptop').remember_many([NewFact(f'Laptop fact "
            "{i} about the {i}th release train') for i in range(40)]); e.close()"
        )
        subprocess.run([sys.executable, "-c", code, str(local)], env=lenv, check=True)
        t0 = time.perf_counter()
        rc, _, err, _ = _engram(env, tmp / "w0", "agent", "add", "team")
        assert rc == 0, err
        _engram(env, tmp / "w0", "remember", "--agent", "team", SECRET)
        t = time.perf_counter()
        with ThreadPoolExecutor(writers) as pool:
            for f in [pool.submit(_writer, env, tmp / f"w{w}", w, each) for w in range(writers)]:
                f.result()
        steps["remember"] = time.perf_counter() - t
        rc, out, err, steps["recall_keyword"] = _engram(
            env, tmp / "w0", "recall", "--agent", "team", "Kestrel launch", "--mode", "keyword"
        )
        assert rc == 0 and "amber falcon" in out, (out, err)
        rc, out, err, steps["recall_paraphrase"] = _engram(
            env,
            tmp / "w0",
            "recall",
            "--agent",
            "team",
            "what do we say to begin the rocket liftoff",
            "-k",
            "3",
        )
        assert rc == 0 and "amber falcon" in out, (out, err)
        rc, out, err, steps["migrate_from"] = _engram(
            env, tmp / "w0", "migrate", "--from", str(local)
        )
        assert rc == 0, err
        rc, out, err, steps["forget"] = _engram(
            env, tmp / "w0", "forget", "--agent", "team", "--matching", "amber falcon", "--yes"
        )
        assert rc == 0, (out, err)
        rc, out, err, steps["verify"] = _engram(env, tmp / "w0", "verify")
        assert rc == 0, (out, err)
        rc, out, err, steps["forget_verify"] = _engram(
            env, tmp / "w0", "forget", "--verify", "amber falcon"
        )
        assert rc == 0, (out, err)
        verify_rc = rc
        steps["total"] = time.perf_counter() - t0
        # the result checks, off the clock: every write is there once, the secret is gone, and
        # the migrated agent's vectors all arrived
        rc, out, err, _ = _engram(env, tmp / "w0", "list", "--agent", "team", "--json")
        texts = [f["content"] for f in json.loads(out)]
        assert rc == 0 and len(texts) == len(set(texts)) == writers * each, (len(texts), err)
        rc, out, err, _ = _engram(
            env, tmp / "w1", "recall", "--agent", "team", "Kestrel launch", "--mode", "keyword"
        )
        assert rc == 0 and "amber falcon" not in out, (out, err)
        rc, out, err, _ = _engram(env, tmp / "w1", "migrate", "--from", str(local))
        assert rc == 0 and "laptop: already there, unchanged" in out, (out, err)
        return {
            "writers": writers,
            "each": each,
            "vectors": "chroma" if chroma else "pgvector",
            "seconds": {k: round(v, 1) for k, v in steps.items()},
            "forget_verify_rc": verify_rc,
        }
    finally:
        for s in servers:
            s.stop()


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--writers", type=int, default=2)
    p.add_argument("--each", type=int, default=40)
    p.add_argument("--chroma", action="store_true")
    a = p.parse_args(argv)
    print(json.dumps(run(a.writers, a.each, a.chroma), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

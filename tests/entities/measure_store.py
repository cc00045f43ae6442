"""Store-size cost of entity memory: bytes per fact with and without entity links, on a few
thousand generated, realistic facts (``python -m tests.entities.measure_store [N]``).

Keyword-only stores (no vectors: entities add nothing to Chroma); both VACUUMed."""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

FIRST = "Maria Jonas Priya Tom Lena Kenji Sofia Ravi Emma Oliver Nadia Lars Amara Hiro Zoe".split()
LAST = "Lopez Berg Shah Fischer Watanabe Rossi Patel Wilson Okoye Tanaka Martin Nowak".split()
PROJ = "Atlas Phoenix Orion Helios Kestrel Falcon Nimbus Beacon Pelican Osprey".split()
TOOLS = "PostgreSQL Redis Kubernetes Docker Terraform React FastAPI Grafana Sentry pytest".split()
ORGS = "Acme Corp|Globex|Initech|Northwind|Zalando|Stripe|Contoso|Bluefin Labs".split("|")
PLACES = "Lisbon Berlin Tokyo Toronto Oslo Madrid Porto Singapore".split()
TEMPLATES = [
    "{p} is my manager at {o}.",
    "{p} works on {j}; the deploy uses {t}.",
    "Migrating the {j} service from {t} to {t2} this sprint, per {p}.",
    "Lunch with {p} in {c} on {d}.",
    "Ask {p} before merging anything into {j}.",
    "The {j} dashboard pulls data from {t}; alerts go to {t2}.",
    "Prefers {t} over {t2} for the {j} backend.",
    "{p} moved to {c} and now reports to {p2}.",
    "Invoice for {o} is due on the {n}th; {p} approves it.",
    "Step {n} of the {j} runbook: restart the {t} workers and check the {t2} queue.",
]


def facts(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        out.append(
            rnd.choice(TEMPLATES).format(
                p=f"{rnd.choice(FIRST)} {rnd.choice(LAST)}",
                p2=f"{rnd.choice(FIRST)} {rnd.choice(LAST)}",
                o=rnd.choice(ORGS),
                j=rnd.choice(PROJ),
                t=rnd.choice(TOOLS),
                t2=rnd.choice(TOOLS),
                c=rnd.choice(PLACES),
                n=rnd.randint(1, 28),
                d=rnd.choice(["Monday", "Friday", "the 3rd"]),
            )
            + f" (note {i})"
        )
    return out


def build(root: Path, texts: list[str], entities: bool) -> tuple[int, float, dict]:
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.pipeline import NewFact

    patch = (
        mock.patch("services.ingest.pipeline.link_row", lambda m, row: None)
        if not entities
        else mock.patch.object(sys, "dont_write_bytecode", sys.dont_write_bytecode)
    )
    with patch:
        e = Engram.open(StoreConfig(data_dir=root, semantic=False))
        mem = e.agent("bench", create=True)
        t0 = time.process_time()  # CPU seconds: the machine is shared, wall time is noise
        mem.remember_many([NewFact(t) for t in texts], near_duplicate=None)
        secs = time.process_time() - t0
        e.close()
    db = root / "engram.db"
    con = sqlite3.connect(db)
    con.execute("VACUUM")
    counts = {
        t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        for t in ("fact", "entity", "fact_entity", "entity_relation")
    }
    con.close()
    return db.stat().st_size, secs, counts


def main(n: int = 3000) -> None:
    texts = facts(n)
    with tempfile.TemporaryDirectory() as tmp:
        without, s0, c0 = build(Path(tmp) / "plain", texts, entities=False)
        with_, s1, c1 = build(Path(tmp) / "ents", texts, entities=True)
    print(f"{n} facts; without entities {without:,} B ({without / n:.0f} B/fact, {s0:.1f} CPU s); "
          f"with {with_:,} B ({with_ / n:.0f} B/fact, {s1:.1f} CPU s): +{(with_ - without) / n:.0f} "
          f"B/fact (+{100 * (with_ - without) / without:.1f}%); rows {c1}")  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)

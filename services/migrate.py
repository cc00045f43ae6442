"""Moving a store up to a team store and back: ``engram migrate --from DIR`` / ``--to DIR``.

Each agent travels as an Engram archive (services/interop/archive.py: facts with their
history and supersession links, sessions, episodes, compiled layers, audit events and the
vectors Chroma holds), so nothing is re-embedded and every text passes the write policy on
the way in. Only one store is open at a time (the models are bound to one database).

Idempotent: an agent already in the target with the same memories (the same content hashes)
is skipped; one that differs is refused, never merged (migrate it under another name).
Resumable: an agent left empty by a run that failed or was killed is imported again, and one
whose rows arrived but not all its vectors gets the missing ones (vectors are copied after the
rows, in batches that each commit). On a team store the server assigns every id (its sequences), so rows never collide with another member's
rows that row security hides.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from models import Agent, Fact
from services.config import StoreConfig
from services.errors import InvalidInput, NotFound
from services.store import fact_rows


@dataclass
class MigrateReport:
    copied: dict[str, dict] = field(default_factory=dict)  # slug → counts
    skipped: list[str] = field(default_factory=list)  # already in the target, unchanged
    # already in the target, its vectors finished now (a run killed while copying them)
    resumed: dict[str, dict] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"copied": self.copied, "skipped": self.skipped, "resumed": self.resumed}


def _open(config: StoreConfig, create_index: bool = False):
    """A store opened without the model; its vector index opened bare (vectors move as
    numbers, nothing is embedded)."""
    from dataclasses import replace

    from services.engram import Engram
    from services.vectors.index import VectorIndex, open_index

    e = Engram.open(replace(config, semantic=False))
    loc = config.vector_location
    index = open_index(config, e.db, LazyEmbedder(config.model_dir))
    if not isinstance(index, VectorIndex):  # vectors in the team store's PostgreSQL
        e.index = index
    elif create_index or loc.startswith(("http://", "https://")) or Path(loc).is_dir():
        e.index = index
    return e


class LazyEmbedder:
    """Stands in for the embedder: collections get Engram's embedding function (as every
    other client creates them), and the model loads only if a fact without a vector needs
    one."""

    def __init__(self, model_dir):
        self.model_dir = model_dir
        self._real = None

    def embed(self, texts):
        if self._real is None:
            from services.vectors.embedder import load_embedder

            self._real = load_embedder(self.model_dir)
        return self._real.embed(texts)


def migrate(
    source: StoreConfig,
    target: StoreConfig,
    agents: list[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
):
    """``progress(done, total)`` counts facts: rows copied, then vectors filled."""
    with tempfile.TemporaryDirectory(prefix="engram-migrate-") as tmp:
        archives = _export(source, agents, Path(tmp))
        return _import(target, archives, progress or (lambda done, total: None))


def _export(source: StoreConfig, agents, tmp: Path) -> dict[str, tuple[Path, set[str], str]]:
    from services.interop.archive import AGENT_FIELDS, FORMAT, TABLES, VERSION, _plain, _row

    src = _open(source)
    try:
        slugs = agents or [a.slug for a in src.agents(with_counts=False)]
        out = {}
        for slug in slugs:
            a = Agent.get_or_none(Agent.slug == slug)
            if a is None:
                raise NotFound(f"no agent {slug!r} in {source.data_dir}")
            lines = [{"type": FORMAT, "version": VERSION, "agent": slug}]
            fields = {k: _plain(getattr(a, k)) for k in AGENT_FIELDS}
            lines.append({"type": "agent", **fields, "uid": a.uid})
            for kind, model in TABLES:
                for r in model.select().where(model.agent == a.id).order_by(model.id):
                    lines.append({"type": kind, **_row(model, r)})
            if src.index is not None:
                vecs = src.index.vectors(a.id)
                lines += [
                    {"type": "vector", "fact": fid, "vector": [float(x) for x in vecs[fid]]}
                    for fid in sorted(vecs)
                ]
            path = tmp / f"{slug}.jsonl"
            path.write_text(
                "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8"
            )
            out[slug] = (path, _hashes(a.id), a.uid)
        return out
    finally:
        src.close()


def _hashes(agent_id: int) -> set[str]:
    return fact_rows.content_hashes(agent_id)


def _import(target: StoreConfig, archives, progress: Callable[[int, int], None]) -> MigrateReport:
    from services.interop.archive import import_archive

    rep = MigrateReport()
    # each agent's facts twice: once as rows, once as vectors
    total = 2 * sum(_fact_lines(path) for path, _h, _u in archives.values())
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        progress(min(done, total), total)

    dst = _open(target, create_index=True)
    try:
        for slug, (path, hashes, uid) in archives.items():
            there = Agent.get_or_none(Agent.slug == slug)
            if there is not None and hashes and _is_leftover(there.id):
                # a run that failed or was killed between creating the agent and committing
                # its rows: start that agent again
                Agent.delete().where(Agent.id == there.id).execute()
                there = None
            if there is not None:
                if _hashes(there.id) == hashes:
                    step(_fact_lines(path))  # its rows are there already
                    filled = _fill_vectors(dst, there.id, path, step)
                    if any(filled.values()):
                        rep.resumed[slug] = filled
                    else:
                        rep.skipped.append(slug)
                    continue
                raise InvalidInput(
                    f"agent {slug!r} is already in the target with other memories; "
                    "nothing was merged (rename one of them first)"
                )
            got = import_archive(dst, path, vectors=False)
            step(_fact_lines(path))
            # the same agent in another store, not a namesake (its facts keep theirs too)
            Agent.update(uid=uid).where(Agent.slug == slug).execute()
            aid = Agent.get(Agent.slug == slug).id
            rep.copied[slug] = {**got.counts, **_fill_vectors(dst, aid, path, step)}
    finally:
        dst.close()
    return rep


def _is_leftover(agent_id: int) -> bool:
    """An agent with no row of any kind: what an interrupted import leaves."""
    from models import AuditEvent, Episode, Session

    return not any(
        m.select().where(m.agent == agent_id).exists() for m in (Fact, Episode, Session, AuditEvent)
    )


VECTOR_BATCH = 64  # vectors per committed batch: a killed run loses at most one batch


def _fact_lines(path: Path) -> int:
    with path.open("r", encoding="utf-8") as fh:
        return sum(1 for line in fh if line.startswith('{"type": "fact"'))


def _fill_vectors(
    dst, agent_id: int, path: Path, step: Callable[[int], None] = lambda n: None
) -> dict[str, int]:
    """The agent's facts in the target that have no vector get one: the archived vector of
    the same text, or (a text the write policy changed, a source without vectors) a new
    embedding. Batches commit one by one, so a rerun after a kill carries on from there."""
    import numpy as np

    out = {"vectors": 0, "embedded": 0}
    if dst.index is None:
        step(_fact_lines(path))
        return out
    archived: dict[str, list[float]] = {}  # content hash -> the source's vector
    lines = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    hashes = {x["id"]: x.get("content_hash") for x in lines if x.get("type") == "fact"}
    for x in lines:
        if x.get("type") == "vector" and hashes.get(x["fact"]):
            archived[hashes[x["fact"]]] = x["vector"]
    have = dst.index.all_ids(agent_id)
    rows = fact_rows.ordered_hashed_texts(agent_id)
    todo = [(i, t, h) for i, t, h in rows if i not in have]
    step(max(0, len(hashes) - len(todo)))  # those had their vector already
    known = [r for r in todo if r[2] in archived]
    for s in range(0, len(known), VECTOR_BATCH):
        part = known[s : s + VECTOR_BATCH]
        vecs = np.asarray([archived[h] for _, _, h in part], dtype=np.float32)
        dst.index.upsert(agent_id, [i for i, _, _ in part], [t for _, t, _ in part], vecs)
        out["vectors"] += len(part)
        step(len(part))
        _kill_here_for_tests("migrate.vectors")
    rest = [r for r in todo if r[2] not in archived]
    for s in range(0, len(rest), VECTOR_BATCH):
        part = rest[s : s + VECTOR_BATCH]
        dst.index.upsert(agent_id, [i for i, _, _ in part], [t for _, t, _ in part])
        out["embedded"] += len(part)
        step(len(part))
    return out


def _kill_here_for_tests(step: str) -> None:
    """TEST HOOK: ``ENGRAM_TEST_KILL_AT=<step>`` makes the process SIGKILL itself there
    (tests/teamstore/test_migrate.py), as services/forget/journal.py does; unset in use."""
    if os.environ.get("ENGRAM_TEST_KILL_AT") == step:
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))

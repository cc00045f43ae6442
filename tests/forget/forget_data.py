"""Shared data and helpers of the forget tests (the template store's content, raw-bytes
and HNSW checks). Imported by path: see conftest.py."""

from __future__ import annotations

import shutil
from datetime import date, datetime
from pathlib import Path

SECRET = "My secret pet is named Quetzalcoatlus Borogove"
ONE_FACT = "Locker combination at the gym is 31-07-88 Wombatrix"
OLD_FACT = "Old apartment on Rue Zyxwvut had a blue door"
OLD_EPISODE = "Visited the flat on Rue Zyxwvut with the agent"
SHARED = "Shared note: the Kraken Protocol review is on Thursday"
ALLERGY = ["Peanut allergy: must avoid all peanuts", "Has a severe allergy to peanuts"]
UNRELATED_PEANUT = "Likes peanut butter sandwiches"
EPISODE = "Talked about Quetzalcoatlus Borogove the iguana and its terrarium"
SESSION_LOG = (
    "user: what is my pet called?\nassistant: Quetzalcoatlus Borogove, your iguana\n"
    "user: thanks, and book the dentist\nassistant: booked the dentist for Monday\n"
)
MEMORY_MD = (
    "# MEMORY.md\n\n> Durable facts and context. Loaded every session.\n"
    "> Entry format: [YYYY-MM-DD][category] content\n\n§\n"
    "[2026-04-12][pref] Prefers pnpm over npm\n§\n"
    f"[2026-04-13][fact] {SECRET}\n§\n"
    f"[2026-04-14][fact] {ONE_FACT}\n§\n"
    "[2026-04-15][rule] Never push to main without a PR\n"
)
USER_MD = (
    "# USER.md\n\n§\n- **Name:** Sam\n§\n- **Pet:** an iguana called Quetzalcoatlus Borogove\n"
)
EPISODE_MD = (
    "## Episode — 2:30 PM\n\n**Summary:** Set up CI pipeline for the API.\n\n"
    "**Tags:** ci\n\n---\n\n## Episode — 4:00 PM\n\n"
    f"**Summary:** {EPISODE}\n\n**Tags:** pets\n\n---\n"
)
FILLERS = 1100  # above Chroma's sync_threshold (1000): vectors land in the HNSW files


def _build(root: Path) -> None:
    from models import Session
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.pipeline import NewFact

    ws = root / "ws_alice"
    (ws / "memories").mkdir(parents=True)
    (ws / "episodes").mkdir()
    (ws / "memories" / "MEMORY.md").write_text(MEMORY_MD, encoding="utf-8")
    (ws / "memories" / "USER.md").write_text(USER_MD, encoding="utf-8")
    (ws / "episodes" / "2026-04-13.md").write_text(EPISODE_MD, encoding="utf-8")
    e = Engram.open(StoreConfig(data_dir=root / "store"))
    e.add_agent("alice", workspace=ws)
    e.add_agent("bob")
    a, b = e.agent("alice"), e.agent("bob")
    first = [
        NewFact(content=SECRET, subject="pet"),
        NewFact(content=ONE_FACT, subject="locker"),
        NewFact(content=SHARED, subject="kraken"),
        NewFact(content=OLD_FACT, subject="old flat", created_at=datetime(2025, 1, 1)),
        NewFact(content=UNRELATED_PEANUT, subject="sandwich"),
    ]
    first += [NewFact(content=t, subject=f"allergy {i}") for i, t in enumerate(ALLERGY)]
    a.remember_many(first, near_duplicate=None)
    fid = next(f.id for f in a.list() if f.content == SECRET)
    a.edit(fid, importance=0.9)  # an edit event: history holds two more snapshots
    a.remember_many(
        [
            NewFact(
                content=f"Routine note {i}: the build number {i * 7} passed on runner {i % 13}",
                subject=f"note {i}",
            )
            for i in range(FILLERS)
        ],
        near_duplicate=None,
    )
    b.remember_many(
        [
            NewFact(content=SHARED, subject="kraken"),
            NewFact(content="Bob prefers tabs over spaces", subject="indent"),
        ],
        near_duplicate=None,
    )
    a.add_episode(date(2026, 4, 13), EPISODE, time="4:00 PM")
    a.add_episode(date(2025, 1, 2), OLD_EPISODE, time="9:00 AM")
    a.add_episode(date(2026, 4, 13), "Set up CI pipeline for the API.", time="2:30 PM")
    b.add_episode(date(2026, 4, 13), "Bob reviewed the Kraken Protocol notes", time="1:00 PM")
    Session.create(agent=a.agent_id, external_id="s-1", log=SESSION_LOG, turn_count=4)
    from services.lifecycle.compile import CompileService

    CompileService(a).compile()
    e.close()


def raw_hits(engram, texts, extra_paths=()) -> list[tuple[str, int]]:
    """Test helper: every file under the data dir and the given paths, raw bytes,
    case-insensitive; returns (file, count). Read in a child process, like the verifier,
    so reading the live database cannot drop this process's SQLite locks."""
    from services.forget import isolated

    return isolated.raw_hits([Path(engram.config.data_dir), *map(Path, extra_paths)], texts)


def hnsw_hits(engram, texts) -> list:
    """Stored vectors (decoded from Chroma's HNSW files) that are the forgotten texts'."""
    from services.forget import isolated

    vecs = [[float(x) for x in v] for v in engram.embedder.embed(list(texts))]
    return isolated.run(isolated.scan_job, [], [], vecs, engram.config.vector_location)["vectors"]


def open_copy(template: Path, root: Path):
    """A copy of the template store, opened, every absolute path in it rewritten to the copy.
    A path left at the template would let a forget here edit the template's files (alice's
    workspace, the files her facts came from), and every later copy would start without
    what it erased (CI once failed that way)."""
    from models import CompiledLayer
    from services.config import StoreConfig
    from services.engram import Engram

    shutil.copytree(template, root)
    e = Engram.open(StoreConfig(data_dir=root / "store"))
    e.update_agent("alice", workspace=str(root / "ws_alice"))
    old, new = str(template), str(root)
    for L in CompiledLayer.select():
        if L.path and L.path.startswith(old):
            L.path = new + L.path[len(old) :]
            L.save()
    for col in ("source_ref", "metadata"):
        e.db.execute_sql(
            f"UPDATE fact SET {col} = replace({col}, ?, ?) WHERE instr({col}, ?) > 0",
            (old, new, old),
        )
    for state in (root / "store").rglob("*.json"):
        text = state.read_text("utf-8")
        if old in text:
            state.write_text(text.replace(old, new), "utf-8")
    e.root = root
    return e

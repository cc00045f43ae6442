"""File work on live SQLite stores, done in a child process.

POSIX advisory locks belong to a process, not to a file descriptor: when *any* descriptor
of a file is closed, every lock the process holds on that file is dropped. SQLite's own
opens are tracked to avoid this, but a plain ``open(engram.db).close()`` from Python (the
raw-bytes verifier reading ``engram.db``, ``-wal`` and ``-shm``), or a second SQLite library
in the same process (Python's ``sqlite3`` on Chroma's ``chroma.sqlite3`` while Chroma's Rust
SQLite holds it), silently releases the locks our live connections rely on; another process
writing at that moment corrupts the database. (Seen here: a CLI hook writing during a
forget's verification gave "database disk image is malformed".) A child process holds no
locks, so its opens and closes cannot release ours.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CHILD = "import sys; from services.forget.isolated import _child; _child()"


def run(fn, *args):
    """``fn(*args)`` (a module-level function of this module, JSON in and out) in a fresh
    interpreter: not fork (inherited threads and locks), not multiprocessing's spawn (it
    re-imports the caller's ``__main__``)."""
    payload = json.dumps({"fn": fn.__name__, "args": args})
    if getattr(sys, "frozen", False):  # a bundled app has no interpreter to call
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(1) as pool:
            return pool.apply(fn, args)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT),
        timeout=3600,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"isolated {fn.__name__} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def _child() -> None:
    req = json.loads(sys.stdin.read())
    fn = globals()[req["fn"]]
    sys.stdout.write(json.dumps(fn(*req["args"])))


def raw_hits(roots, texts) -> list[tuple[str, int]]:
    """(file, occurrences) for every file under ``roots`` holding any of ``texts``."""
    got = run(scan_job, [str(r) for r in roots], list(texts), None, None)
    return [(p, n) for p, _size, n in got["files"] if n]


# jobs (module level so the child can import them) ---------------------------------------
def scan_job(
    roots: list[str], texts: list[str], vectors: list[list[float]] | None, chroma_dir: str | None
) -> dict:
    """Raw bytes of every file under ``roots`` plus decoded HNSW vectors; also which agent
    owns each Chroma segment directory."""
    from services.forget.raw_scan import (
        byte_pattern,
        iter_files,
        scan_file,
        vector_bytes_present,
        vector_hits,
    )

    pats = {t: byte_pattern(t) for t in texts}
    files, seen = [], set()
    for root in roots:
        for f in iter_files(Path(root)):
            rp = f.resolve()
            if rp in seen:
                continue
            seen.add(rp)
            try:
                size = f.stat().st_size
            except OSError:
                size = 0
            hits = scan_file(f, pats)
            files.append([str(rp), size, sum(hits.values())])
    out: dict = {
        "files": files,
        "segments": {},
        "vectors": [],
        "vector_bytes": [],
        "segment_text": segment_text(chroma_dir) if chroma_dir else {},
    }
    if chroma_dir:
        out["segments"] = segment_owners(chroma_dir)
        if vectors:
            for seg, i, cos, k in vector_hits(Path(chroma_dir), vectors):
                out["vectors"].append([str(seg), i, cos, k])
            # Chroma's write queue (embeddings_queue) keeps the float32 bytes as given
            db = Path(chroma_dir) / "chroma.sqlite3"
            if db.is_file():
                out["vector_bytes"] = [[str(f), k] for f, k in vector_bytes_present([db], vectors)]
    return out


def segment_text(chroma_dir: str) -> dict[str, int]:
    """HNSW segment directory name -> runs of 32+ printable bytes in its files. Segments hold
    floats, ids and links, never text: any such run is memory Chroma wrote without
    initialising it (whatever text this or an earlier process had freed)."""
    from services.forget.raw_scan import text_runs

    out: dict[str, int] = {}
    for d in Path(chroma_dir).iterdir():
        if d.is_dir() and (d / "header.bin").exists():
            n = sum(text_runs(f) for f in d.iterdir() if f.is_file())
            if n:
                out[d.name] = n
    return out


def segment_owners(chroma_dir: str) -> dict[str, int]:
    """HNSW segment directory name → agent id (collections are named agent-<id>)."""
    f = Path(chroma_dir) / "chroma.sqlite3"
    if not f.is_file():
        return {}
    try:
        con = sqlite3.connect(f"file:{f}?mode=ro", uri=True, timeout=10)
        try:
            rows = con.execute(
                "SELECT s.id, c.name FROM segments s JOIN collections c ON c.id = s.collection"
            ).fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return {}
    return {
        sid: int(name[6:]) for sid, name in rows if name.startswith("agent-") and name[6:].isdigit()
    }


def chroma_holders_job(chroma_dir: str, texts: list[str], live: dict[str, list[int]]) -> list[int]:
    """Agent ids (of ``live``: agent id -> its fact ids) whose Chroma collection still holds
    a vector of a fact that is gone, or any of ``texts``: an id in Chroma's write log
    (``embeddings_queue`` keeps an added vector's float32 bytes until the HNSW segment is
    persisted, after the fact is deleted too) that is no fact of the agent's, an element
    hnswlib only marked deleted in a segment file, or a document (older stores kept one).
    A fact deleted long ago has neither a row nor a history event left in Engram's store to
    say its agent's collection needs a purge: Chroma's files do."""
    f = Path(chroma_dir) / "chroma.sqlite3"
    needles = [t.casefold() for t in texts if t and t.strip()]
    if not f.is_file():
        return []
    try:
        con = sqlite3.connect(f"file:{f}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return []
    got: set[str] = set()  # collection ids
    try:
        con.create_function(
            "engram_holds", 1, lambda v: any(n in (v or "").casefold() for n in needles)
        )
        names = {c: n for c, n in con.execute("SELECT id, name FROM collections")}
        owner = {n[6:]: c for c, n in names.items() if n.startswith("agent-") and n[6:].isdigit()}
        for aid, ids in live.items():
            cid = owner.get(aid)
            if cid is None:
                continue
            keep = {str(i) for i in ids}
            topic = f"%/{cid}"
            logged = con.execute(
                "SELECT DISTINCT id FROM embeddings_queue WHERE topic LIKE ?", (topic,)
            )
            if any(i not in keep for (i,) in logged):
                got.add(cid)
        if needles:
            got |= {
                t.rsplit("/", 1)[-1]
                for (t,) in con.execute(
                    "SELECT DISTINCT topic FROM embeddings_queue WHERE engram_holds(metadata)"
                )
            }
            got |= {
                c
                for (c,) in con.execute(
                    "SELECT DISTINCT s.collection FROM embedding_metadata m "
                    "JOIN embeddings e ON e.id = m.id JOIN segments s ON s.id = e.segment_id "
                    "WHERE m.key = 'chroma:document' AND engram_holds(m.string_value)"
                )
            }
        segs = dict(con.execute("SELECT id, collection FROM segments"))
    except sqlite3.Error:
        return []
    finally:
        con.close()
    from services.forget.raw_scan import read_hnsw_segment

    for sid, cid in segs.items():
        seg = read_hnsw_segment(Path(chroma_dir) / sid)
        if seg is not None and bool(seg.deleted.any()):
            got.add(cid)
    out = []
    for cid in got:
        name = names.get(cid, "")
        if name.startswith("agent-") and name[6:] in live:
            out.append(int(name[6:]))
    return sorted(out)


def chroma_compact_job(chroma_dir: str) -> tuple[list | None, str | None]:
    """Merge Chroma's FTS segments and VACUUM its sqlite; return the live segment ids."""
    f = Path(chroma_dir) / "chroma.sqlite3"
    if not f.is_file():
        return None, None
    con = sqlite3.connect(str(f), timeout=30)
    try:
        live = [r[0] for r in con.execute("SELECT id FROM segments")]
        try:
            con.execute(
                "INSERT INTO embedding_fulltext_search(embedding_fulltext_search) "
                "VALUES('optimize')"
            )
            con.commit()
        except sqlite3.Error:
            pass
        con.execute("PRAGMA secure_delete = 1")
        con.execute("VACUUM")
        try:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        return live, None
    except sqlite3.Error as exc:
        return None, f"chroma.sqlite3 could not be compacted: {exc}"
    finally:
        con.close()

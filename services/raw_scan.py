"""Raw-bytes scanning: is a forgotten string still anywhere on disk?

The forget verifier does not trust the database's own answer: it reads every byte of every
file (SQLite pages, WAL, Chroma's sqlite and HNSW segments, compiled layers, workspace files)
and looks for the UTF-8 bytes of each string, case-insensitively. It also decodes Chroma's
HNSW segment files, because a vector is stored as float32 and never as text.

Never call these on a live database from a process that has it open: run them through
``services.isolated`` (closing a descriptor drops the process's SQLite locks).
"""
from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

CHUNK = 8 << 20
SKIP_DIRS = {".git", "node_modules", ".venv", "__pycache__"}


def byte_pattern(text: str) -> re.Pattern:
    """A bytes regex matching ``text`` in UTF-8 with any letter case (Unicode-aware: each
    character may appear as its lower- or upper-case encoding)."""
    parts = []
    for ch in text:
        forms = {ch, ch.lower(), ch.upper()}
        enc = sorted({f.encode("utf-8") for f in forms if len(f) == 1}, key=len, reverse=True)
        parts.append(b"(?:" + b"|".join(re.escape(e) for e in enc) + b")" if len(enc) > 1
                     else re.escape(enc[0]))
    return re.compile(b"".join(parts))


def iter_files(root: Path, skip_dirs: set[str] = SKIP_DIRS) -> Iterator[Path]:
    root = Path(root)
    if root.is_file():
        yield root
        return
    if not root.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip_dirs]
        for name in filenames:
            p = Path(dirpath) / name
            if p.is_file() and not p.is_symlink():
                yield p


def scan_file(path: Path, patterns: dict[str, re.Pattern]) -> dict[str, int]:
    """Occurrences of each pattern in the file's raw bytes (streamed, so a 200 MB file is
    fine). Matches that straddle a chunk boundary are caught by overlapping the chunks.
    ASCII terms are found with ``bytes.find`` on a lower-cased chunk (fast even for hundreds
    of terms); others with the case-folding regex from ``byte_pattern``."""
    ascii_terms = {k: k.lower().encode("ascii") for k in patterns if k.isascii()}
    longest = max((len(p.pattern) for p in patterns.values()), default=0)
    overlap = max(64, longest)
    hits = {k: 0 for k in patterns}
    try:
        fh = open(path, "rb")
    except OSError:
        return hits
    with fh:
        tail = b""
        while True:
            block = fh.read(CHUNK)
            if not block:
                break
            buf = tail + block
            low = buf.lower() if ascii_terms else b""
            for k, pat in patterns.items():
                needle = ascii_terms.get(k)
                if needle is not None:
                    i = low.find(needle)
                    while i != -1:
                        # a match wholly inside the carried-over tail was counted last round
                        if i + len(needle) > len(tail):
                            hits[k] += 1
                        i = low.find(needle, i + 1)
                    continue
                for m in pat.finditer(buf):
                    if m.end() > len(tail):
                        hits[k] += 1
            tail = buf[-overlap:]
    return hits


# Chroma HNSW segments ----------------------------------------------------------------------
@dataclass
class HnswSegment:
    path: Path
    labels: np.ndarray  # int64 labels (Chroma's internal offset ids)
    deleted: np.ndarray  # bool: marked deleted but still on disk
    vectors: np.ndarray  # float32 [n, dim]


def read_hnsw_segment(seg_dir: Path) -> HnswSegment | None:
    """Decode hnswlib's persisted ``header.bin`` + ``data_level0.bin`` (the layout Chroma's
    Rust HNSW writes): every element is [level-0 links][vector float32 × dim][label u64]."""
    header = seg_dir / "header.bin"
    data_path = seg_dir / "data_level0.bin"
    if not header.is_file() or not data_path.is_file():
        return None
    h = header.read_bytes()
    if len(h) < 52:
        return None
    _ver, _off0, _max, count, size, label_off, data_off = struct.unpack_from("<iQQQQQQ", h, 0)
    data = data_path.read_bytes()
    if size <= 0 or label_off <= data_off:
        return None
    count = min(count, len(data) // size)
    dim = (label_off - data_off) // 4
    if count == 0:
        return HnswSegment(seg_dir, np.zeros(0, np.int64), np.zeros(0, bool),
                           np.zeros((0, dim), np.float32))
    arr = np.frombuffer(data, dtype=np.uint8, count=count * size).reshape(count, size)
    vectors = arr[:, data_off:data_off + dim * 4].copy().view(np.float32).reshape(count, dim)
    labels = arr[:, label_off:label_off + 8].copy().view(np.uint64).reshape(count).astype(np.int64)
    deleted = (arr[:, 2] & 1).astype(bool)
    return HnswSegment(seg_dir, labels, deleted, vectors)


def hnsw_segments(chroma_dir: Path) -> list[HnswSegment]:
    out = []
    if not Path(chroma_dir).is_dir():
        return out
    for d in sorted(Path(chroma_dir).iterdir()):
        if d.is_dir():
            seg = read_hnsw_segment(d)
            if seg is not None:
                out.append(seg)
    return out


def vector_hits(chroma_dir: Path, vector: np.ndarray, threshold: float = 0.995
                ) -> list[tuple[Path, int, float]]:
    """(segment dir, element index, cosine) for every stored vector that is (nearly) the
    given one, including elements hnswlib only marked deleted."""
    v = np.asarray(vector, dtype=np.float32)
    v = v / (np.linalg.norm(v) or 1.0)
    out = []
    for seg in hnsw_segments(chroma_dir):
        if not len(seg.vectors) or seg.vectors.shape[1] != v.shape[0]:
            continue
        norms = np.linalg.norm(seg.vectors, axis=1)
        norms[norms == 0] = 1.0
        sims = (seg.vectors @ v) / norms
        for i in np.nonzero(sims >= threshold)[0]:
            out.append((seg.path, int(i), float(sims[i])))
    return out


def vector_bytes_present(paths: Iterable[Path], vector: np.ndarray) -> list[Path]:
    """Files holding the exact float32 bytes of ``vector`` (Chroma's queue and metadata
    tables store the vector as given)."""
    needle = np.asarray(vector, dtype=np.float32).tobytes()[:64]
    found = []
    for root in paths:
        for f in iter_files(Path(root)):
            try:
                with open(f, "rb") as fh:
                    tail = b""
                    while block := fh.read(CHUNK):
                        if needle in tail + block:
                            found.append(f)
                            break
                        tail = block[-len(needle):]
            except OSError:
                continue
    return found

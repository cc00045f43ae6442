"""Raw-bytes scanning: is a forgotten string still anywhere on disk?

The forget verifier does not trust the database's own answer: it reads every byte of every
file (SQLite pages, WAL, Chroma's sqlite and HNSW segments, compiled layers, workspace files)
and looks for the UTF-8 bytes of each string, case-insensitively. It also decodes Chroma's
HNSW segment files, because a vector is stored as float32 and never as text.

Never call these on a live database from a process that has it open: run them through
``services.forget.isolated`` (closing a descriptor drops the process's SQLite locks).
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads where a scan runs, not with the app's forget dialog
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
        parts.append(
            b"(?:" + b"|".join(re.escape(e) for e in enc) + b")"
            if len(enc) > 1
            else re.escape(enc[0])
        )
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


class NeedleScan:
    """Counts occurrences of many byte strings in one pass over a buffer, at a cost that
    follows the buffer's size, not the number of strings.

    Checking 200 forgotten strings one ``find`` at a time over a 300 MB store is 60 GB of
    scanning (minutes); here the buffer is read once as little-endian 64-bit words. Any
    occurrence of a needle of 15+ bytes wholly contains an 8-aligned word of the buffer, at
    one of the needle's offsets 0..7; so the aligned words are looked up among the needles'
    8-byte windows (a vectorised sorted search) and only those hits are confirmed byte by
    byte. Needles of 23+ bytes also require the next word to match, which keeps common
    fragments ("the user") from flooding the confirmation step. Shorter needles use ``find``.
    """

    def __init__(self, needles: dict[str, bytes]):
        import numpy as np

        self.needles = {k: v for k, v in needles.items() if v}
        self.short = {k: v for k, v in self.needles.items() if len(v) < 15}
        self.longest = max((len(v) for v in self.needles.values()), default=0)
        first: dict[int, list[tuple[str, int]]] = {}
        second: set[int] = set()
        for k, v in self.needles.items():
            if len(v) < 15:
                continue
            for d in range(8):
                first.setdefault(_word(v, d), []).append((k, d))
                if len(v) >= d + 16:
                    second.add(_word(v, d + 8))
        self._first = first
        self._keys1 = np.array(sorted(first), dtype=np.uint64)
        self._keys2 = np.array(sorted(second), dtype=np.uint64)
        # a needle too short for a second word must not be filtered out by it
        self._one_word = np.array(
            sorted(
                w
                for w, owners in first.items()
                if any(len(self.needles[k]) < d + 16 for k, d in owners)
            ),
            dtype=np.uint64,
        )

    def starts(self, buf: bytes) -> dict[str, set[int]]:
        """Start offsets of every needle in ``buf``."""
        import numpy as np

        out: dict[str, set[int]] = {k: set() for k in self.needles}
        for k, v in self.short.items():
            i = buf.find(v)
            while i != -1:
                out[k].add(i)
                i = buf.find(v, i + 1)
        n = len(buf) // 8
        if not len(self._keys1) or n == 0:
            return out
        words = np.frombuffer(buf, dtype="<u8", count=n)
        cand = np.nonzero(_member(words, self._keys1))[0]
        if len(cand):
            nxt = np.minimum(cand + 1, n - 1)
            keep = _member(words[nxt], self._keys2) & (cand + 1 < n)
            if len(self._one_word):
                keep |= _member(words[cand], self._one_word)
            cand = cand[keep]
        for i in cand.tolist():
            q = i * 8
            for k, d in self._first[int(words[i])]:
                p = q - d
                if p >= 0 and buf.startswith(self.needles[k], p):
                    out[k].add(p)
        return out


def _word(b: bytes, at: int) -> int:
    return int.from_bytes(b[at : at + 8], "little")


def _member(values: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    import numpy as np

    if not len(sorted_keys):
        return np.zeros(len(values), dtype=bool)
    pos = np.searchsorted(sorted_keys, values)
    pos[pos == len(sorted_keys)] = 0
    return sorted_keys[pos] == values


def scan_file(path: Path, patterns: dict[str, re.Pattern]) -> dict[str, int]:
    """Occurrences of each pattern in the file's raw bytes (streamed, so a 200 MB file is
    fine). Matches that straddle a chunk boundary are caught by overlapping the chunks.
    ASCII terms are matched case-insensitively on a lower-cased chunk by one ``NeedleScan``;
    other terms through their longest ASCII run, found by the same scan and confirmed around
    each hit with the case-folding regex from ``byte_pattern``; a term without a long ASCII
    run (Cyrillic, CJK) is searched with its regex over the whole chunk."""
    needles = {k: k.lower().encode("ascii") for k in patterns if k.isascii()}
    anchored: dict[str, tuple[int, int, re.Pattern]] = {}
    regexes: dict[str, re.Pattern] = {}
    for k, pat in patterns.items():
        if k in needles:
            continue
        a = _anchor(k)
        if a is None:
            regexes[k] = pat
        else:
            run, pre, post = a
            needles["\0" + k] = run.lower().encode("ascii")
            anchored[k] = (pre, post, pat)
    return _scan(path, NeedleScan(needles), anchored, regexes, fold=True)


def _anchor(term: str) -> tuple[str, int, int] | None:
    """The term's longest ASCII run of 15+ bytes, with the most bytes any case form of the
    characters before and after it can take."""
    best = None
    for m in re.finditer(r"[\x00-\x7f]{15,}", term):
        if best is None or len(m.group()) > len(best.group()):
            best = m
    if best is None:
        return None

    def widest(chars: str) -> int:
        return sum(
            max(len(f.encode("utf-8")) for f in {c, c.lower(), c.upper()} if len(f) == 1)
            for c in chars
        )

    return best.group(), widest(term[: best.start()]), widest(term[best.end() :])


def count_bytes(path: Path, needles: dict[str, bytes]) -> dict[str, int]:
    """Occurrences of exact byte strings (vectors' float32 bytes) in a file."""
    return _scan(path, NeedleScan(needles), {}, {}, fold=False)


def _scan(
    path: Path,
    scan: NeedleScan,
    anchored: dict[str, tuple[int, int, re.Pattern]],
    regexes: dict[str, re.Pattern],
    fold: bool,
) -> dict[str, int]:
    longest = max(
        [scan.longest]
        + [len(p.pattern) for p in regexes.values()]
        + [len(p.pattern) for _a, _b, p in anchored.values()]
    )
    overlap = max(64, longest)
    hits = {k: 0 for k in scan.needles if not k.startswith("\0")}
    hits.update({k: 0 for k in list(anchored) + list(regexes)})
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
            # a match wholly inside the carried-over tail was counted last round
            if scan.needles:
                low = buf.lower() if fold else buf
                for k, starts in scan.starts(low).items():
                    if k.startswith("\0"):
                        term = k[1:]
                        pre, post, pat = anchored[term]
                        size = len(scan.needles[k])
                        found: set[int] = set()
                        for p in starts:
                            lo = max(0, p - pre)
                            for m in pat.finditer(buf, lo, p + size + post):
                                if m.end() > len(tail):
                                    found.add(m.start())
                        hits[term] += len(found)
                        continue
                    size = len(scan.needles[k])
                    hits[k] += sum(
                        1
                        for p in starts
                        if p + size > len(tail) and not (fold and _longer_number(low, p, size))
                    )
            for k, pat in regexes.items():
                for m in pat.finditer(buf):
                    if m.end() > len(tail):
                        hits[k] += 1
            tail = buf[-overlap:]
    return hits


_DIGITS = frozenset(b"0123456789")


def _longer_number(buf: bytes, p: int, size: int) -> bool:
    """Is the hit at ``p`` part of a longer number ("3.9" inside "3.90" or "13.9")? The
    same whole-number rule the text comparison applies (``matching.found_at``). A hit that
    ends on a chunk's last byte is counted (its next byte is not read yet: the safe side)."""
    end = p + size
    if buf[end - 1] in _DIGITS and end < len(buf):
        nxt = buf[end]
        if nxt in _DIGITS or (nxt in b".," and end + 1 < len(buf) and buf[end + 1] in _DIGITS):
            return True
    if buf[p] in _DIGITS and p > 0:
        prv = buf[p - 1]
        if prv in _DIGITS or (prv in b".," and p > 1 and buf[p - 2] in _DIGITS):
            return True
    return False


_TEXT_RUN = re.compile(rb"[\x20-\x7e]{32,}")


def text_runs(path: Path) -> int:
    """Runs of 32+ printable ASCII bytes in a binary file (random floats make one about
    once in 10^14 bytes)."""
    n, tail = 0, b""
    try:
        with open(path, "rb") as fh:
            while block := fh.read(CHUNK):
                buf = tail + block
                n += sum(1 for m in _TEXT_RUN.finditer(buf) if m.end() > len(tail))
                tail = buf[-64:]
    except OSError:
        return 0
    return n


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
    import numpy as np

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
        return HnswSegment(
            seg_dir, np.zeros(0, np.int64), np.zeros(0, bool), np.zeros((0, dim), np.float32)
        )
    arr = np.frombuffer(data, dtype=np.uint8, count=count * size).reshape(count, size)
    vectors = arr[:, data_off : data_off + dim * 4].copy().view(np.float32).reshape(count, dim)
    labels = (
        arr[:, label_off : label_off + 8].copy().view(np.uint64).reshape(count).astype(np.int64)
    )
    deleted = (arr[:, 2] & 1).astype(bool)
    return HnswSegment(seg_dir, labels, deleted, vectors)


def hnsw_segments(chroma_dir: Path) -> list[HnswSegment]:
    out: list[HnswSegment] = []
    if not Path(chroma_dir).is_dir():
        return out
    for d in sorted(Path(chroma_dir).iterdir()):
        if d.is_dir():
            seg = read_hnsw_segment(d)
            if seg is not None:
                out.append(seg)
    return out


def vector_hits(
    chroma_dir: Path, vectors, threshold: float = 0.995
) -> list[tuple[Path, int, float, int]]:
    """(segment dir, element index, cosine, which vector) for every stored vector that is
    (nearly) one of the given ones, including elements hnswlib only marked deleted. Each
    segment is read once, whatever the number of vectors."""
    import numpy as np

    q = np.asarray(vectors, dtype=np.float32)
    if q.ndim != 2 or not len(q):
        return []
    q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    out = []
    for seg in hnsw_segments(chroma_dir):
        if not len(seg.vectors) or seg.vectors.shape[1] != q.shape[1]:
            continue
        norms = np.linalg.norm(seg.vectors, axis=1)
        norms[norms == 0] = 1.0
        for s in range(0, len(seg.vectors), 65536):
            sims = (seg.vectors[s : s + 65536] @ q.T) / norms[s : s + 65536, None]
            for i, k in zip(*np.nonzero(sims >= threshold)):
                out.append((seg.path, int(s + i), float(sims[i, k]), int(k)))
    return out


def vector_bytes_present(paths: Iterable[Path], vectors) -> list[tuple[Path, int]]:
    """(file, which vector) for files holding the exact float32 bytes of a vector (Chroma's
    queue and metadata tables store the vector as given)."""
    import numpy as np

    needles = {
        str(k): np.asarray(v, dtype=np.float32).tobytes()[:64] for k, v in enumerate(vectors)
    }
    found = []
    for root in paths:
        for f in iter_files(Path(root)):
            for k, n in count_bytes(f, needles).items():
                if n:
                    found.append((f, int(k)))
    return found

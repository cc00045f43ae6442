"""The raw-bytes verifier's scanner: it must find every occurrence the slow way finds, at any
alignment, across chunk boundaries, in any letter case, for hundreds of strings at once."""

from __future__ import annotations

import random
import re

import numpy as np

from services.forget import raw_scan
from services.forget.raw_scan import NeedleScan, byte_pattern, count_bytes, scan_file


def naive(data: bytes, term: str) -> int:
    if not term.isascii():
        return len(byte_pattern(term).findall(data))
    pat = re.escape(term.lower().encode())
    # a number is whole: "3" is not in "13" or "3.5" (the rule forget matching applies)
    if term[-1].isdigit():
        pat += rb"(?![0-9])(?![.,][0-9])"
    if term[0].isdigit():
        pat = rb"(?<![0-9])(?<![0-9][.,])" + pat
    return len(re.findall(pat, data.lower()))


def corpus(rng: random.Random, terms: list[str], size: int) -> bytes:
    """Binary noise and filler prose with terms planted at random offsets and cases."""
    words = ["the", "user", "prefers", "memory", "deploy", "setting", "alpha", "number"]
    out = bytearray()
    while len(out) < size:
        r = rng.random()
        if r < 0.2:
            out += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        elif r < 0.3:
            t = rng.choice(terms)
            out += (t.upper() if rng.random() < 0.3 else t).encode()
        else:
            out += (" ".join(rng.choice(words) for _ in range(rng.randrange(1, 12)))).encode()
    return bytes(out)


def test_many_terms_counted_like_the_slow_scan_across_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(raw_scan, "CHUNK", 4096)  # many chunk boundaries
    rng = random.Random(7)
    terms = [f"Memory number {i}: the deploy setting is {i * 7 % 13}" for i in range(300)]
    terms += [f"Éditions {i} — the user prefers the dark dashboard theme" for i in range(40)]
    terms += [
        "short one",
        "ümlaut Straße café",
        "Ключ к серверу: переехал",
        "x" * 15,
        "the user prefers",
    ]
    data = corpus(rng, terms, 400_000)
    f = tmp_path / "blob.bin"
    f.write_bytes(data)
    got = scan_file(f, {t: byte_pattern(t) for t in terms})
    want = {t: naive(data, t) for t in terms}
    assert got == want
    assert sum(want.values()) > 500, "the corpus plants terms"
    absent = "a forgotten sentence that is nowhere in the file"
    assert scan_file(f, {absent: byte_pattern(absent)}) == {absent: 0}


def test_every_alignment_is_found():
    needle = b"prefers postgres over mysql"
    scan = NeedleScan({"n": needle})
    for pad in range(17):
        buf = b"\x00" * pad + needle + b"\xff" * 9
        assert scan.starts(buf)["n"] == {pad}, pad
    # at the very end of the buffer, with no bytes after it
    assert scan.starts(b"abc" + needle)["n"] == {3}


def test_vector_bytes_found_exactly(tmp_path):
    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((50, 384)).astype(np.float32)
    blob = bytearray(rng.integers(0, 256, 300_000, dtype=np.uint8).tobytes())
    at = 12345  # not 8-aligned
    blob[at : at + 1536] = vecs[17].tobytes()
    f = tmp_path / "chroma.sqlite3"
    f.write_bytes(bytes(blob))
    assert raw_scan.vector_bytes_present([f], vecs) == [(f, 17)]
    assert count_bytes(f, {"v": vecs[3].tobytes()[:64]}) == {"v": 0}

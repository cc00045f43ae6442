"""What a user finds grepping the data dir: the files holding a needle as raw bytes, in any
letter case (slugs and tags are lower-cased)."""

from __future__ import annotations

from pathlib import Path


def files_holding(data: Path, needle: str) -> list[str]:
    want = needle.lower().encode()
    return sorted(
        str(p.relative_to(data))
        for p in data.rglob("*")
        if p.is_file() and want in p.read_bytes().lower()
    )

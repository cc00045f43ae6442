"""Every input is bounded in size, time and memory, and says so when it is cut.

One place for the caps, so a 10 MB ``remember``, a 100k-word query, a zip whose gzip inflates
to a gigabyte, a YAML "billion laughs" in a frontmatter or a 200 MB JSONL line cannot take the
store, the search or the machine down. Each cap refuses (or trims) with a one-line reason
that names the limit and how to change it where a user may need to.

Defaults, overridable by environment variable for people with unusual needs:

=============================  =====================  ============
what                           variable               default
=============================  =====================  ============
one memory's text              ENGRAM_MAX_MEMORY      8 KiB
one file read by an importer   ENGRAM_MAX_FILE        32 MiB
one archive member, inflated   ENGRAM_MAX_MEMBER      64 MiB
one JSONL line                 ENGRAM_MAX_LINE        1 MiB
=============================  =====================  ============
"""

from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

from services.errors import InvalidInput

KIB, MIB = 1024, 1024 * 1024


def _env(name: str, default: int) -> int:
    try:
        value = int(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


def max_memory_bytes() -> int:
    return _env("ENGRAM_MAX_MEMORY", 8 * KIB)


def max_file_bytes() -> int:
    return _env("ENGRAM_MAX_FILE", 32 * MIB)


def max_member_bytes() -> int:
    return _env("ENGRAM_MAX_MEMBER", 64 * MIB)


def max_line_bytes() -> int:
    return _env("ENGRAM_MAX_LINE", 1 * MIB)


MAX_QUERY_CHARS = 2000
MAX_QUERY_TERMS = 64
MAX_YAML_BYTES = 64 * KIB
MAX_YAML_ALIASES = 32
MAX_YAML_NODES = 20_000


# --- one memory ------------------------------------------------------------------------------
def memory_too_long(text: str | None) -> str | None:
    """The reason ``text`` is refused as one memory, or None when it fits."""
    size = len((text or "").encode("utf-8", "surrogatepass"))
    limit = max_memory_bytes()
    if size <= limit:
        return None
    return (
        f"too long for one memory: {size:,} bytes (the limit is {limit:,}); store it as "
        "several shorter facts, or raise ENGRAM_MAX_MEMORY"
    )


def check_memory(text: str | None) -> None:
    """InvalidInput when ``text`` is longer than one memory may be."""
    reason = memory_too_long(text)
    if reason:
        raise InvalidInput(reason)


def check_size(text: str | None, target: str) -> None:
    """The write policy's size check: one fact is bounded; layers and logs are documents."""
    if target == "fact":
        check_memory(text)


# --- queries ---------------------------------------------------------------------------------
_TERM = re.compile(r"\w+", re.UNICODE)


def trim_query(query: str) -> str:
    """A query cut to its first ``MAX_QUERY_CHARS`` characters and ``MAX_QUERY_TERMS``
    distinct words, so keyword search costs the same for a sentence and for a pasted book."""
    q = (query or "")[:MAX_QUERY_CHARS]
    seen: dict[str, None] = {}
    end = len(q)
    for m in _TERM.finditer(q):
        key = m.group(0).casefold()
        if key in seen:
            continue
        if len(seen) == MAX_QUERY_TERMS:
            end = m.start()
            break
        seen[key] = None
    return q[:end]


# --- files -----------------------------------------------------------------------------------
class TooLarge(InvalidInput):
    """An input over one of the caps (its message says which and by how much)."""


def file_too_large(size: int, what: str = "file") -> str | None:
    limit = max_file_bytes()
    if size <= limit:
        return None
    return (
        f"{what} too large to import: {size:,} bytes (the limit is {limit:,}; raise "
        "ENGRAM_MAX_FILE to import it)"
    )


def inflate_capped(raw: bytes, limit: int | None = None, what: str = "member") -> bytes:
    """gzip/zlib data inflated in chunks, refused as soon as it passes ``limit`` bytes (a
    1 MB gzip can hold a gigabyte of zeros)."""
    limit = limit or max_member_bytes()
    d = zlib.decompressobj(wbits=47)  # gzip or zlib header, detected
    out = io.BytesIO()
    view = memoryview(raw)
    for s in range(0, len(view), 64 * KIB):
        chunk = d.decompress(view[s : s + 64 * KIB], limit + 1 - out.tell())
        out.write(chunk)
        if out.tell() > limit or d.unconsumed_tail:
            raise TooLarge(_inflated(what, limit))
    out.write(d.flush(limit + 1 - out.tell()))
    if out.tell() > limit:
        raise TooLarge(_inflated(what, limit))
    return out.getvalue()


def read_member_capped(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int | None = None
) -> bytes:
    """A zip member read in chunks and refused past ``limit`` inflated bytes (its declared
    size is the writer's word, not a promise)."""
    limit = limit or max_member_bytes()
    name = info.filename
    if info.file_size > limit:
        raise TooLarge(_inflated(name, limit))
    out = io.BytesIO()
    with zf.open(info) as fh:
        while chunk := fh.read(256 * KIB):
            out.write(chunk)
            if out.tell() > limit:
                raise TooLarge(_inflated(name, limit))
    return out.getvalue()


def _inflated(what: str, limit: int) -> str:
    return (
        f"{what} inflates past {limit:,} bytes (a compression bomb, or an export larger than "
        "ENGRAM_MAX_MEMBER allows): skipped"
    )


def lines_capped(text: str, limit: int | None = None) -> Iterator[tuple[int, str | None]]:
    """(line number, line) for each line of ``text``; a line over ``limit`` characters is
    yielded as None so the caller reports it and goes on."""
    limit = limit or max_line_bytes()
    start, no = 0, 0
    n = len(text)
    while start <= n:
        end = text.find("\n", start)
        end = n if end < 0 else end
        no += 1
        yield no, (text[start:end] if end - start <= limit else None)
        start = end + 1


def raw_lines(fh: BinaryIO, limit: int | None = None) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) from a binary file, streamed; a line over ``limit`` bytes is
    yielded as None and drained chunk by chunk, never held whole in memory."""
    limit = limit or max_line_bytes()
    n = 0
    while raw := fh.readline(limit + 1):
        n += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while (more := fh.readline(MIB)) and not more.endswith(b"\n"):
                pass
            yield n, None
            continue
        yield n, raw


# --- YAML --------------------------------------------------------------------------------------
def yaml_safe(block: str) -> Any:
    """``yaml.safe_load`` behind size, alias and node caps (a "billion laughs" expands a few
    hundred bytes into gigabytes only when something walks it). TooLarge past a cap."""
    import yaml

    if len(block) > MAX_YAML_BYTES:
        raise TooLarge(f"frontmatter over {MAX_YAML_BYTES:,} characters: not read as YAML")
    aliases = nodes = 0
    for event in yaml.parse(block, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
        nodes += 1
        if aliases > MAX_YAML_ALIASES or nodes > MAX_YAML_NODES:
            raise TooLarge(
                "frontmatter with too many YAML aliases or nodes (a 'billion laughs'): not expanded"
            )
    return yaml.safe_load(block)

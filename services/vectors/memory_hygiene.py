"""Freed memory must not carry memories to disk.

Chroma persists each HNSW segment's whole capacity, and the slots it has not used yet are
whatever the allocator handed it: glibc recycles freed heap blocks without clearing them, and
after a few large frees it serves even big allocations from that heap (its mmap threshold
grows). Seen here: another agent's fact text inside an unused slot of ``data_level0.bin``,
still there after that agent was forgotten. So every process that opens a store asks glibc
to (1) fill freed blocks (``M_PERTURB``), and (2) keep serving allocations of 128 KiB and
more from fresh zeroed pages (a fixed ``M_MMAP_THRESHOLD`` stops the growth). Blocks of 1 KiB
and less stay in glibc's per-thread cache, which perturbing does not reach; a segment buffer
is far larger. Elsewhere (macOS, Windows, musl) this is a no-op. Either way the forget
verifier looks for text in every segment file and rewrites a segment that holds any.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys

log = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3
M_PERTURB = -6
_done: bool | None = None


def harden_allocator() -> bool:
    """True when glibc accepted both settings (idempotent, cheap to call again)."""
    global _done
    if _done is not None:
        return _done
    _done = False
    if not sys.platform.startswith("linux"):
        return _done
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and others have no mallopt
        return _done
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    _done = bool(mallopt(M_PERTURB, 0x5A)) and bool(mallopt(M_MMAP_THRESHOLD, 128 * 1024))
    if not _done:
        log.warning("could not harden the allocator; the forget verifier still checks")
    return _done

"""Who makes a write and from where: recorded on every audit event (schema v4).

Who: ``ENGRAM_USER``, else the OS user @ host. From where: what the process's entry point
declared with ``set_origin`` (``cli``, ``app``, ``hook``, ``mcp:<client>``), else
``ENGRAM_ORIGIN``, else unknown (a library caller).
"""

from __future__ import annotations

import getpass
import os
import socket

_origin: str | None = None


def current_user() -> str:
    env = os.environ.get("ENGRAM_USER", "").strip()
    if env:
        return env[:255]
    try:
        user = getpass.getuser()
    except Exception:  # no login name (a container without /etc/passwd entry)
        user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
    return f"{user}@{socket.gethostname()}"[:255]


def set_origin(origin: str | None, override: bool = True) -> None:
    """Declare where this process's writes come from; ``override=False`` keeps an origin a
    caller already set (the hook runtime runs CLI code)."""
    global _origin
    if override or _origin is None:
        _origin = origin[:255] if origin else None


def current_origin() -> str | None:
    return _origin or os.environ.get("ENGRAM_ORIGIN") or None

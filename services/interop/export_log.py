"""Which files Engram exported, so a forget can reach the copies it made.

``<data_dir>/exports.json`` lists ``{"path", "agent", "format", "at"}``: paths only, never
content. Every exporter calls ``record_export``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from services.store.atomic import atomic_write
from services.store.filelock import exclusive_lock

LOG = "exports.json"


def _locked(data_dir: Path):
    return exclusive_lock(Path(data_dir) / ".exports.lock")


def exports(data_dir: Path, agent: str | None = None) -> list[dict]:
    path = Path(data_dir) / LOG
    try:
        items = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return []
    return [e for e in items if isinstance(e, dict) and (agent is None or e.get("agent") == agent)]


def record_export(data_dir: Path, agent: str | None, path: Path, fmt: str) -> None:
    data_dir = Path(data_dir)
    with _locked(data_dir):
        items = exports(data_dir)
        p = str(Path(path).resolve())
        items = [e for e in items if not (e.get("path") == p and e.get("agent") == agent)]
        items.append(
            {
                "path": p,
                "agent": agent,
                "format": fmt,
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
            }
        )
        atomic_write(data_dir / LOG, json.dumps(items, indent=1) + "\n")


def forget_exports(data_dir: Path, paths: set[str]) -> None:
    """Drop entries whose files were deleted by a forget."""
    data_dir = Path(data_dir)
    with _locked(data_dir):
        items = [e for e in exports(data_dir) if e.get("path") not in paths]
        atomic_write(data_dir / LOG, json.dumps(items, indent=1) + "\n")

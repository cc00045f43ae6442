"""One place resolves where data lives: --data-dir, then $ENGRAM_HOME, then platformdirs."""

from __future__ import annotations

import os
from pathlib import Path

from services.config import StoreConfig

APP_NAME = "engram"


def default_data_dir() -> Path:
    env = os.environ.get("ENGRAM_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def store_config(data_dir: str | Path | None = None, semantic: bool = True) -> StoreConfig:
    d = Path(data_dir).expanduser() if data_dir else default_data_dir()
    team = team_store_settings(d)  # the app's Team store dialog; the environment wins
    return StoreConfig(
        data_dir=d,
        db_url=os.environ.get("ENGRAM_DB_URL") or team.get("db_url") or None,
        vector_url=os.environ.get("ENGRAM_CHROMA_URL") or team.get("chroma_url") or None,
        model_dir=Path(os.environ["ENGRAM_MODEL_DIR"])
        if os.environ.get("ENGRAM_MODEL_DIR")
        else None,
        semantic=semantic,
    )


def team_store_settings(data_dir: Path) -> dict:
    """URLs saved by the Team store dialog (``team-store.json``; never a password)."""
    import json

    try:
        data = json.loads((data_dir / "team-store.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}

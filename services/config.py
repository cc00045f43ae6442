"""What a store is made of. ``app.settings`` resolves it from flags, env and platformdirs."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StoreConfig:
    data_dir: Path
    db_url: str | None = None  # default: <data_dir>/engram.db
    vector_url: str | None = None  # default: <data_dir>/chroma (a http(s):// URL: Chroma server)
    model_dir: Path | None = None  # default: services.vectors.model_files.default_model_dir()
    semantic: bool = True  # False: keyword search only, no model load (fast CLI hooks)
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        # absolute once, here: a forget's child processes run in another cwd, and a later
        # chdir must not move the store (a relative `--data-dir`/`ENGRAM_HOME`)
        self.data_dir = _absolute(self.data_dir)
        if self.model_dir is not None:
            self.model_dir = _absolute(self.model_dir)

    @property
    def database_url(self) -> str:
        return self.db_url or str(self.data_dir / "engram.db")

    @property
    def vector_location(self) -> str:
        return self.vector_url or str(self.data_dir / "chroma")

    def agent_dir(self, slug: str) -> Path:
        """Where compiled layers and exports of one agent are written."""
        return self.data_dir / "agents" / slug


def _absolute(p: str | Path) -> Path:
    # abspath, not resolve(): it keeps the user's symlinks in the paths the receipt names
    return Path(os.path.abspath(Path(p).expanduser()))

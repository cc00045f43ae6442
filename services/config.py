"""What a store is made of. ``app.settings`` resolves it from flags, env and platformdirs."""

from __future__ import annotations

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
        self.data_dir = Path(self.data_dir)

    @property
    def database_url(self) -> str:
        return self.db_url or str(self.data_dir / "engram.db")

    @property
    def vector_location(self) -> str:
        return self.vector_url or str(self.data_dir / "chroma")

    def agent_dir(self, slug: str) -> Path:
        """Where compiled layers and exports of one agent are written."""
        return self.data_dir / "agents" / slug

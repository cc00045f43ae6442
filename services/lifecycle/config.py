"""Knobs of the memory lifecycle (decay, TTLs, caps, budgets, summaries, LLM provider).

Stored in ``<data_dir>/settings.json`` under the ``"lifecycle"`` key so the file can hold other
sections (the GUI keeps its own there); saving rewrites only this section, atomically. A value
of the wrong type is ignored (the default is used and the problem listed in ``problems``)
rather than refusing to start: a hand-edited typo must not take the app down.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from services.store.atomic import atomic_write
from services.store.handle import MemoryHandle

log = logging.getLogger(__name__)
SETTINGS_FILE = "settings.json"
SECTION = "lifecycle"

# Days a fact lives without being referenced; None = never expires (Memory Setup's table).
DEFAULT_TTLS: dict[str, int | None] = {
    "tmp": 7,
    "task": 14,
    "env": 30,
    "proj": 30,
    "fact": 60,
    "pref": 60,
    "rule": None,
    "meta": None,
    "rel": None,
}
# Categories whose importance never decays (besides pinned facts).
NO_DECAY = ("rule", "meta", "rel")


@dataclass
class LifecycleConfig:
    # decay, applied once per elapsed day: imp * (1 - relative)^d - absolute * d (+ access bonus).
    # The seeds use 1 %/day absolute or 5 %/day relative; both at once archive a 0.6
    # preference in three weeks, long before its 60-day TTL, so only the absolute one is on.
    decay_absolute: float = 0.01
    decay_relative: float = 0.0
    access_bonus: float = 0.05  # added per retrieval since the last decay (capped at 4 hits)
    min_importance: float = 0.05  # below this a fact is archived
    ttl_days: dict = field(default_factory=lambda: dict(DEFAULT_TTLS))
    # bounded store
    short_term_cap: int = 200
    long_term_cap: int = (
        5000  # imported and consolidated memories; beyond it the weakest are archived
    )
    pending_threshold: int = 100  # hot (short-term) facts before new ones queue as pending
    promote_importance: float = 0.7  # consolidation: short → long term
    promote_access: int = 3
    episode_retention_days: int = 90
    session_retention_days: int = 180
    compiled_versions_kept: int = 20
    # compilation budgets, in tokens of the real tokenizer
    budget_today: int = 2000
    budget_week: int = 1500
    budget_longterm: int = 1000
    budget_memory: int = 2500
    # sessions
    turns_per_summary: int = 6
    review_below: float = 0.6  # extracted facts less sure than this wait in the review inbox
    # optional LLM provider (OpenAI-compatible); the API key lives in the OS keyring
    llm_endpoint: str | None = None
    llm_model: str | None = None
    llm_extract: bool = True  # use the LLM for fact extraction when an endpoint is set
    llm_compile: bool = False  # rewrite compiled layers with the LLM
    llm_timeout: float = 30.0
    llm_review: bool = True  # the LLM's facts go to the review inbox, not straight to memory
    problems: list = field(default_factory=list, compare=False, repr=False)

    def budget(self, layer: str) -> int:
        return int(getattr(self, f"budget_{layer}"))

    def ttl_for(self, category: str) -> int | None:
        base = (category or "fact").split(":")[0]
        return self.ttl_days.get(base, self.ttl_days.get("fact"))

    def to_json(self) -> dict:
        d = asdict(self)
        d.pop("problems", None)
        return d


def _settings_path(data_dir) -> Path:
    return Path(data_dir) / SETTINGS_FILE


def _coerce(name: str, value, default):
    """The value with the default's type, or raise ValueError."""
    if default is None:  # optional strings (llm_endpoint, llm_model)
        if value is None or isinstance(value, str):
            return value or None
        raise ValueError("expected text")
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        raise ValueError("expected true/false")
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
            raise ValueError("expected a whole number")
        if value < 0:
            raise ValueError("must not be negative")
        return int(value)
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("expected a number")
        if value < 0:
            raise ValueError("must not be negative")
        return float(value)
    if isinstance(default, dict):
        if not isinstance(value, dict):
            raise ValueError("expected an object")
        out = dict(default)
        for k, v in value.items():
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise ValueError(f"{k}: expected days (a whole number) or null")
            out[str(k)] = v
        return out
    raise ValueError("unsupported setting")


def _read_all(path: Path) -> dict:
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("top level is not an object")
    return data


def _apply(cfg: LifecycleConfig, section: dict, where: str) -> None:
    defaults = LifecycleConfig()
    for f in fields(LifecycleConfig):
        if f.name == "problems" or f.name not in section:
            continue
        try:
            setattr(cfg, f.name, _coerce(f.name, section[f.name], getattr(defaults, f.name)))
        except ValueError as exc:
            msg = f"{where}: setting {f.name!r} ignored ({exc})"
            log.warning(msg)
            cfg.problems.append(msg)


def config_for(memory: MemoryHandle) -> LifecycleConfig:
    """The store's settings with this agent's own overrides (``Agent.settings["lifecycle"]``,
    e.g. a smaller budget for an agent with a small context window)."""
    cfg = load_config(memory.engram.config.data_dir)
    own = (memory.settings or {}).get(SECTION)
    if isinstance(own, dict):
        _apply(cfg, own, f"agent {memory.slug}")
    return cfg


def load_config(data_dir) -> LifecycleConfig:
    cfg = LifecycleConfig()
    path = _settings_path(data_dir)
    try:
        data = _read_all(path)
    except (OSError, ValueError, UnicodeError) as exc:
        msg = f"{path}: unreadable settings ({exc}); using defaults"
        log.warning(msg)
        cfg.problems.append(msg)
        return cfg
    section = data.get(SECTION) or {}
    if not isinstance(section, dict):
        cfg.problems.append(f"{path}: '{SECTION}' is not an object; using defaults")
        return cfg
    _apply(cfg, section, str(path))
    return cfg


def save_config(data_dir, cfg: LifecycleConfig) -> Path:
    path = _settings_path(data_dir)
    try:
        data = _read_all(path)
    except (OSError, ValueError, UnicodeError):
        # Do not throw away a file we cannot read: keep it beside the new one.
        if path.exists():
            path.replace(path.with_name(path.name + ".unreadable"))
        data = {}
    data[SECTION] = cfg.to_json()
    return atomic_write(path, json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n")

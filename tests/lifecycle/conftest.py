"""Fixtures of the lifecycle tests: transcript writers (generic JSONL {role, content})."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta
from pathlib import Path

# --import-mode=importlib does not put test dirs on sys.path; the builders here are ours
sys.path.insert(0, str(Path(__file__).resolve().parent))

FIXTURES = Path(__file__).parent / "fixtures"
CC_SAMPLE_V1 = "formats/samples/claude-code-v1.0.98/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
CC_SAMPLE_V21 = "formats/samples/claude-code-v2.1.38/short.jsonl"

USER_LINES = [
    "I prefer pnpm over npm for every project.",
    "Please add a health check endpoint.",
    "We decided to use Postgres for the orders service.",
    "Can you rename the config loader?",
    "I'm on macOS and my editor is Neovim.",
    "Add retries to the HTTP client please.",
    "Remind me to rotate the staging certificates.",
    "Write tests for the parser module.",
    "Never push to main without a review.",
    "Make the logs less noisy.",
    "I like short commit messages.",
    "Bump the version to 2.0.",
    "TODO: document the deploy script",
]


def write_generic(
    path: Path,
    turns: int,
    start: datetime = datetime(2026, 3, 2, 9, 0),
    session_id: str | None = "gen-1",
    assistant_claims: str = "",
) -> Path:
    """``turns`` user/assistant exchanges, one minute apart, with a system line first."""
    lines = []
    if session_id:
        lines.append(
            {"role": "system", "content": "You are a coding agent.", "session_id": session_id}
        )
    for i in range(turns):
        ts = start + timedelta(minutes=2 * i)
        lines.append(
            {
                "role": "user",
                "content": USER_LINES[i % len(USER_LINES)] + f" (step {i + 1})",
                "timestamp": ts.isoformat() + "Z",
            }
        )
        reply = f"Done with step {i + 1}. {assistant_claims}".strip()
        lines.append(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": reply}],
                "timestamp": (ts + timedelta(minutes=1)).isoformat() + "Z",
            }
        )
    path.write_text("".join(json.dumps(l) + "\n" for l in lines), encoding="utf-8")
    return path


import pytest  # noqa: E402


@pytest.fixture
def transcript(tmp_path):
    """Factory: transcript(turns, **kw) → path of a generic JSONL transcript."""
    counter = iter(range(1000))

    def make(turns: int, **kw) -> Path:
        return write_generic(tmp_path / f"t{next(counter)}.jsonl", turns, **kw)

    return make


@pytest.fixture
def cc_fixture() -> Path:
    return FIXTURES / "cc-branching.jsonl"


@pytest.fixture
def lc_config():
    """A config with the defaults, the LLM off (tests pass it explicitly, nothing read from disk)."""
    from services.lifecycle.config import LifecycleConfig

    return LifecycleConfig()

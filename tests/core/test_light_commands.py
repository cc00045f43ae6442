"""`pin`, `unpin`, `edit --importance`, `delete` and a mistyped `--agent` load neither Chroma
nor the embedding model (issue 33: they took 5-8x a `list`, 25 s before "no agent" under
load). Each runs as the user runs it, `python -m app.cli` in its own process, with
``-X importtime`` listing every module it imported. A deleted fact's vector is owed
(``vector-deletes``): the next process with the index drops it, and no search returns the
fact meanwhile. Real store, real Chroma, real model."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from services.config import StoreConfig
from services.engram import Engram
from services.store.facts import FactFilters

ROOT = Path(__file__).resolve().parents[2]
HEAVY = re.compile(r"\|\s*(chromadb|onnxruntime)$", re.M)
GONE = "The staging database password rotates every ninety days"


def _engram(data: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANONYMIZED_TELEMETRY": "False"}
    env.pop("ENGRAM_HOME", None)
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "app.cli", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=240,
    )
    return p, HEAVY.findall(p.stderr)


@pytest.fixture
def store(tmp_path):
    data = tmp_path / "store"
    with Engram.open(StoreConfig(data_dir=data)) as e:
        assert e.semantic_enabled, e.semantic_error
        m = e.agent("claude", create=True)
        ids = [
            m.remember(t).fact_id
            for t in (
                "We deploy on Fridays after the release review",
                "The team prefers pytest over unittest",
                GONE,
            )
        ]
        assert set(ids) <= e.index.all_ids(m.agent_id)
    return data, ids


def test_light_commands_work_without_loading_the_model(store):
    data, (deploy, tests, gone) = store
    for args, out in (
        (["pin", str(deploy)], f"{deploy}\n"),
        (["unpin", str(deploy)], f"{deploy}\n"),
        (["pin", str(tests)], f"{tests}\n"),
        (["edit", str(deploy), "--importance", "0.9"], f"{deploy}\n"),
        (["delete", str(gone), "--yes"], f"{gone}\n"),
    ):
        p, heavy = _engram(data, *args)
        assert p.returncode == 0, p.stderr[-2000:]
        assert p.stdout == out
        assert heavy == [], f"{args[0]} imported {heavy}"
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        m = e.agent("claude")
        assert m.get(tests).pinned and not m.get(deploy).pinned
        assert m.get(deploy).importance == pytest.approx(0.9)
        assert gone not in {f.id for f in m.list(FactFilters())}


def test_a_mistyped_agent_is_told_before_any_model_loads(store):
    data, _ = store
    p, heavy = _engram(data, "recall", "--agent", "claud", "deploy")
    assert p.returncode != 0
    assert "no agent 'claud'" in p.stderr
    assert heavy == []


def test_a_deleted_facts_vector_goes_with_the_next_index_and_is_never_found(store):
    data, (_, _, gone) = store
    p, heavy = _engram(data, "delete", str(gone), "--yes")
    assert p.returncode == 0 and heavy == [], p.stderr[-2000:]
    assert (data / "vector-deletes").exists()  # owed, not done: the index was never opened
    with Engram.open(StoreConfig(data_dir=data)) as e:
        m = e.agent("claude")
        for mode in ("semantic", "hybrid"):
            hits = m.search(GONE, k=5, mode=mode, touch=False)
            assert gone not in [h.fact.id for h in hits]
            assert all("password" not in h.fact.content for h in hits)
        assert gone not in e.index.all_ids(m.agent_id)
    assert not (data / "vector-deletes").exists()

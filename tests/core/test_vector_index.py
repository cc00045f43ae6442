"""The vector index survives another process rebuilding an agent's collection."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def test_handle_to_a_collection_rebuilt_by_another_process_recovers(tmp_path):
    from services.vectors.index import VectorIndex

    here = VectorIndex(tmp_path / "chroma")
    rng = np.random.default_rng(7)
    here.upsert(1, [1, 2, 3], ["a", "b", "c"], rng.random((3, 384), dtype=np.float32))
    assert here.count(1) == 3
    # what `engram forget` in a hook's process does: drop the collection, rebuild it
    code = (
        "import numpy as np\nfrom services.vectors.index import VectorIndex\n"
        f"b = VectorIndex({str(tmp_path / 'chroma')!r}); b.drop(1)\n"
        "b.upsert(1, [7, 8], ['x', 'y'], np.eye(2, 384, dtype=np.float32))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)
    assert here.count(1) == 2
    assert {i for i, _ in here.query(1, np.eye(1, 384, dtype=np.float32)[0], k=5)} == {7, 8}
    assert here.all_ids(1) == {7, 8}

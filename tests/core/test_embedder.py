"""The embedding model: offline files, hash checks, batching that does not change vectors."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from services.errors import ModelUnavailable
from services.vectors.embedder import load_embedder
from services.vectors.model_files import locate_model


def test_vectors_do_not_depend_on_batch_companions():
    emb = load_embedder()
    texts = [
        "short",
        "a considerably longer sentence about configuring the CI pipeline " * 3,
        "medium length text about pnpm",
    ]
    together = emb.embed(texts)
    alone = np.stack([emb.embed_one(t) for t in texts])
    assert together.shape == (3, 384)
    assert np.allclose(together, alone, atol=1e-4)  # dynamic padding + masking is exact
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-4)


def test_paraphrases_are_closer_than_unrelated_text():
    emb = load_embedder()
    a, b, c = emb.embed(
        [
            "The user prefers pnpm over npm",
            "They like using pnpm rather than npm",
            "It is snowing in Oslo today",
        ]
    )
    assert a @ b > 0.7 > a @ c


def test_missing_model_says_what_to_do(tmp_path):
    with pytest.raises(ModelUnavailable, match="run `engram model install`"):
        locate_model(tmp_path)


def test_corrupt_model_file_is_refused(tmp_path):
    files = locate_model()
    shutil.copy(files.onnx, tmp_path / "model.onnx")
    (tmp_path / "tokenizer.json").write_bytes(files.tokenizer.read_bytes()[:-10] + b"corrupted!")
    with pytest.raises(ModelUnavailable, match="corrupt"):
        locate_model(tmp_path)


def test_store_opens_without_model_and_explains(tmp_path, monkeypatch):
    from services.config import StoreConfig
    from services.engram import Engram

    e = Engram.open(StoreConfig(data_dir=tmp_path / "s", model_dir=tmp_path / "empty"))
    try:
        assert not e.semantic_enabled
        assert "Semantic search is off" in e.semantic_error
        mem = e.agent("a", create=True)
        assert mem.remember("still works").status == "added"
    finally:
        e.close()


def test_count_tokens_uses_wordpiece():
    emb = load_embedder()
    assert emb.count_tokens("hello world") == 2
    assert emb.count_tokens("unbelievably") > 1  # split into word pieces, not characters/4

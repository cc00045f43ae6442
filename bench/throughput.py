"""Embedding throughput: Engram's Embedder against Chroma's ``DefaultEmbeddingFunction`` on
the same texts and the same model files (our int8 ``model.onnx`` and ``tokenizer.json``).

Chroma's function is pointed at a temporary folder laid out as it expects
(``<DOWNLOAD_PATH>/onnx/{model.onnx, tokenizer.json, …}``) so it never downloads anything.
It builds a new ``ONNXMiniLM_L6_V2`` (loading the model) on every call and pads every text
to 256 tokens; Engram pads each length-sorted batch to its own longest text and loads once.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np


def _chroma_dir(files, root: Path) -> Path:
    onnx = root / "onnx"
    onnx.mkdir(parents=True)
    os.symlink(files.onnx, onnx / "model.onnx")
    os.symlink(files.tokenizer, onnx / "tokenizer.json")
    vocab = json.loads(Path(files.tokenizer).read_text(encoding="utf-8"))["model"]["vocab"]
    (onnx / "vocab.txt").write_text(
        "\n".join(t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])) + "\n",
        encoding="utf-8",
    )
    for name in ("config.json", "special_tokens_map.json", "tokenizer_config.json"):
        (onnx / name).write_text("{}", encoding="utf-8")
    return root


def run(texts: list[str], call_batch: int = 32) -> dict:
    from chromadb.api.types import DefaultEmbeddingFunction
    from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

    from services.vectors.embedder import Embedder
    from services.vectors.model_files import locate_model

    files = locate_model()
    out: dict = {"texts": len(texts), "model": str(files.onnx.name), "cpu_count": os.cpu_count()}
    t = time.perf_counter()
    emb = Embedder(files)
    out["engram_load_s"] = round(time.perf_counter() - t, 2)
    emb.embed(texts[:8])  # warm-up
    t = time.perf_counter()
    ours = emb.embed(texts)
    out["engram_s"] = round(time.perf_counter() - t, 2)
    with tempfile.TemporaryDirectory() as tmp:
        old = ONNXMiniLM_L6_V2.DOWNLOAD_PATH
        ONNXMiniLM_L6_V2.DOWNLOAD_PATH = _chroma_dir(files, Path(tmp))
        try:
            ef = DefaultEmbeddingFunction()
            ef(texts[:8])  # warm-up (file cache)
            t = time.perf_counter()
            theirs = np.array(ef(texts), dtype=np.float32)
            out["chroma_one_call_s"] = round(time.perf_counter() - t, 2)
            # as a collection.add() of `call_batch` documents at a time would call it
            sample = texts[: max(call_batch * 2, 1)]
            t = time.perf_counter()
            for s in range(0, len(sample), call_batch):
                ef(sample[s : s + call_batch])
            per = (time.perf_counter() - t) / len(sample)
            out["chroma_per_batch_calls_s_est"] = round(per * len(texts), 2)
        finally:
            ONNXMiniLM_L6_V2.DOWNLOAD_PATH = old
    out["engram_texts_per_s"] = round(len(texts) / out["engram_s"], 1)
    out["chroma_texts_per_s"] = round(len(texts) / out["chroma_one_call_s"], 1)
    out["ratio_one_call"] = round(out["chroma_one_call_s"] / out["engram_s"], 2)
    out["ratio_batches_of_%d" % call_batch] = round(
        out["chroma_per_batch_calls_s_est"] / out["engram_s"], 2
    )
    # same model, different padding: the vectors must agree (a check that we compared like
    # with like, not a speed trick that changed the output)
    cos = np.sum(ours * theirs, axis=1)
    out["min_cosine_engram_vs_chroma"] = round(float(cos.min()), 4)
    return out


def table(r: dict) -> str:
    return (
        f"Engram Embedder: {r['engram_s']} s for {r['texts']} texts "
        f"({r['engram_texts_per_s']}/s)\n"
        f"Chroma DefaultEmbeddingFunction, one call: {r['chroma_one_call_s']} s "
        f"({r['chroma_texts_per_s']}/s)  → ratio {r['ratio_one_call']}×\n"
        f"Chroma, called per 32 texts (model reloaded each call): "
        f"~{r['chroma_per_batch_calls_s_est']} s → ratio "
        f"{r.get('ratio_batches_of_32', '-')}×\n"
        f"same vectors: min cosine Engram vs Chroma {r['min_cosine_engram_vs_chroma']}"
    )

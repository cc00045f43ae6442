"""Sentence embeddings with onnxruntime + tokenizers, and the Chroma adapter.

Dynamic padding over length-sorted batches: a batch is padded only to its own longest text,
so short memories cost a few tokens, not 256. Chroma's DefaultEmbeddingFunction pads every
text to a fixed length and reloads its model per call; this is ~10x faster on 2 cores
(``make bench`` measures it).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from services.vectors.model_files import MODEL_ID, ModelFiles, locate_model

DIM = 384


class Embedder:
    model_id = MODEL_ID
    dim = DIM

    def __init__(
        self,
        files: ModelFiles,
        max_length: int = 256,
        batch_size: int = 32,
        threads: int | None = None,
    ):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.files = files
        self.batch_size = batch_size
        tok = Tokenizer.from_file(str(files.tokenizer))
        # The shipped tokenizer.json pads everything to a fixed 128: switch that off and pad
        # each batch to its own longest member instead.
        tok.no_padding()
        tok.enable_truncation(max_length=max_length)
        tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer = tok
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(files.onnx), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()  # tokenizers' padding state is shared

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in input order."""
        n = len(texts)
        out = np.zeros((n, DIM), dtype=np.float32)
        if n == 0:
            return out
        order = sorted(range(n), key=lambda i: len(texts[i]))
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._embed_batch([texts[i] or " " for i in idx])
        return out

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def _embed_batch(self, batch: list[str]) -> np.ndarray:
        with self._lock:
            enc = self._tokenizer.encode_batch(batch)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feed)[0]
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def count_tokens(self, text: str) -> int:
        """Tokens the model's WordPiece tokenizer makes of ``text`` (no truncation)."""
        return len(self.tokenizer_for_counting().encode(text, add_special_tokens=False).ids)

    def tokenizer_for_counting(self):
        if not hasattr(self, "_count_tok"):
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(self.files.tokenizer))
            tok.no_padding()
            tok.no_truncation()
            self._count_tok = tok
        return self._count_tok


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def load_embedder(model_dir: Path | None = None) -> Embedder:
    """The process-wide embedder (loading the ONNX session once); raises ModelUnavailable."""
    key = str(model_dir or "")
    with _cache_lock:
        if key not in _cache:
            _cache[key] = Embedder(locate_model(model_dir))
        return _cache[key]


def chroma_embedding_function(embedder: Embedder):
    """Wrap an Embedder as a registered Chroma ``EmbeddingFunction``."""
    return chroma_function_class()(embedder)


@functools.cache
def chroma_function_class():
    """Chroma's ``EmbeddingFunction`` subclass, defined (and registered) on first use: importing
    chromadb costs seconds, and the embedder alone (benchmarks, a keyword-only process, the
    MCP server before its warm-up) must not pay for it."""
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import register_embedding_function

    @register_embedding_function
    class EngramEmbeddingFunction(EmbeddingFunction[Documents]):
        def __init__(self, embedder: Embedder | None = None):
            self._embedder = embedder or load_embedder()

        def __call__(self, input: Documents) -> Embeddings:
            return list(self._embedder.embed(list(input)))

        @staticmethod
        def name() -> str:
            return "engram-minilm"

        def default_space(self):
            return "cosine"

        def supported_spaces(self):
            return ["cosine"]

        def get_config(self):
            return {"model_id": MODEL_ID}

        @staticmethod
        def build_from_config(config):
            return EngramEmbeddingFunction()

    return EngramEmbeddingFunction

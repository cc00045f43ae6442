"""Token counts for budgets, with the embedding model's real WordPiece tokenizer.

Characters/4 under-counts code and non-English text badly (claude-mem #1073); the tokenizer
file is small and loads in milliseconds without the ONNX model. Only when the file is missing
do we fall back to an estimate that splits like BERT's pre-tokenizer (words and punctuation)
and charges long words extra pieces.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

_lock = threading.Lock()
# WordPiece maps a word over 100 characters to one [UNK]: a 10 MB run of letters would "cost"
# one token and blow every budget. A budget is a promise about size too, so a text is never
# counted below one token per this many characters (services.ingest.limits says the same).
MAX_CHARS_PER_TOKEN = 8
_PIECES = re.compile(r"\w+|[^\w\s]", re.UNICODE)


@lru_cache(maxsize=1)
def _tokenizer():
    try:
        from tokenizers import Tokenizer

        from services.vectors.model_files import locate_model

        tok = Tokenizer.from_file(str(locate_model(verify=False).tokenizer))
    except Exception:
        return None
    tok.no_padding()
    tok.no_truncation()
    return tok


def using_real_tokenizer() -> bool:
    return _tokenizer() is not None


def estimate_tokens(text: str) -> int:
    n = 0
    for piece in _PIECES.findall(text):
        # WordPiece splits rare long words into ~4-character pieces
        n += 1 if len(piece) <= 6 else 1 + (len(piece) - 3) // 4
    return n


def count_tokens(text: str) -> int:
    if not text:
        return 0
    tok = _tokenizer()
    if tok is None:
        return estimate_tokens(text)
    with _lock:
        n = len(tok.encode(text, add_special_tokens=False).ids)
    return max(n, len(text) // MAX_CHARS_PER_TOKEN)


def count_tokens_many(texts: list[str]) -> list[int]:
    """Counts for many short texts in one call (the tokenizer batches in Rust)."""
    tok = _tokenizer()
    if tok is None:
        return [estimate_tokens(t) for t in texts]
    if not texts:
        return []
    with _lock:
        got = tok.encode_batch(list(texts), add_special_tokens=False)
    return [max(len(e.ids), len(t) // MAX_CHARS_PER_TOKEN) for e, t in zip(got, texts)]

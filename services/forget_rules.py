"""Forget rules: content that must never be stored again, kept without keeping the text.

A rule holds keyed hashes (HMAC-SHA256 with a per-store key) of the normalised word n-grams of
the forgotten terms. Candidate text is normalised, its n-grams hashed with the same key, and
the rule fires when every hash of one of its terms is present.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import threading
from pathlib import Path

from models import ForgetRule
from services.text import words

_key_lock = threading.Lock()
_keys: dict[str, bytes] = {}


def store_key(data_dir: Path) -> bytes:
    """The per-store HMAC key, created on first use (0600)."""
    path = Path(data_dir) / "forget.key"
    with _key_lock:
        if str(path) in _keys:
            return _keys[str(path)]
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(os.urandom(32))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        _keys[str(path)] = path.read_bytes()
        return _keys[str(path)]


def term_hash(key: bytes, term_words: list[str]) -> str:
    return hmac.new(key, " ".join(term_words).encode("utf-8"), hashlib.sha256).hexdigest()


def term_hashes(key: bytes, term: str) -> tuple[str, int]:
    """One hash for a whole (normalised) term and its word count."""
    w = words(term)
    return term_hash(key, w), len(w)


def text_ngram_hashes(key: bytes, text: str, sizes: set[int]) -> set[str]:
    w = words(text)
    out: set[str] = set()
    for n in sizes:
        for i in range(0, max(0, len(w) - n + 1)):
            out.add(term_hash(key, w[i:i + n]))
    return out


def matching_rule(key: bytes, agent_id: int, text: str) -> ForgetRule | None:
    rules = list(ForgetRule.select().where(
        (ForgetRule.agent == agent_id) | (ForgetRule.agent.is_null())))
    if not rules:
        return None
    sizes = {r.ngram for r in rules}
    present = text_ngram_hashes(key, text, sizes)
    for r in rules:
        if r.hashes and any(h in present for h in r.hashes):
            return r
    return None


def add_rule(key: bytes, agent_id: int | None, label: str, terms: list[str]) -> ForgetRule:
    hashes, sizes = [], set()
    for t in terms:
        h, n = term_hashes(key, t)
        if n:
            hashes.append(h)
            sizes.add(n)
    if not hashes:
        raise ValueError("a forget rule needs at least one word")
    # one rule per n-gram size keeps matching a set lookup
    rule = None
    for n in sorted(sizes):
        hs = [term_hash(key, words(t)) for t in terms if len(words(t)) == n]
        rule = ForgetRule.create(agent=agent_id, label=label, hashes=hs, ngram=n)
    return rule

"""Forget rules: content that must never be stored again, kept without keeping the text.

A rule holds keyed hashes (HMAC-SHA256 with a per-store key in ``<data_dir>/forget.key``, or
on a team store the team's key, which only the server holds: services/ingest/rule_key.py) of
the normalised word sequence of each forgotten term. Candidate text is normalised, each of its
word n-grams (for the n's the rules use) is hashed with the same key, and a rule fires when
one of its term hashes is present. Without the key a hash cannot be tested against guesses,
so the rule table says nothing about what was forgotten; the label is the user's words.

Hashes are stored as ``"<n>:<hex>"`` (n = the term's word count) so one rule can hold terms
of different lengths; older rules hold bare hex with the length in ``ForgetRule.ngram``.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from models import ForgetRule
from services.ingest.rule_key import RuleKey
from services.store.text import words

_key_lock = threading.Lock()
_keys: dict[str, bytes] = {}
MAX_TERM_WORDS = 64  # longer terms are hashed on their first 64 words: a 64-word run is unique


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


def text_ngram_hashes(key: RuleKey, text: str, sizes: set[int]) -> set[tuple[int, str]]:
    w = words(text)
    grams = [(n, " ".join(w[i : i + n])) for n in sizes for i in range(max(0, len(w) - n + 1))]
    hashed = key.hash_many([g for _, g in grams])  # one round trip on a team store
    return {(n, h) for (n, _), h in zip(grams, hashed, strict=True)}


def _entries(rule: ForgetRule) -> list[tuple[int, str]]:
    out = []
    for h in rule.hashes or ():
        if ":" in h:
            n, hx = h.split(":", 1)
            out.append((int(n), hx))
        else:
            out.append((int(rule.ngram or 1), h))
    return out


def rules_for(agent_id: int) -> list[ForgetRule]:
    return list(
        ForgetRule.select().where((ForgetRule.agent == agent_id) | (ForgetRule.agent.is_null()))
    )


def matching_rule(
    key: RuleKey, agent_id: int, text: str, rules: list[ForgetRule] | None = None
) -> ForgetRule | None:
    """``rules``: the agent's rules read once by a caller checking many texts."""
    rules = rules_for(agent_id) if rules is None else rules
    if not rules:
        return None
    entries = {r.id: _entries(r) for r in rules}
    sizes = {n for es in entries.values() for n, _ in es}
    present = text_ngram_hashes(key, text, sizes)
    for r in rules:
        if any(e in present for e in entries[r.id]):
            return r
    return None


def add_rule(key: RuleKey, agent_id: int | None, label: str, terms: list[str]) -> ForgetRule:
    """One rule holding a keyed hash per distinct term (``agent_id`` None: every agent)."""
    grams = [w for w in (words(t)[:MAX_TERM_WORDS] for t in terms) if w]
    hashes: list[str] = []
    for w, h in zip(grams, key.hash_many([" ".join(w) for w in grams]), strict=True):
        if f"{len(w)}:{h}" not in hashes:
            hashes.append(f"{len(w)}:{h}")
    if not hashes:
        raise ValueError("a forget rule needs at least one word")
    sizes = {int(h.split(":", 1)[0]) for h in hashes}
    return ForgetRule.create(
        agent=agent_id, label=label, hashes=hashes, ngram=min(sizes) if len(sizes) == 1 else 0
    )


@dataclass(frozen=True)
class RuleView:
    id: int
    agent: str | None  # slug, None = every agent
    label: str
    terms: int
    created_at: str

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "agent": self.agent,
            "label": self.label,
            "terms": self.terms,
            "created_at": self.created_at,
        }


def list_rules() -> list[RuleView]:
    from models import Agent

    slugs = dict(Agent.select(Agent.id, Agent.slug).tuples())
    return [
        RuleView(
            r.id,
            slugs.get(r.agent_id) if r.agent_id else None,
            r.label,
            len(r.hashes or ()),
            r.created_at.isoformat(),
        )
        for r in ForgetRule.select().order_by(ForgetRule.id)
    ]


def remove_rule(rule_id: int) -> bool:
    return ForgetRule.delete().where(ForgetRule.id == rule_id).execute() > 0

"""The one place forget rules, receipts and scopes are hashed (HMAC-SHA256 under a key).

A local store keeps its key in ``<data_dir>/forget.key`` and hashes here. A team store keeps
the team's key in the server, readable by the admin role only (schema v15): a member's
client sends the normalised words to ``engram_rule_hash`` and gets the hashes back, so the
key never reaches a member's machine. Both give the same HMAC, so rules hashed either way
match each other.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import Any

MEMO = 50_000  # hashes kept per key: a batch checks the same words again and again


class RuleKey:
    """``secret``: hash here; ``db``: hash through the team store's function."""

    def __init__(self, secret: bytes | None = None, db: Any = None) -> None:
        if (secret is None) == (db is None):
            raise ValueError("a rule key is a secret or a team store, one of them")
        self._secret, self._db = secret, db
        self._memo: dict[str, str] = {}

    @property
    def on_server(self) -> bool:
        return self._db is not None

    def hash(self, message: str) -> str:
        return self.hash_many([message])[0]

    def hash_many(self, messages: Sequence[str]) -> list[str]:
        if self._secret is not None:
            key = self._secret
            return [hmac.new(key, m.encode("utf-8"), hashlib.sha256).hexdigest() for m in messages]
        got = {m: self._memo[m] for m in messages if m in self._memo}
        todo = list(dict.fromkeys(m for m in messages if m not in got))
        if todo:
            row = self._db.execute_sql("SELECT engram_rule_hash(%s::text[])", (todo,)).fetchone()
            fresh = dict(zip(todo, row[0], strict=True))
            got.update(fresh)
            if len(self._memo) + len(fresh) > MEMO:
                self._memo.clear()
            self._memo.update(fresh)
        return [got[m] for m in messages]

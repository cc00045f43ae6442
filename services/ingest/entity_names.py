"""The write policy's check for entity names that do not come from a fact's clean text (an
import's ``metadata["entity"]``, a user's rename or alias): a name the policy would change
(a secret, personal data under deny/ask, a forgotten string) is not stored at all."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.store.handle import MemoryHandle


def name_check(memory: MemoryHandle) -> Callable[[str], str | None]:
    def clean(name: str) -> str | None:
        # imported here: every agent handle makes this check, most never call it (`pin`)
        from services.ingest.policy import Target, policy_for

        verdict = policy_for(memory).sanitize(name, Target.OTHER)
        text = str(verdict.text).strip()
        return text if verdict.storable and text == name.strip() else None

    return clean

"""THE write policy: every path that stores or changes memory text passes through ``sanitize``.

secret redaction → personal-data policy (per agent) → forget rules → validation.

What comes out is a ``CleanText`` (``services.store.text``); the store layer refuses to write
memory text of any other type, so a new write path that forgets the policy fails loudly in
its first test instead of quietly storing a secret.

``sanitize_for(memory, text)`` reads the agent's settings and the store's forget key; code that
sanitizes many texts for one agent builds a ``WritePolicy`` once (``policy_for(memory)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from services.errors import InvalidInput
from services.ingest import limits
from services.ingest.forget_rules import matching_rule, rules_for
from services.ingest.pii import apply_pii
from services.ingest.redaction import redact
from services.ingest.rule_key import RuleKey
from services.store.text import CleanMeta, CleanText

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.store.handle import MemoryHandle


class Target(StrEnum):
    """Where the text is going decides what "ask" means: a fact can wait in review
    (``pending``); an episode, a layer or an audit snapshot cannot, so there the personal data
    the user wants to be asked about is redacted instead."""

    FACT = "fact"
    EPISODE = "episode"
    OTHER = "other"


@dataclass
class Verdict:
    text: CleanText
    secrets: int = 0
    secret_kinds: list[str] = field(default_factory=list)
    pii_found: dict = field(default_factory=dict)
    pii_redacted: int = 0
    pending: bool = False  # personal data under "ask": the fact waits for the user's review
    blocked_by: str | None = None  # label of the forget rule the text matches

    @property
    def empty(self) -> bool:
        return not self.text

    @property
    def storable(self) -> bool:
        return bool(self.text) and self.blocked_by is None

    def audit_note(self) -> dict | None:
        """Counts for the audit log (never the redacted content)."""
        if not (self.secrets or self.pii_found):
            return None
        return {
            "secrets": self.secrets,
            "kinds": sorted(set(self.secret_kinds)),
            "pii": self.pii_found,
            "pii_redacted": self.pii_redacted,
        }


@dataclass(frozen=True)
class WritePolicy:
    """What the policy needs to know about one agent: its personal-data setting, the store's
    forget key and whether any forget rule could apply (skipping the rule query when none)."""

    agent_id: int | None
    pii: dict | str | None
    key: RuleKey | None
    # the agent's forget rules, read once per policy (a batch): every field of every item is
    # checked against them
    _rules: list = field(default_factory=list, compare=False, repr=False)
    _rules_read: list = field(default_factory=list, compare=False, repr=False)
    # field values repeat across a batch (metadata keys, tags, a file's path): judged once
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def rules(self) -> list:
        if not self._rules_read and self.agent_id is not None:
            self._rules.extend(rules_for(self.agent_id))
            self._rules_read.append(True)
        return self._rules

    def sanitize(self, text: str | None, target: Target = Target.FACT) -> Verdict:
        return sanitize(text, self, target)

    def tags(self, tags: Any) -> list[CleanText]:
        """Tags are memory text too (keywords drawn from a session can be a token): a tag the
        policy would change or block is dropped, not stored half-redacted."""
        out: list[CleanText] = []
        for tag in tags or ():
            text = self.label(str(tag))
            if text is not None and text not in out:
                out.append(text)
        return out

    def label(self, text: str) -> CleanText | None:
        """A short name (a tag, a category), kept only when the policy leaves it as it is.
        Importers slug names into labels ("a@b.org" → "a-b.org"), which hides an address
        from the detector, so each way of reading a "-" back as the "@" is judged too."""
        text = text.strip()
        if not text or self.field(text) != text:
            return None
        for reading in _unslugged(text):
            if self.field(reading) != reading:
                return None
        return CleanText(text)

    def category(self, category: str | None) -> CleanText:
        """A category is shown, compiled into the layers and filtered on: a secret or
        personal data in it leaves it. What is left is its kind ("rel" of "rel:<name>") when
        that passes, else the default."""
        value = (category or "").strip() or "fact"
        for candidate in (value, value.split(":", 1)[0]):
            clean = self.label(candidate)
            if clean is not None:
                return clean
        return CleanText("fact")

    def field(self, text: str | None, strip: bool = True) -> CleanText | None:
        """A short field beside the content (a subject, a metadata string): stored redacted,
        with personal data under "ask" redacted too (a field cannot wait in review on its
        own); None when a forget rule covers it or nothing is left."""
        if text is None:
            return None
        memo_key = (str(text), strip)
        if memo_key in self._memo:
            return self._memo[memo_key]
        verdict = sanitize(str(text), self, Target.OTHER)
        out = None
        if not verdict.blocked_by and str(verdict.text).strip():
            out = CleanText(str(verdict.text).strip() if strip else verdict.text)
        if len(self._memo) > 20_000:
            self._memo.clear()
        self._memo[memo_key] = out
        return out

    def metadata(self, meta: Any) -> CleanMeta:
        """Every string in a fact's metadata, keys included, at any depth, through ``field``;
        what the policy blocks is left out."""
        out = _clean_json(meta or {}, self)
        return CleanMeta(out if isinstance(out, dict) else {})


def policy_for(memory: MemoryHandle) -> WritePolicy:
    return WritePolicy(
        memory.agent_id, (memory.settings or {}).get("pii"), memory.engram.forget_key()
    )


def check_utf8(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: undecodable bytes from argv or a file
        raise InvalidInput("the text is not valid UTF-8; nothing was stored") from None


def sanitize(text: str | None, policy: WritePolicy, target: Target = Target.FACT) -> Verdict:
    # a fact or an episode is one statement (trimmed); a document (a layer, a log) keeps its
    # layout byte for byte
    trim = target is not Target.OTHER
    raw = (text or "").strip() if trim else (text or "")
    check_utf8(raw)
    limits.check_size(raw, target)
    red = redact(raw)
    clean = red.text.strip() if trim else red.text
    pii_setting = policy.pii
    if target is not Target.FACT and pii_setting:
        pii_setting = _ask_as_deny(pii_setting)
    pii = apply_pii(clean, pii_setting)
    if pii.found:
        clean = pii.text.strip() if trim else pii.text
    verdict = Verdict(
        CleanText(clean),
        secrets=red.count,
        secret_kinds=list(red.kinds),
        pii_found=dict(pii.found),
        pii_redacted=pii.redacted,
        pending=pii.pending and target is Target.FACT,
    )
    if clean and policy.key is not None and policy.agent_id is not None:
        rule = matching_rule(policy.key, policy.agent_id, clean, policy.rules())
        if rule is not None:
            verdict.blocked_by = rule.label
    return verdict


def sanitize_for(memory: MemoryHandle, text: str | None, target: Target = Target.FACT) -> Verdict:
    return sanitize(text, policy_for(memory), target)


def scrub_snapshot(snap: Any, policy: WritePolicy) -> Any:
    """An audit snapshot (or any JSON value) with every memory text in it sanitized: archives
    carry before/after copies of facts, and those are memory text too."""
    if isinstance(snap, dict):
        out: dict = {}
        for k, v in snap.items():
            if k in ("content", "summary", "markdown") and isinstance(v, str):
                verdict = policy.sanitize(v, Target.OTHER)
                out[k] = "" if verdict.blocked_by else str(verdict.text)
            elif k == "category" and isinstance(v, str):
                out[k] = policy.category(v)
            elif k == "subject" and isinstance(v, str):
                out[k] = policy.field(v)
            elif k == "tags" and isinstance(v, list):
                out[k] = policy.tags(v)
            elif k == "metadata" and isinstance(v, dict):
                out[k] = dict(policy.metadata(v))
            else:
                out[k] = scrub_snapshot(v, policy)
        return out
    if isinstance(snap, list):
        return [scrub_snapshot(v, policy) for v in snap]
    return snap


_DROP = object()
_SLUG_READINGS = 16  # a label with more dashes is not read back (no slug of a name has that)


def _unslugged(text: str) -> list[str]:
    if "@" in text or "-" not in text:
        return []
    parts = text.split("-")
    if len(parts) > _SLUG_READINGS:
        return []
    return ["-".join(parts[:i]) + "@" + "-".join(parts[i:]) for i in range(1, len(parts))]


def _clean_json(value: Any, policy: WritePolicy) -> Any:
    if isinstance(value, str):
        clean = policy.field(value, strip=False) if value.strip() else CleanText(value)
        return _DROP if clean is None else clean
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            key = _clean_json(str(k), policy)
            val = _clean_json(v, policy)
            if key is not _DROP and val is not _DROP:
                out[key] = val
        return out
    if isinstance(value, list | tuple):
        return [v for v in (_clean_json(x, policy) for x in value) if v is not _DROP]
    return value


def _ask_as_deny(setting: Any) -> Any:
    if isinstance(setting, dict):
        return {k: ("deny" if v == "ask" else v) for k, v in setting.items()}
    return "deny" if setting == "ask" else setting

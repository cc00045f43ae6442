"""Relations a fact states between two entities it names ("X works on Y", "X is Y's
manager"). Only what the words say: no relation is inferred from two names sharing a fact."""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.entities.extract import Mention

ROLE_NOUNS = {
    "manager": "manages",
    "boss": "manages",
    "lead": "leads",
    "mentor": "mentors",
    "wife": "spouse of",
    "husband": "spouse of",
    "partner": "partner of",
    "sister": "sibling of",
    "brother": "sibling of",
    "colleague": "colleague of",
    "friend": "friend of",
    "cofounder": "cofounder of",
    "co-founder": "cofounder of",
    "client": "client of",
    "assistant": "assists",
    "teammate": "colleague of",
}
# text between X and Y → relation type (X type Y)
_BETWEEN: list[tuple[re.Pattern, str]] = [
    (
        re.compile(r"^\s+(?:works|worked|is working|has been working)\s+on\s+(?:the\s+)?$", re.I),
        "works on",
    ),
    (re.compile(r"^\s+(?:works|worked|is working)\s+(?:at|for)\s+$", re.I), "works at"),
    (re.compile(r"^\s+(?:reports|reported)\s+(?:directly\s+)?to\s+$", re.I), "reports to"),
    (re.compile(r"^\s+(?:owns|maintains|created|built|wrote)\s+(?:the\s+)?$", re.I), "owns"),
    (re.compile(r"^\s+(?:leads|runs|manages)\s+(?:the\s+)?$", re.I), "manages"),
    (
        re.compile(
            r"^\s+(?:uses|is using|relies on|runs on|is built with|is written in)\s+$", re.I
        ),
        "uses",
    ),
    (re.compile(r"^\s+(?:lives|lived|is based|moved)\s+(?:in|to)\s+$", re.I), "lives in"),
    (re.compile(r"^\s+(?:is married to|married)\s+$", re.I), "spouse of"),
    (
        re.compile(r"^\s+(?:is part of|belongs to|is a subproject of)\s+(?:the\s+)?$", re.I),
        "part of",
    ),
    (re.compile(r"^\s+(?:depends on|requires)\s+$", re.I), "depends on"),
]
_IS = re.compile(r"^\s+(?:is|was)\s+$", re.I)
_POSS_ROLE = re.compile(r"^['’]s\s+([a-z-]+)\b", re.I)  # after Y: "'s manager"
_ROLE_IS = re.compile(r"^['’]s\s+([a-z-]+)\s+(?:is|was)\s+$", re.I)  # between: "'s manager is"


@dataclass(frozen=True)
class StatedRelation:
    src: Mention
    type: str
    dst: Mention


def stated_relations(text: str, mentions: list[Mention]) -> list[StatedRelation]:
    spans = sorted((m for m in mentions if m.start >= 0), key=lambda m: m.start)
    out: list[StatedRelation] = []
    for a, b in zip(spans, spans[1:]):
        between = text[a.end : b.start]
        rel = _relation(text, a, b, between)
        if rel and rel not in out:
            out.append(rel)
    return out


def _relation(text: str, a: Mention, b: Mention, between: str) -> StatedRelation | None:
    for pat, typ in _BETWEEN:
        if pat.match(between):
            return StatedRelation(a, typ, b)
    if _IS.match(between):  # "X is Y's manager" → X manages Y
        role = _POSS_ROLE.match(text[b.end :]) or _POSS_ROLE.match(_tail(text, b))
        if role and role.group(1).lower() in ROLE_NOUNS:
            return StatedRelation(a, ROLE_NOUNS[role.group(1).lower()], b)
    role_is = _ROLE_IS.match(_tail_from(text, a, b))
    if role_is and role_is.group(1).lower() in ROLE_NOUNS:  # "X's manager is Y" → Y manages X
        return StatedRelation(b, ROLE_NOUNS[role_is.group(1).lower()], a)
    return None


def _tail(text: str, m: Mention) -> str:
    return text[m.end :]


def _tail_from(text: str, a: Mention, b: Mention) -> str:
    """The text between a's name (possessive included) and b."""
    return text[a.end : b.start]

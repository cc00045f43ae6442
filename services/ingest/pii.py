"""Personal data policy per agent: emails, phone numbers and postal addresses.

``Agent.settings["pii"]`` is ``"allow"`` (the default: store as is), ``"ask"`` (store the fact
with status ``pending`` so the user reviews it before it is used) or ``"deny"`` (replace the
personal data with ``[REDACTED:<kind>]`` at ingest), either for every kind or per kind:
``{"email": "deny", "phone": "ask", "address": "allow"}``. Card numbers (Luhn-checked) and
national ids (US social security numbers) are kinds of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

POLICIES = ("allow", "ask", "deny")
KINDS = ("email", "phone", "address", "card", "national-id")

_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)
_PHONE = re.compile(
    r"(?<![\w/.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,5}){1,4}(?![\w/-])"
    r"|(?<![\w/.-])\+\d{8,15}(?!\w)"
)
_STREET = (
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|"
    r"Place|Pl|Terrace|Parkway|Pkwy|Square|Sq|Highway|Hwy|Close|Crescent)"
)
_ADDRESS = re.compile(
    # "221B Baker Street", "1600 Pennsylvania Avenue NW, Washington, DC 20500"
    r"\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][A-Za-z'.-]*\s+){1,4}"
    + _STREET
    + r"\b\.?(?:\s+(?:NW|NE|SW|SE|N|S|E|W)\b)?(?:,\s*(?:Apt|Suite|Unit)\.?\s*\w+)?"
    r"(?:,\s*[A-Z][A-Za-z.'-]*(?:\s[A-Z][A-Za-z.'-]*)*){0,2}(?:\s+\d{5}(?:-\d{4})?)?"
    # "Rue de Rivoli 12", "Hauptstraße 5", "Kungsgatan 44"
    r"|\b(?:[A-Z][a-zäöüß]+(?:straße|strasse|gasse|weg|gatan|vägen|laan|straat)|Rue|Via|Calle|Avenida)"
    r"(?:\s+(?:de|del|la|le|des|du|di)?\s*[A-Z][\w'-]+){0,3}\s+\d{1,5}[a-z]?\b"
    r"(?:,\s*\d{4,5}\s+[A-Z][\w-]+)?"
    # UK postcodes: "SW1A 1AA"
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b"
)
# 13-19 digits in groups of 4 (or one run): a payment card if the Luhn check passes
_CARD = re.compile(r"(?<![\w.-])(?:\d{4}[ -]){3}\d{1,7}(?![\w-])|(?<![\w.-])\d{13,19}(?![\w-])")
# US SSN: never 000/666/9xx area, 00 group or 0000 serial
_SSN = re.compile(r"(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])")
_DATE = re.compile(r"^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$")
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")


def _phone_ok(s: str) -> bool:
    digits = sum(c.isdigit() for c in s)
    if not 9 <= digits <= 15 or _DATE.match(s) or _IP.match(s):
        return False
    return not re.fullmatch(r"\d+(?:\.\d+)+", s) or s.startswith("+")  # versions, decimals


def luhn_ok(digits: str) -> bool:
    total = 0
    for k, ch in enumerate(reversed(digits)):
        d = int(ch)
        if k % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _cards(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and luhn_ok(digits) and len(set(digits)) > 1:
            out.append(("card", m.start(), m.end()))
    return out


def find_pii(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) spans, non-overlapping, in text order."""
    spans: list[tuple[str, int, int]] = _cards(text)
    spans += [("national-id", m.start(), m.end()) for m in _SSN.finditer(text)]
    for m in _EMAIL.finditer(text):
        spans.append(("email", m.start(), m.end()))
    for m in _ADDRESS.finditer(text):
        spans.append(("address", m.start(), m.end()))
    for m in _PHONE.finditer(text):
        if _phone_ok(m.group(0)):
            spans.append(("phone", m.start(), m.end()))
    rank = {"card": 0, "national-id": 0}
    spans.sort(key=lambda s: (s[1], -(s[2] - s[1]), rank.get(s[0], 1)))
    out: list[tuple[str, int, int]] = []
    for s in spans:
        if out and s[1] < out[-1][2]:
            continue
        out.append(s)
    return out


def action_for_kind(settings_pii: str | dict | None, kind: str) -> str:
    """The action (allow, redact, ask, deny) an agent's ``pii`` setting gives one kind."""
    if isinstance(settings_pii, dict):
        p = settings_pii.get(kind, settings_pii.get("default", "allow"))
    else:
        p = settings_pii or "allow"
    return p if p in POLICIES else "allow"


@dataclass
class PiiResult:
    text: str
    found: dict = field(default_factory=dict)  # kind → count
    redacted: int = 0
    pending: bool = False


def apply_pii(text: str, settings_pii: str | dict | None) -> PiiResult:
    if not settings_pii or settings_pii == "allow":
        return PiiResult(text)
    spans = find_pii(text)
    res = PiiResult(text)
    if not spans:
        return res
    pieces, last = [], 0
    for kind, a, b in spans:
        res.found[kind] = res.found.get(kind, 0) + 1
        pol = action_for_kind(settings_pii, kind)
        if pol == "deny":
            pieces += [text[last:a], f"[REDACTED:{kind}]"]
            last = b
            res.redacted += 1
        elif pol == "ask":
            res.pending = True
    pieces.append(text[last:])
    res.text = "".join(pieces)
    return res


def validate_policy(value: Any) -> dict | str:
    if isinstance(value, str):
        if value not in POLICIES:
            raise ValueError(f"PII policy must be one of {', '.join(POLICIES)}")
        return value
    bad = {
        k: v for k, v in dict(value).items() if k not in KINDS + ("default",) or v not in POLICIES
    }
    if bad:
        raise ValueError(f"PII policy: kinds {', '.join(KINDS)}; values {', '.join(POLICIES)}")
    return dict(value)

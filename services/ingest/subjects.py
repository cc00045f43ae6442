"""Subject keys: what a fact is *about*, so a newer statement can supersede an older one.

Deterministic patterns for the attributes people restate when they change ("I moved to …",
"my editor is now …", "prefers X over npm"). Two active facts with the same key in one agent
cannot both be current; the newer wins and the older is kept as ``superseded``.
"""

from __future__ import annotations

import re

from services.store.text import normalize

_SUBJ = r"(?:(?:the )?user(?:'s)?|i|i'm|my|he|she|they|their|his|her|[A-Z][a-z]+(?:'s)?)"
PATTERNS: list[tuple[re.Pattern, str]] = [
    (
        re.compile(r"\b(?:lives|living|live|moved|relocated|based|resides)\s+(?:in|to)\b", re.I),
        "location",
    ),
    (re.compile(r"\b(?:works|working|work|employed)\s+(?:at|for)\b", re.I), "employer"),
    (re.compile(r"\btime\s*zone\b", re.I), "timezone"),
    (re.compile(r"\b(?:name is|is called|goes by)\b", re.I), "name"),
    (re.compile(r"\bfavou?rite\s+([a-z]+(?:\s[a-z]+)?)\s+(?:is|are)\b", re.I), "favorite:{0}"),
    (
        re.compile(r"\bprefers?\s+\S+(?:\s\S+)?\s+(?:over|to|instead of)\s+([\w.+#-]+)", re.I),
        "prefers-over:{0}",
    ),
    (
        re.compile(
            r"\b(?:uses?|using)\s+\S+(?:\s\S+)?\s+(?:for|as)\s+(?:the\s+|their\s+|my\s+)?"
            r"([\w.+#-]+(?:\s[\w.+#-]+)?)",
            re.I,
        ),
        "tool-for:{0}",
    ),
    (
        re.compile(r"\b(?:my|the user's|user's|their)\s+([a-z]+(?:\s[a-z]+)?)\s+is\b", re.I),
        "attr:{0}",
    ),
]


def infer_subject(text: str) -> str | None:
    for pat, key in PATTERNS:
        m = pat.search(text)
        if m:
            groups = [normalize(g) for g in m.groups() if g]
            return key.format(*groups) if groups else key
    return None

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


# --- whose subject it is ---------------------------------------------------------------------
# A subject key names an attribute ("employer"); two facts share it only when they are about
# the same holder: "Alice works at Google" and "Bob works at Meta" are two people's employers.
# The holder is the noun phrase before the sentence's main verb, normalised so that "I", "my",
# "the user" and "User's" are one person and articles and possessive marks do not count.

_VERBS = frozenset(
    "is are was were am be been has have had will would can cannot could should must may "
    "might does do did isnt arent wasnt werent doesnt dont didnt cant wont hasnt havent "
    "uses use used using lives live lived living moved moves relocated works work worked "
    "working prefers prefer preferred likes like liked dislikes dislike loves love hates hate "
    "owns own owned runs run ran listens listen needs need wants want goes go went writes "
    "write wrote reads read speaks speak knows know hosts host holds hold stays stay stores "
    "store ships ship deploys deploy builds build depends depend requires require contains "
    "contain belongs belong leads lead manages manage joined joins join reports report "
    "avoids avoid enjoys enjoy drives drive plays play studies study teaches teach targets "
    "target supports support includes include starts start ends end takes take gets get "
    "got becomes became remains remain sits sit lacks lack costs cost weighs weigh "
    "allows allow forbids forbid blocks block waits wait".split()
)
# adverbs and negations sit between the holder and its verb ("Alice now works at …")
_ADVERBS = frozenset(
    "not no never always usually often sometimes rarely now currently still also already "
    "actually really just recently finally nolonger longer formerly previously mostly".split()
)
_SELF = frozenset("i me my mine myself user users user's users' i'm im i’m".split())
_DROP = frozenset(
    "the a an of 's this that these those our timezone time zone tz name names favorite "
    "favourite".split()
)
_WORD = re.compile(r"[\w'’.\-/#]+")
MAX_HOLDER_WORDS = 8


def _holder_word(w: str) -> str:
    w = w.strip(".'’-/").replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    elif w.endswith("s'"):
        w = w[:-1]
    return w


def holder(text: str) -> str | None:
    """Who or what ``text`` is about ("alice", "user dog", "ticket eng-101"), or None when
    the sentence has no recognisable subject before its verb."""
    head = (text or "")[:300].replace("n't", "nt").replace("n’t", "nt")
    # "Org17: is based in …" (an importer's "<entity>: <observation>") names its holder first
    colon = head.find(":")
    if 0 < colon < 60 and len(head[:colon].split()) <= 5 and not head[colon - 1].isdigit():
        return _normalise_holder(_words(head[:colon])) or None
    words = _words(head)
    out: list[str] = []
    for k, w in enumerate(words[: MAX_HOLDER_WORDS + 1]):
        if w in ("i'm", "im", "i’m"):
            out.append("user")
            return _normalise_holder(out)
        if k > 0 and (w in _VERBS or w in _ADVERBS) and not _noun_here(out, w):
            return _normalise_holder(out) or None
        out.append(w)
    return None


# words that are nouns as often as verbs: after "the staging" (a singular subject so far) a
# bare "host" cannot be the verb ("the host hosts"), so "The staging host for A" and "… for B"
# are two holders, not one "staging" whose new value superseded the other's (harness finding)
_NOUN_TOO = frozenset(
    "host use run store ship build work report lead play drive block cost target support "
    "start end".split()
)
_SINGULAR = frozenset("the a an this that".split())


def _noun_here(before: list[str], w: str) -> bool:
    return (
        w in _NOUN_TOO
        and len(before) > 1
        and before[0] in _SINGULAR
        and not before[-1].endswith("s")
    )


def _words(text: str) -> list[str]:
    """Lower-cased words, except that a capital letter standing alone names an item ("Repo
    A", "Plan B") rather than being an article."""
    out = []
    for k, t in enumerate(_WORD.findall(text)):
        out.append("#" + t.lower() if k > 0 and len(t) == 1 and t.isupper() else t.lower())
    return out


def _normalise_holder(words: list[str]) -> str:
    out: list[str] = []
    for raw in words:
        w = raw.replace("’", "'")
        if w in _SELF or _holder_word(w) in _SELF:
            w = "user"
        else:
            w = _holder_word(w)
        if not w or w in _DROP:
            continue
        if w == "user" and out and out[-1] == "user":
            continue
        out.append(_stem(w))
    return " ".join(out)


def _stem(w: str) -> str:
    if len(w) > 4 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def subject_key(text: str) -> str | None:
    """The attribute key of :func:`infer_subject`, scoped to the fact's holder: the user's own
    keys stay as they were ("location"); anyone else's carry the holder first
    ("alice/employer"), so a different person or item never shares the key."""
    key = infer_subject(text)
    if key is None:
        return None
    who = holder(text)
    if who is None or who == "user":
        return key
    return f"{who}/{key}"

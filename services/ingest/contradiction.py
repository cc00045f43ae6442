"""Is a near-duplicate the same statement, or a correction of it?

Two memories can sit at cosine 0.98 and say opposite things: "User is allergic to peanuts" /
"User is not allergic to peanuts", "Server IP is 10.0.0.5" / "… 10.0.0.6". Embeddings barely
see negation, numbers, versions, dates, addresses, names or units, so near-duplicate merging
asks this module first. ``compare(old, new)`` answers:

- ``same``: the same statement in other words: merge;
- ``update``: the same sentence frame with a value changed (or negated): the new fact
  supersedes the old one;
- ``distinct``: two different things numbered alike ("note 17" / "note 18"), or the same
  attribute of two different holders ("Alice works at Google" / "Bob works at Meta"): both stay;
- ``conflict``: they differ in a way a rule cannot settle, or say opposite things with
  antonyms ("likes" / "dislikes", "always" / "never", "allowed" / "forbidden"), which an
  embedding reads as the same sentence: both stay, a person decides.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from services.ingest.subjects import holder

NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot cant isnt arent wasnt "
    "werent dont doesnt didnt wont wouldnt shouldnt couldnt hasnt havent hadnt nolonger "
    "stopped quit disabled".split()
)
# a number after one of these names an item, not a value of it
ORDINAL_WORDS = frozenset(
    "number no # id item fact note entry record ticket issue row case test worker writer "
    "thread batch step task part chapter page line pr job run".split()
)
UNITS = frozenset(
    "b kb mb gb tb pb kib mib gib tib ms s sec secs second seconds min mins minute minutes h "
    "hr hrs hour hours day days week weeks month months year years px em rem pt % percent "
    "mm cm m km in inch inches ft feet mi mile miles g kg mg lb lbs oz l ml c f k hz khz mhz "
    "ghz v w kw mw mbps gbps kbps rpm usd eur gbp $ € £ cores core threads gbit mbit".split()
)
STOP = frozenset(
    "a an the is are was were be been being to of in on at for by with and or it its this "
    "that these those as from into over user users our we i my me you your they their his "
    "her he she has have had do does did will would should can could may might must also "
    "now currently actually really just still any some".split()
)

_TOKEN = re.compile(
    r"(?<![\w-])(?-i:[A-Z]{2,10}-\d+)\b"  # item ids: ENG-101 (not eu-west-1)
    r"|\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?"  # IPv4 with optional port
    r"|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}"  # IPv6
    r"|v?\d+(?:[.,:/\-]\d+)*[a-z%]*"  # numbers, versions, dates, times, 10ms
    r"|[$€£%#]"
    r"|[\w'’]+",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
_ID = re.compile(r"^[a-z]{2,10}-\d+$")  # ENG-101, JIRA-7: an item's name, not a value

# word forms that say the opposite of each other about one subject
_ANTONYM_PAIRS = [
    ("like likes liked liking", "dislike dislikes disliked hate hates hated"),
    ("love loves loved", "hate hates hated dislike dislikes"),
    ("always", "never"),
    ("allowed allow allows permitted", "forbidden forbids forbid prohibited banned disallowed"),
    ("enabled enable", "disabled disable"),
    ("include includes included", "exclude excludes excluded"),
    ("accept accepts accepted", "reject rejects rejected"),
    ("true", "false"),
    ("on", "off"),
    ("required mandatory", "optional"),
    ("public", "private"),
    ("prefer prefers preferred", "avoid avoids avoided"),
    ("before", "after"),
    ("open opened", "closed close"),
    ("passing passes passed", "failing fails failed"),
    ("up", "down"),
    ("single", "double"),
    ("dark", "light"),
    ("married", "divorced"),
]
_ANTONYMS = [(frozenset(a.split()), frozenset(b.split())) for a, b in _ANTONYM_PAIRS]


def _opposed(a_words: set, b_words: set) -> bool:
    for x, y in _ANTONYMS:
        for left, right in ((x, y), (y, x)):
            only_a = (a_words & left) - b_words
            only_b = (b_words & right) - a_words
            if only_a and only_b and not (a_words & right) and not (b_words & left):
                return True
    return False


_RULE = re.compile(
    r"^\W*(?:always|never|do not|don't|dont|avoid|use|include|prefer|run)\b"
    r"|\b(?:allowed|permitted|forbidden|required)\b",
    re.I,
)


def _is_rule(text: str) -> bool:
    """An instruction or a permission ("Never squash", "Force-pushing is allowed")."""
    return bool(_RULE.search(text))


@dataclass(frozen=True)
class _Parts:
    negations: int
    values: Counter  # numbers, versions, dates, addresses (with a unit glued on)
    ordinals: Counter  # numbers naming an item ("note 17")
    names: set  # capitalised or code-like words past the first
    units: Counter
    frame: set  # content words left once values are taken out


def _tokens(text: str) -> list[tuple[str, str]]:
    """(raw, folded) tokens; apostrophes dropped so "isn't" is one word."""
    out = []
    for m in _TOKEN.finditer(text.replace("n't", "nt").replace("n’t", "nt")):
        raw = m.group(0).strip("'’")
        if raw:
            out.append((raw, raw.lower()))
    return out


def _parts(text: str) -> _Parts:
    toks = _tokens(text)
    negations = 0
    values: Counter = Counter()
    ordinals: Counter = Counter()
    units: Counter = Counter()
    names: set = set()
    frame: set = set()
    prev = ""
    for raw, low in toks:
        if low == "longer" and prev == "no":
            pass  # "no longer" is one negation
        elif low in NEGATIONS:
            negations += 1
        elif _ID.match(low):
            ordinals[low] += 1
        elif _DIGIT.search(low):
            (ordinals if prev in ORDINAL_WORDS else values)[low.lstrip("v")] += 1
        elif low in UNITS and prev and _DIGIT.search(prev):
            units[low] += 1
        elif (raw[:1].isupper() or any(c in raw for c in "_./")) and low not in STOP:
            names.add(low)
        elif low not in STOP:
            frame.add(_stem(low))
        prev = low
    return _Parts(negations, values, ordinals, names, units, frame)


def _stem(w: str) -> str:
    for suf in ("ing", "ed", "s"):
        if len(w) > len(suf) + 2 and w.endswith(suf) and not w.endswith("ss"):
            return w[: -len(suf)]
    return w


def differences(old: str, new: str) -> list[str]:
    """The kinds of value in which the two statements differ (empty: none found)."""
    a, b = _parts(old), _parts(new)
    out = []
    if (a.negations % 2) != (b.negations % 2):
        out.append("negation")
    if a.values != b.values:
        out.append("value")
    if a.ordinals != b.ordinals:
        out.append("ordinal")
    if a.units != b.units:
        out.append("unit")
    # a name only one side has is a substitution when the other side has its own
    a_words = {w for _, w in _tokens(old)}
    b_words = {w for _, w in _tokens(new)}
    if (a.names - b_words) and (b.names - a_words):
        out.append("name")
    if _opposed(a_words, b_words):
        out.append("antonym")
    return out


def signature(text: str) -> tuple:
    """What two statements must share to be ``same``: the holder, the values, item numbers
    and units, and the negation parity. Batches group by it, so the within-batch duplicate
    check compares a memory only with the few that could be its twin."""
    p = _parts(text)
    return (
        holder(text),
        tuple(sorted(p.values.items())),
        tuple(sorted(p.ordinals.items())),
        tuple(sorted(p.units.items())),
        p.negations % 2,
    )


def compare(old: str, new: str, strict: bool = False) -> str:
    """``same`` | ``update`` | ``distinct`` | ``conflict`` (see the module note).

    ``strict`` (for pairs the embedding puts further apart): an update only when the rest of
    the sentence is word for word the same; anything else is ``distinct``."""
    a_holder, b_holder = holder(old), holder(new)
    if a_holder and b_holder and a_holder != b_holder:
        return "distinct"  # a different person or item: never merged, never superseded
    diff = differences(old, new)
    if not diff:
        return "same"
    if "antonym" in diff:
        return "conflict"
    if "negation" in diff and (_is_rule(old) or _is_rule(new)):
        return "conflict"  # a rule and its negation: which one holds is a person's call
    if "ordinal" in diff and "negation" not in diff:
        return "distinct"
    a, b = _parts(old), _parts(new)
    union = a.frame | b.frame
    overlap = len(a.frame & b.frame) / len(union) if union else 1.0
    if strict:
        same_frame = a.frame == b.frame and len(diff) == 1
        return "update" if same_frame else "distinct"
    # one kind of change (a value with its unit counts as one) in an otherwise matching
    # sentence is a correction; anything else (a negation and a new value at once, a
    # reworded sentence) needs a person
    one_change = len(diff) == 1 or set(diff) <= {"value", "unit"}
    return "update" if overlap >= 0.6 and one_change else "conflict"

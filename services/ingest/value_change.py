"""Value changes and opposites between a new memory and the ones already stored.

A value change says in its own words that a value moved on: "Standup moved to 10:00", "CI now
runs on GitHub Actions", "We upgraded Postgres to version 16", "We moved from Jira to Linear",
"The default branch was renamed to main", "Feature flags are no longer managed in
LaunchDarkly". Embeddings put these far from the fact they replace ("Standup is at 9:30"), so
the near-duplicate pass never pairs them; here the words do. The old fact is the newest active
one that names the same subject (every content word of it) or the old value ("from Jira"), and
does not already hold the new value.

An opposite states the other side of the same subject with no word saying which is newer
("Always use tabs in Go files" / "Never use tabs in Go files", married / divorced, dark / light
mode, green / red build): a rule cannot settle it, so it waits in the review inbox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.ingest.subjects import holder

_CHANGE_VERBS = (
    r"moved|changed|renamed|upgraded|downgraded|switched|migrated|bumped|shifted|"
    r"reassigned|rescheduled|relocated"
)
_AUX = r"(?:(?:was|were|has been|have been|is|are|got|has|have|had)\s+)?"
_FROM_TO = re.compile(
    rf"^(?P<pre>.*?)\b(?:{_CHANGE_VERBS})\s+(?P<mid>(?:[\w.+#/-]+\s+){{0,4}}?)from\s+"
    rf"(?P<old>.+?)\s+(?:to|for)\s+(?P<new>.+)$",
    re.I,
)
_WE_CHANGED = re.compile(
    rf"^(?:we|i|they|you|the team)\s+{_AUX}(?:{_CHANGE_VERBS})\s+(?P<subj>.+?)\s+"
    r"(?:to|into)\s+(?P<new>.+)$",
    re.I,
)
_CHANGED_TO = re.compile(
    rf"^(?P<subj>.+?)\s+{_AUX}(?:{_CHANGE_VERBS})\s+(?:over\s+)?(?:to|into)\s+(?P<new>.+)$",
    re.I,
)
_IS_NOW = re.compile(r"^(?P<subj>.+?)\s+(?:is|are)\s+now\s+(?P<new>.+)$", re.I)
_NOW_VERB = re.compile(r"^(?P<subj>.+?)\s+now\s+(?P<verb>[a-z]+)\s+(?P<new>.+)$", re.I)
_NO_LONGER = re.compile(
    r"^(?P<subj>.+?)\s+(?:(?:is|are|does|do|will|can)\s+)?no\s+longer\s+(?P<rest>.+?)"
    r"(?:[;,]\s*(?P<new>.+))?$",
    re.I,
)
_WORD = re.compile(r"[A-Za-z0-9][\w.+#/-]*")
_STOP = frozenset(
    "the a an our my your their his her its this that these those we i you they it us "
    "team is are was were be been has have had do does did will can of in on at for to by "
    "with from and or now also just still every each all main".split()
)
_PEOPLE = frozenset("user user's users".split())


@dataclass(frozen=True)
class Change:
    subject: frozenset  # content words (stemmed) the old fact must all contain
    old: str | None  # the old value when the text names it ("from Jira")
    new: str  # the new value as written
    verb: str | None = None  # "now runs": the old fact must use the same verb
    named: bool = False  # "We upgraded Postgres to …": the subject is named, not the holder
    cue: str = ""  # the words that say it changed, for the reason shown


def _stem(w: str) -> str:
    w = w.lower().strip(".,;:!?'\"`()").removesuffix("'s").removesuffix("’s")
    for suf in ("ing", "ies", "s"):
        if len(w) > len(suf) + 3 and w.endswith(suf) and not w.endswith("ss"):
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


def _content(text: str) -> frozenset:
    return frozenset(_stem(w) for w in _WORD.findall(text) if _stem(w) not in _STOP)


def parse_change(text: str) -> Change | None:
    """The change ``text`` announces, or None when it announces none."""
    s = " ".join(text.split()).rstrip(".! ")
    if not s or len(s) > 300 or "\n" in text.strip():
        return None
    if re.search(r"\brenamed\b", s, re.I) and (m := _CHANGED_TO.match(s)):
        return Change(_content(m.group("subj")), None, m.group("new"), cue="renamed")
    if m := _FROM_TO.match(s):
        subj = _content(m.group("pre") + " " + m.group("mid"))
        return Change(subj - _PEOPLE, m.group("old"), m.group("new"), cue="from … to")
    if m := _NO_LONGER.match(s):
        subj = _content(m.group("subj")) | _content(m.group("rest"))
        return Change(subj, None, m.group("new") or "", cue="no longer")
    if (m := _WE_CHANGED.match(s)) and _valueish(s, m.group("new")):
        subj = _content(m.group("subj"))
        return Change(subj, None, m.group("new"), cue="changed to", named=True)
    if (m := _CHANGED_TO.match(s)) and _valueish(s, m.group("new")):
        subj = _content(m.group("subj"))
        if subj <= _PEOPLE:
            return None  # "The user moved to Porto": the subject keys (location) settle it
        return Change(subj, None, m.group("new"), cue="changed to")
    if m := _IS_NOW.match(s):
        return Change(_content(m.group("subj")), None, m.group("new"), cue="is now")
    if m := _NOW_VERB.match(s):
        verb = _stem(m.group("verb"))
        return Change(_content(m.group("subj")), None, m.group("new"), verb=verb, cue="now")
    return None


_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve every daily weekly "
    "monthly".split()
)


def _valueish(sentence: str, new: str) -> bool:
    """ "to 10:00", "to Thursday", "to version 16", "to stage.internal": a value. "I changed the
    README to mention X" moves no value (a new name after "renamed" always is one)."""
    first = new.split()[0] if new.split() else ""
    return (
        bool(re.search(r"\brenamed\b", sentence, re.I))
        or bool(re.search(r"\d|[._/#:@`-]", first))
        or first[:1].isupper()
        or first.lower() in _NUMBER_WORDS
        or first.lower() == "version"
    )


def _has(text: str, phrase: str) -> bool:
    return bool(re.search(rf"(?<![\w-]){re.escape(phrase.strip())}(?![\w-])", text, re.I))


def changes(change: Change, old_text: str) -> bool:
    """Whether ``old_text`` holds the value ``change`` replaces."""
    words = _content(old_text)
    if change.new and _value_head(change.new) and _has(old_text, _value_head(change.new)):
        return False  # it already says the new value: a restatement, not the old one
    if change.old is not None:
        return _has(old_text, change.old) and change.subject <= words | _PEOPLE
    if not change.subject or (change.subject <= _PEOPLE and change.verb is None):
        return False
    if not change.subject <= words:
        return False
    if change.verb is not None:
        return _verb_after_subject(old_text, change)
    if change.cue == "renamed" and not _NAMED.search(old_text):
        return False  # "The repository is open source" holds no name to replace
    if len(change.subject - _PEOPLE) <= 1 and not change.named:
        # one word ("Staging", "The repository") names many things: it must be what the old
        # fact is about (its holder), not a word in passing ("The staging cluster runs …")
        return _content(holder(old_text) or "") == change.subject - _PEOPLE
    return True


# a fact that holds a name: "… is called X", "… is named X", "… is X." (one word)
_NAMED = re.compile(r"\b(?:called|named|name is)\b|\b(?:is|are)\s+[^\s]+\s*\.?\s*$", re.I)


def _verb_after_subject(old_text: str, change: Change) -> bool:
    """ "The user now works at …" replaces "The user works at …", not "… prefers remote work"."""
    stems = [_stem(w) for w in _WORD.findall(old_text)]
    last = max((i for i, w in enumerate(stems) if w in change.subject), default=-1)
    return change.verb in stems[last + 1 : last + 3]


def _value_head(new: str) -> str:
    """The value itself, without what follows it ("pnpm for the frontend" → "pnpm")."""
    head = re.split(r"\s+(?:for|in|on|at|since|because|as|with|from|after|when)\s+", new)[0]
    head = head.strip(" .;,")
    return head if len(head.split()) <= 4 else ""


def search_words(change: Change) -> list[str]:
    """The words a stored fact must contain to be a candidate (the store filters by them)."""
    if change.old:
        return [w for w in _WORD.findall(change.old)][:3]
    return sorted(change.subject - _PEOPLE, key=len, reverse=True)[:3]


def reason(change: Change, old_id: int) -> str:
    return f"supersedes fact {old_id} (a value change: '{change.cue}')"


# --- opposites --------------------------------------------------------------------------------
_OPPOSITES = [
    ("always", "never"),
    ("married", "divorced single separated"),
    ("dark", "light"),
    ("green", "red"),
    ("enabled enable", "disabled disable"),
    ("allowed allow permitted", "forbidden forbid prohibited banned disallowed"),
    ("like likes love loves", "dislike dislikes hate hates"),
    ("passing passes", "failing fails"),
    ("required mandatory", "optional"),
    ("public", "private"),
    ("open", "closed"),
    ("verbose long detailed", "short terse brief concise"),
    ("single", "double"),
    ("remote", "office"),
    ("tabs", "spaces"),
]
_PAIRS = [(frozenset(a.split()), frozenset(b.split())) for a, b in _OPPOSITES]
_NEG = frozenset("not never no dont don't doesnt doesn't cannot can't isnt isn't".split())
# "… is allowed" / "… is not allowed": a rule and its negation, like an imperative
_PERMISSION = frozenset("allowed permitted required ok okay fine encouraged expected".split())
_IMPERATIVE = re.compile(r"^\W*(?:always|never|do not|don't|avoid|use|include|prefer|run)\b", re.I)


def _words(text: str) -> list[str]:
    return [w.lower().strip(".,;:!?'\"`()") for w in _WORD.findall(text.replace("n't", " not"))]


def opposite(old: str, new: str) -> bool:
    """The two say opposite things about one subject: an antonym swapped in an otherwise
    matching sentence, or a rule and its negation ("Include type hints" / "Do not …")."""
    a, b = _words(old), _words(new)
    sa, sb = set(a), set(b)
    for x, y in _PAIRS:
        for left, right in ((x, y), (y, x)):
            if (sa & left) - sb and (sb & right) - sa and not (sa & right) and not (sb & left):
                rest_a = _content(" ".join(w for w in a if w not in left | right | _NEG))
                rest_b = _content(" ".join(w for w in b if w not in left | right | _NEG))
                return _same_frame(rest_a, rest_b)
    if _IMPERATIVE.match(old) or _IMPERATIVE.match(new) or (sa & sb & _PERMISSION):
        neg_a, neg_b = bool(sa & _NEG), bool(sb & _NEG)
        if neg_a != neg_b:
            return _same_frame(_content(" ".join(a)) - _NEG, _content(" ".join(b)) - _NEG)
    return False


def _same_frame(a: frozenset, b: frozenset) -> bool:
    if not a and not b:
        return True
    union = a | b
    return len(a & b) / len(union) >= 0.6 if union else False


def found_in_store(agent_id: int, text: str) -> tuple[str, int, str] | None:
    """("update" | "conflict", the stored fact, the reason) for a new memory ``text``."""
    from services.store import fact_rows

    change = parse_change(text)
    if change is not None:
        for fid, content in fact_rows.active_mentioning(agent_id, search_words(change)):
            if changes(change, content):
                return "update", fid, reason(change, fid)
        return None
    if not _may_oppose(text):
        return None
    for fid, content in fact_rows.active_mentioning(agent_id, _anchor_words(text)):
        if opposite(content, text):
            return "conflict", fid, f"says the opposite of fact {fid}: both kept for review"
    return None


def _anchor_words(text: str) -> list[str]:
    """Two long content words an opposite must share with the new memory."""
    skip = _PAIR_WORDS | _NEG | _STOP
    words = {_stem(w) for w in _WORD.findall(text)}
    return sorted((w for w in words if w not in skip and len(w) > 3), key=len, reverse=True)[:2]


_PAIR_WORDS = frozenset(w for pair in _PAIRS for side in pair for w in side)


def _may_oppose(text: str) -> bool:
    """A cheap test before any lookup: a word of an opposite pair, or a negated rule."""
    words = set(_words(text))
    return bool(words & _PAIR_WORDS) or (
        bool(words & _NEG) and (bool(_IMPERATIVE.match(text)) or bool(words & _PERMISSION))
    )

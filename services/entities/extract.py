"""Offline entity extraction: who and what a fact names, from its (already clean) text.

Precision first: a capitalised word is an entity only with a reason (a known first name, a
curated tool, organisation or place, a cue word like "my manager" or "works at", a product-
like spelling such as ``FastAPI``); handles (``@maria``), repositories (``owner/repo``) and
code paths (``~/code/atlas``) are taken as they are. Measured on tests/entities/data/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.entities import lexicon as L
from services.store.text import normalize

TYPES = ("person", "organisation", "project", "place", "tool", "concept")
_TICKET = re.compile(r"[A-Z][A-Z0-9]{1,9}-\d+")


@dataclass(frozen=True)
class Mention:
    name: str
    type: str
    start: int = -1
    end: int = -1
    source: str = "extracted"

    @property
    def key(self) -> str:
        return entity_key(self.name)


def entity_key(name: str) -> str:
    """The identity lookup key: case and punctuation do not make two entities."""
    name = name.strip()
    return ("@" + normalize(name[1:])) if name.startswith("@") else normalize(name)


_HANDLE = re.compile(r"(?<![\w@.])@([A-Za-z0-9_][\w-]{1,38})")
_GH_URL = re.compile(r"(?:github|gitlab|codeberg)\.(?:com|org)/([\w.-]+)/([\w.-]+)", re.I)
_REPO = re.compile(r"(?<![\w/.~:@-])([A-Za-z][\w.-]*)/([A-Za-z0-9][\w.-]*[A-Za-z0-9])(?![\w/])")
_PATH = re.compile(r"(?<![\w])(?:~|\.{1,2})?/(?:[\w.-]+/)+[\w.-]*")
_TOKEN = re.compile(r"[A-Za-z0-9][\w.+#'’-]*")
_FILE_EXT = re.compile(
    r"\.(?:py|md|js|ts|tsx|jsx|json|ya?ml|toml|txt|rs|go|java|c|h|cpp|sh|css|html|lock|cfg|ini|sql|csv)$",
    re.I,
)
_DOC_EXT = re.compile(r"\.(?:py|md|json|ya?ml|toml|txt|sh|css|html|lock|cfg|ini|sql|csv)$", re.I)
_TZ_REGIONS = {"europe", "america", "asia", "africa", "australia", "pacific", "atlantic"}
_CODE_DIRS = set("code projects project repos repo dev src work git workspace sites github".split())
_NOT_REPO_LEFT = set(
    (
        "src lib docs doc tests test app bin etc usr var tmp home opt dist build node_modules "
        "api v1 v2 refs heads origin main http https www"
    ).split()
)
_SENT_END = re.compile(r"[.!?:;\n]\s*$|^\s*$")


def _strip_possessive(word: str) -> str:
    for suf in ("'s", "’s"):
        if word.endswith(suf):
            return word[: -len(suf)]
    return word.rstrip(".'’")


def _is_cap(word: str) -> bool:
    return word[:1].isupper()


def _product_like(word: str) -> bool:
    """FastAPI, GitHub, Node.js, Python3: a product's spelling, not a person's name."""
    core = word.rstrip(".")
    inner_cap = any(c.isupper() for c in core[1:]) and any(c.islower() for c in core)
    return (
        inner_cap
        or (bool(re.search(r"\d", core)) and core[:1].isalpha())
        or ("." in core and core[:1].isupper() and not core.endswith("."))
    )


class _Tokens:
    def __init__(self, text: str):
        self.text = text
        self.items = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]

    def word(self, i: int) -> str:
        return self.items[i][0] if 0 <= i < len(self.items) else ""

    def lower(self, i: int) -> str:
        return _strip_possessive(self.word(i)).lower()

    def adjacent(self, i: int) -> bool:
        """Token i follows token i-1 with a single space between (a name continues)."""
        if i <= 0 or i >= len(self.items):
            return False
        gap = self.text[self.items[i - 1][2] : self.items[i][1]]
        return gap == " " and not self.items[i - 1][0].endswith(("'s", "’s", ","))

    def sentence_start(self, i: int) -> bool:
        before = self.text[: self.items[i][1]] if i < len(self.items) else ""
        return bool(_SENT_END.search(before)) or before.rstrip().endswith(("-", "*", "•", '"'))


def extract(text: str) -> list[Mention]:
    """The entities a text names, each once (first spelling wins), in text order."""
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def add(name: str, typ: str, start: int, end: int) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        found.append(Mention(name, typ, start, end))

    for m in _GH_URL.finditer(text):
        add(f"{m.group(1)}/{m.group(2).removesuffix('.git')}", "project", m.start(), m.end())
    for m in _PATH.finditer(text):
        _path_project(m, add)
    for m in _REPO.finditer(text):
        _repo_project(m, add)
    for m in _HANDLE.finditer(text):
        add("@" + m.group(1).rstrip(".-"), "person", m.start(), m.end())
    _words(_Tokens(text), add)
    out: dict[tuple[str, str], Mention] = {}
    for mention in sorted(found, key=lambda x: x.start):
        out.setdefault((mention.key, mention.type), mention)
    return [m for m in out.values() if m.key]


def _path_project(m: re.Match, add) -> None:
    parts = [p for p in m.group(0).split("/") if p not in ("", "~", ".", "..")]
    for a, b in zip(parts, parts[1:]):
        if a.lower() in _CODE_DIRS and not _FILE_EXT.search(b) and not b.startswith("."):
            add(b, "project", m.start(), m.end())
            return
    # a path we cannot name a project from still must not become a repo or a person
    add("", "concept", m.start(), m.end())


def _repo_project(m: re.Match, add) -> None:
    left, right = m.group(1), m.group(2)
    whole = m.group(0)
    if left.lower() in _TZ_REGIONS:  # a time zone names a place: Europe/Madrid
        add(right.replace("_", " "), "place", m.start() + len(left) + 1, m.end())
        return
    if (
        whole.lower() in L.REPO_STOP
        or left.lower() in _NOT_REPO_LEFT
        or _DOC_EXT.search(right)
        or left.isdigit()
        or right.isdigit()
        or (len(left) < 2 or len(right) < 2)
    ):
        return
    add(whole, "project", m.start(), m.end())


_VERB_PARTICLES = set(
    "to off back ahead home out up down away on over through the a an for with it this that".split()
)


def _lexicon_hit(t: _Tokens, i: int) -> tuple[str, str, int] | None:
    """(name, type, tokens used) for a curated tool, organisation or place starting at i."""
    for n in (3, 2, 1):
        if i + n > len(t.items) or any(not t.adjacent(j) for j in range(i + 1, i + n)):
            continue
        words = [t.word(j) for j in range(i, i + n)]
        words[-1] = _strip_possessive(words[-1])
        phrase = " ".join(words)
        low = phrase.lower()
        for table, typ in (
            (L.TOOLS, "tool"),
            (L.ORGS, "organisation"),
            (L.PLACES, "place"),
            (L.PLACES_MULTI, "place"),
        ):
            name = table.get(low)
            if name is None:
                continue
            if (low in L.AMBIGUOUS or n == 1 and len(low) <= 2) and not _is_cap(phrase):
                continue
            if n == 1 and low in L.AMBIGUOUS and t.sentence_start(i) and typ != "place":
                # "Go to the shop", "Slack off": a sentence's first word is often a verb
                if t.lower(i + 1) in _VERB_PARTICLES:
                    continue
            return name, typ, n
    return None


def _cap_run(t: _Tokens, i: int) -> int:
    """How many capitalised, non-stop, non-lexicon tokens from i form one name (≤ 3)."""
    n = 0
    while i + n < len(t.items) and n < 3:
        w = t.word(i + n)
        core = _strip_possessive(w)
        if not (_is_cap(core) and core[:1].isalpha()) or core in L.STOP:
            break
        if core.isupper() and len(core) > 1 and not (n == 0 and _product_like(core)):
            break
        if n and (not t.adjacent(i + n) or _lexicon_hit(t, i + n)):
            break
        n += 1
        if w != core:  # "Maria's": the name ends here
            break
    return n


def _words(t: _Tokens, add) -> None:
    i = 0
    while i < len(t.items):
        hit = _lexicon_hit(t, i)
        if hit:
            name, typ, n = hit
            suffixed = _org_suffix_type(t, i + n, typ)
            if suffixed == "organisation" and typ != "organisation":
                # "Notion Labs": the suffix word is part of the company's name
                name, typ = name + " " + _strip_possessive(t.word(i + n)), suffixed
                n += 1
            elif typ == "tool":
                # "works at Datadog": the company, named as it is, never with the next word
                typ = _employer_context(t, i, typ)
            add(name, typ, t.items[i][1], _end(t, i + n - 1))
            i += n
            continue
        n = _cap_run(t, i)
        if n == 0:
            i += 1
            continue
        kind, n = _classify(t, i, n)
        if kind:
            words = [t.word(j) for j in range(i, i + n)]
            words[-1] = _strip_possessive(words[-1])
            add(" ".join(words), kind, t.items[i][1], _end(t, i + n - 1))
        i += n


def _end(t: _Tokens, j: int) -> int:
    """Where the name in token j ends: a possessive or a full stop is not part of it."""
    w = t.word(j)
    return t.items[j][2] - (len(w) - len(_strip_possessive(w)))


def _employer_context(t: _Tokens, i: int, typ: str) -> str:
    """ "works at Stripe", "joined Figma": a product's company, where the words say so."""
    prev = t.lower(i - 1)
    if prev in L.ORG_JOIN or (prev in L.ORG_CUES and _near(t, i, L.ORG_VERBS, 6)):
        return "organisation"
    return typ


def _org_suffix_type(t: _Tokens, j: int, typ: str) -> str:
    nxt = _strip_possessive(t.word(j))
    return "organisation" if nxt in L.ORG_SUFFIXES and t.adjacent(j) else typ


def _near(t: _Tokens, i: int, vocab: set[str], span: int = 4) -> bool:
    return any(t.lower(j) in vocab for j in range(max(0, i - span), i))


def _one_word_kind(word: str) -> str | None:
    if _TICKET.fullmatch(word):
        return "concept"  # ENG-248, JIRA-12: a ticket, not a tool
    return "tool" if _product_like(word) else None


def _classify(t: _Tokens, i: int, n: int) -> tuple[str | None, int]:
    first = _strip_possessive(t.word(i))
    last_raw = t.word(i + n - 1)
    prev = t.lower(i - 1)
    nxt = t.lower(i + n)
    start = t.sentence_start(i)
    if _strip_possessive(t.word(i + n)) in L.ORG_SUFFIXES and t.adjacent(i + n):
        return "organisation", n + 1
    if n > 1 and _strip_possessive(last_raw) in L.ORG_SUFFIXES:
        return "organisation", n
    if nxt in L.PROJECT_CUES and not last_raw.endswith(("'s", "’s")):
        return "project", n
    if prev in L.PROJECT_CUES and t.lower(i - 2) in ("the", "our", "my", "their", "a", "on"):
        return "project", n
    if prev == "on" and t.lower(i - 2) in ("works", "working", "worked", "work", "hacking"):
        return "project", n
    if prev == "project" or (nxt in L.PROJECT_AFTER_THE and prev in ("the", "our", "my", "their")):
        return "project", n
    if n == 1 and (kind := _one_word_kind(first)):
        return kind, n
    if first in L.GEO_PREFIXES and n >= 2:
        return "place", n
    if first in L.FIRST_NAMES:
        return "person", n
    if prev in L.PLACE_CUES and _near(t, i, L.PLACE_VERBS, 6):
        return "place", n
    if (
        (prev in L.ORG_CUES and _near(t, i, L.ORG_VERBS, 6))
        or prev in ("client", "customer")
        or prev in L.ORG_JOIN
        or (prev == "from" and _is_cap(t.word(i - 2)) and not t.sentence_start(i - 2))
    ):
        return "organisation", n
    if prev == "the":  # "the Red Cross": a person is rarely "the"
        return ("organisation" if n >= 2 else None), n
    possessive = last_raw.endswith(("'s", "’s"))
    strong_cue = prev in L.PERSON_CUES and prev not in ("and", "by", "from", "to", "with")
    if strong_cue or (not start and n >= 2 and first.isalpha()):
        return "person", n
    if not start and (possessive or nxt in L.PERSON_VERBS) and prev in L.PERSON_CUES:
        return "person", n
    return None, n

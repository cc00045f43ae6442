"""What a forget covers: the scope a person chose, and the agents and facts it selects.

Scopes: ``fact_ids``; ``matching`` (facts containing the text as a phrase: folded, whole
words, in order; and facts whose cosine to it is >= ``threshold``: a paraphrase is listed
with its score for review and can be left out with ``exclude_ids``); ``before`` (created
before a date); ``all`` (one agent's whole memory; the agent row and settings stay);
``all_agents`` alone (everything) or with ``matching`` (that text in every agent).

A phrase is never widened to its separate words: "Orion migration" is not "the migration of
birds". Only when the phrase is a known entity's name are facts naming part of it ("Alice"
for Alice Martin) looked for, and those are listed apart (``partial``), left out unless the
person ticks them (``include_partial``, ``include_ids``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from models import Agent
from models.db import is_postgres
from models.tables import FACT_STATUSES
from services.errors import InvalidInput, NotFound
from services.forget.matching import contains, fold, same_numbers
from services.ingest.rule_key import RuleKey
from services.store import fact_rows
from services.store.facts import FactFilters
from services.store.handle import EngramHandle
from services.store.text import fts_query, normalize, words

SEMANTIC_THRESHOLD = 0.8  # cosine at which a fact is "about" the query without naming it
SEMANTIC_K = 50
# words too common to forget on their own when a person names several ("Alice's new phone")
_COMMON = frozenset(
    "the and for with from that this what when where which who whom whose about after before "
    "into onto over under your yours their there then than them they have has had was were "
    "will would should could user users agent agents name names said says new old "
    "also just only very more most some any all none not but are its it's his her hers".split()
)


# a text holding one of these is a sentence ("I am allergic to peanuts"): it is meant whole
_FUNCTION_WORDS = frozenset(
    "i am is are was were be to a an the of in on at my me we you it its and or for with "
    "not no do does did has have had that this by as".split()
)


def distinct_words(text: str | None) -> list[str]:
    """The words of a several-word name or list a person may mean one by one ("Frobnitz
    Wexleythorpe" split across two facts); empty for a single word or a sentence."""
    ws = list(dict.fromkeys(words(text or "")))
    if len(ws) < 2 or any(w in _FUNCTION_WORDS for w in ws):
        return []
    if any(any(c.isdigit() for c in w) for w in ws):
        return []  # "Python 3.9" is one thing: its "python" alone is not what is meant
    return [w for w in ws if len(w) >= 4 and w not in _COMMON and not w.isdigit()]


@dataclass
class ForgetScope:
    agent: str | None = None
    fact_ids: tuple[int, ...] = ()
    matching: str | None = None
    before: date | datetime | None = None
    all: bool = False
    all_agents: bool = False
    semantic: bool = True  # matching: also facts that say the same thing in other words
    threshold: float = SEMANTIC_THRESHOLD
    exclude_ids: tuple[int, ...] = ()  # candidates the user unticked after review
    rule: bool | None = None  # add a forget rule (default: for fact and matching scopes)
    label: str | None = None  # the rule's label, in the user's words
    terms: tuple[str, ...] = ()  # more strings to erase and verify (an entity's name, aliases)
    include_partial: bool = False  # matching: also facts naming only part of the entity's name
    include_ids: tuple[int, ...] = ()  # such facts the user ticked one by one
    # the agents' own memory files too (False: Delete for good, which erases what Engram
    # holds and leaves another program's memory to it; the receipt names each file kept)
    agent_files: bool = True

    @property
    def kind(self) -> str:
        if self.fact_ids:
            return "fact"
        if self.matching:
            return "matching"
        if self.before:
            return "before"
        if self.all:
            return "agent"
        return "everything" if self.all_agents else "none"

    @property
    def whole(self) -> bool:
        return self.kind in ("agent", "everything")

    def check(self) -> None:
        chosen = sum(bool(x) for x in (self.fact_ids, self.matching, self.before, self.all))
        if self.all_agents and (self.fact_ids or self.before or self.all):
            raise InvalidInput("--all-agents goes with --matching TEXT, or alone for everything")
        if not self.all_agents and chosen != 1:
            raise InvalidInput(
                "choose one scope: a fact id, --matching TEXT, --before DATE or --all"
            )
        if self.all_agents and self.agent:
            raise InvalidInput("--all-agents and --agent exclude each other")
        if not self.all_agents and not self.agent and not self.fact_ids:
            raise InvalidInput("say which agent (--agent NAME) or use --all-agents")
        if self.matching is not None and not words(self.matching):
            raise InvalidInput("--matching needs at least one word")

    @property
    def wants_rule(self) -> bool:
        return self.rule if self.rule is not None else self.kind in ("fact", "matching")

    def to_receipt(self, key: RuleKey) -> dict:
        """The scope as a receipt may keep it: the matching text only as a keyed hash."""
        d: dict = {"kind": self.kind, "agent": self.agent, "all_agents": self.all_agents}
        if self.fact_ids:
            d["fact_ids"] = sorted(self.fact_ids)
        if self.before:
            d["before"] = self.before.isoformat()
        if self.matching:
            d["matching_hash"] = keyed(key, self.matching)
            d["semantic"] = self.semantic
        return d


def keyed(key: RuleKey, text: str) -> str:
    return key.hash(normalize(text))


def keyed_many(key: RuleKey, texts) -> list[str]:
    return key.hash_many([normalize(t) for t in texts])


def as_dt(v) -> datetime:
    if isinstance(v, datetime):
        return v
    return datetime(v.year, v.month, v.day)


def select_agents(scope: ForgetScope) -> list[Agent]:
    if scope.all_agents:
        return list(Agent.select().order_by(Agent.slug))
    if scope.agent:
        a = Agent.get_or_none(Agent.slug == scope.agent)
        if a is None:
            raise NotFound(f"no agent {scope.agent!r} (see `engram agents`)")
        return [a]
    ids = fact_rows.owners(scope.fact_ids)
    if not ids:
        raise NotFound(f"no fact {', '.join(map(str, scope.fact_ids))}")
    return list(Agent.select().where(Agent.id.in_(list(ids))).order_by(Agent.slug))


Why = dict[int, tuple[str, float | None]]


def select_facts(engram: EngramHandle, a: Agent, scope: ForgetScope) -> list[dict]:
    """The facts of agent ``a`` the scope covers, each with why it was chosen."""
    return select_with_partial(engram, a, scope)[0]


def select_with_partial(
    engram: EngramHandle, a: Agent, scope: ForgetScope
) -> tuple[list[dict], list[dict]]:
    """(the facts the scope covers, the facts naming only part of the entity's name that the
    user has not ticked: shown for review, not forgotten)."""
    kind = scope.kind
    unticked: list[int] = []
    if kind == "fact":
        rows = fact_rows.brief_rows(a.id, ids=scope.fact_ids)
        if scope.agent and len(rows) < len(set(scope.fact_ids)):
            missing = set(scope.fact_ids) - {r.id for r in rows}
            raise NotFound(f"no fact {', '.join(map(str, sorted(missing)))} for agent {a.slug!r}")
        why: Why = {r.id: ("id", None) for r in rows}
    elif kind == "before":
        rows = fact_rows.brief_rows(a.id, created_before=as_dt(scope.before))
        why = {r.id: ("date", None) for r in rows}
    elif scope.whole:
        rows = fact_rows.brief_rows(a.id)
        why = {r.id: ("all", None) for r in rows}
    else:
        why = _matching(engram, a, scope)
        for fid, part in _partials(engram, a, scope, set(why)).items():
            why[fid] = (f"{PART}{part}", None)
            if not (scope.include_partial or fid in scope.include_ids):
                unticked.append(fid)
        rows = fact_rows.brief_rows(a.id, ids=list(why)) if why else []
    excl = set(scope.exclude_ids) | set(unticked)
    listed = [
        {
            "id": r.id,
            "content": r.content,
            "status": r.status,
            "why": why[r.id][0],
            "score": why[r.id][1],
            "reason": reason(scope, why[r.id][0], why[r.id][1]),
        }
        for r in sorted(rows, key=lambda r: r.id)
    ]
    partial = [{**f, "ticked": False} for f in listed if f["id"] in set(unticked)]
    return [f for f in listed if f["id"] not in excl], partial


def reason(scope: ForgetScope, why: str, score: float | None) -> str:
    """Why a fact is in the forget, in words a person can check against the fact."""
    if why == "id":
        return "chosen by its id"
    if why == "date":
        return f"created before {as_dt(scope.before):%Y-%m-%d}"
    if why == "all":
        return "all of the agent's memory"
    if why == "keyword":
        return f'contains "{scope.matching}" as whole words'
    if why.startswith(PART):
        return f'mentions only "{why[len(PART) :]}", part of the name "{scope.matching}"'
    if why == "semantic":
        return f'says the same as "{scope.matching}" in other words (cosine {score:.2f})'
    return why


PART = "part of the name: "


def short_names(name: str) -> list[str]:
    """A person is named by parts of their name too ("MARGARETHE asked…" for Margarethe
    Schulz): each part of three letters or more that is not an initial or a title."""
    parts = [p for p in words(name) if len(p) >= 3 and not p.isdigit() and p not in _TITLES]
    return parts if len(parts) >= 2 else []


_TITLES = frozenset("mr mrs ms miss dr prof sir von van der den de del la le jr sr".split())


def name_parts(agent_id: int, phrase: str) -> list[str]:
    """The parts of the name of a known entity the phrase names (its name or an alias):
    empty when the phrase is no entity's name, so a phrase is never split on a guess."""
    from services.entities.identity import by_name

    out: list[str] = []
    for e in by_name(agent_id, phrase):
        for n in (e.name, *(e.aliases or ())):
            out += [p for p in short_names(n) if p not in out]
    return out


def known_name_parts(phrase: str, agent: str | None = None) -> list[str]:
    """``name_parts`` over one agent (by slug) or every agent."""
    q = Agent.select(Agent.id)
    if agent:
        q = q.where(Agent.slug == agent)
    out: list[str] = []
    for a in q:
        out += [p for p in name_parts(a.id, phrase) if p not in out]
    return out


def _partials(engram: EngramHandle, a: Agent, scope: ForgetScope, taken: set[int]) -> dict:
    """Facts naming only part of the entity's name (fact id -> the part), beyond ``taken``."""
    found: dict[int, str] = {}
    for part in name_parts(a.id, scope.matching or ""):
        for fid in _keyword_ids(engram, a, part):
            if fid not in taken:
                found.setdefault(fid, part)
    return found


def _matching(engram: EngramHandle, a: Agent, scope: ForgetScope) -> Why:
    text = scope.matching or ""
    why: Why = {}
    for fid in _keyword_ids(engram, a, text):
        why.setdefault(fid, ("keyword", None))
    if scope.semantic and engram.semantic_enabled:
        for fid, cos in _semantic_ids(engram, a, text, scope.threshold):
            why.setdefault(fid, ("semantic", cos))
    return why


def _keyword_ids(engram: EngramHandle, a: Agent, text: str) -> list[int]:
    """Facts holding the text: an FTS phrase match, or the normalised text as a substring
    (punctuation and case do not hide a mention)."""
    found: list[int] = []
    phrase = fts_query('"' + " ".join(words(text)) + '"')
    if phrase:
        found += _phrase_ids(engram.db, a.id, phrase, text)
    needle = fold(text)
    if not needle:
        return found
    # the phrase search stems: "Nightjar launching" finds "Nightjar launches" (the same
    # words, in order, inflected); a word is never found alone
    seen = set(found)
    for fid, content in fact_rows.fact_texts(a.id):
        if fid not in seen and contains(fold(content), needle):
            found.append(fid)
    return found


def _semantic_ids(
    engram: EngramHandle, a: Agent, text: str, threshold: float
) -> list[tuple[int, float]]:
    try:
        mem = engram.agent(a.slug)
    except NotFound:  # in the trash: its rows and vectors stay until it is emptied
        return _semantic_in_index(engram, a, text, threshold)
    hits = mem.search(
        text,
        k=SEMANTIC_K,
        mode="semantic",
        touch=False,
        filters=FactFilters(status=list(FACT_STATUSES)),
    )
    out = []
    for h in hits:
        cos = float(h.raw.get("cosine", 0.0))
        # a look-alike with other numbers ("Python 3.11" for "Python 3.9") is another thing
        if cos >= threshold and same_numbers(text, h.fact.content):
            out.append((h.fact.id, round(cos, 4)))
    return out


def _semantic_in_index(
    engram: EngramHandle, a: Agent, text: str, threshold: float
) -> list[tuple[int, float]]:
    """The semantic match of an agent the façade no longer opens (one in the trash): the
    agent's vectors queried directly, with the same threshold and number check."""
    if engram.index is None or engram.embedder is None:
        return []
    near = engram.index.query(a.id, engram.embedder.embed([text])[0], k=SEMANTIC_K)
    texts = dict(fact_rows.texts_of([fid for fid, _ in near]))
    return [
        (fid, round(cos, 4))
        for fid, cos in near
        if fid in texts and cos >= threshold and same_numbers(text, texts[fid])
    ]


def _phrase_ids(db, agent_id: int, phrase: str, text: str) -> list[int]:
    """Facts whose full text holds the phrase (stemmed, as keyword search finds them)."""
    if is_postgres(db):  # a team store: the generated tsvector column
        from services.search.keyword_postgres import CONFIG

        sql = f"SELECT id FROM fact WHERE agent_id = %s AND fts @@ phraseto_tsquery('{CONFIG}', %s)"
        return [r[0] for r in db.execute_sql(sql, (agent_id, " ".join(words(text)))).fetchall()]
    return [
        r[0]
        for r in db.execute_sql(
            "SELECT f.id FROM fact_fts JOIN fact f ON f.id = fact_fts.rowid "
            "WHERE fact_fts MATCH ? AND f.agent_id = ?",
            (phrase, agent_id),
        ).fetchall()
    ]

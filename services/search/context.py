"""The memory block an agent prepends to its prompt: ``build_context(memory, query, budget)``.

Order of what gets in when the budget is tight: pinned facts, then facts relevant to the
query (hybrid search, keyword-only without the model), then known entities (subjects and
projects), then recent episodes; what is left of the budget goes to further relevant facts.
The whole block, framing included, is counted with the real WordPiece tokenizer and never
exceeds the budget.

Memory text is untrusted: an imported file or a transcript can carry "ignore previous
instructions". The block says it is data, each memory is one line (no fake headings), and the
block's own tag cannot be closed from inside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from services.errors import InvalidInput
from services.records import FactView, SearchHit
from services.store import fact_rows
from services.store.facts import FactFilters
from services.store.untrusted import DATA_NOTICE, one_line

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.store.handle import MemoryHandle

TAG = "engram-memory"
HEADER = '<{tag} agent="{slug}">\n' + DATA_NOTICE + "\n"
FOOTER = "</{tag}>\n"
PINNED_SHARE = 0.35  # pinned facts may take at most this share of the budget
FACT_SHARE = 0.80  # pinned + relevant facts before entities and episodes get their turn
MIN_RELEVANCE = 0.3  # a fact must be at least this related to the query to be injected
# MiniLM cosines of a short query and a related memory start near 0.22 ("which theme" /
# "prefers dark mode" 0.26); unrelated pairs stay under 0.18. Scaled so that 0.3 means
# "related" on both the word-share and the cosine scale.
COSINE_SCALE = 1.4
_TAG_RE = re.compile(re.escape(TAG), re.I)


def token_counter(memory: MemoryHandle) -> Callable[[str], int]:
    """The real tokenizer (``services.vectors.tokens``; it estimates when the file is missing)."""
    from services.vectors.tokens import count_tokens

    return count_tokens


def _clean(text: str) -> str:
    """One line, prompt tags neutralised, and the block's own tag name defanged."""
    return _TAG_RE.sub("engram memory", one_line(text))


def _fact_group(f: FactView) -> str:
    """The heading a fact is listed under: its day and category, said once for all the
    facts that share them (on a per-line prefix it cost a quarter of a transcript's block)."""
    day = (f.event_date or f.created_at.date()).isoformat()
    return f"### {day} · {_clean(f.category)}"


def _fact_line(f: FactView) -> str:
    return f"- {_clean(f.content)}"


def _entities(memory: MemoryHandle, limit: int = 12) -> tuple[list[str], list[str]]:
    subjects = fact_rows.frequent_values(memory.agent_id, "subject", limit)
    cats = fact_rows.frequent_values(memory.agent_id, "category", limit, ("proj:", "rel:"))
    return subjects, cats


def relevant_entities(memory: MemoryHandle, query: str, limit: int = 5) -> list[str]:
    """The entities the query names, each with its key facts (entity memory's getRelevant)."""
    from services.entities.queries import relevant

    lines = []
    for e, facts in relevant(memory.agent_id, query, limit) if query.strip() else []:
        aka = f" (aka {', '.join(e.aliases)})" if e.aliases else ""
        said = "; ".join(_clean(f) for f in facts)
        lines.append(f"- {_clean(e.name)}{_clean(aka)} [{e.type}]" + (f": {said}" if said else ""))
    return lines


class _Budget:
    def __init__(self, count: Callable[[str], int], budget: int):
        self.count, self.budget, self.used = count, budget, 0

    def take(self, line: str, limit: int | None = None) -> bool:
        n = self.count(line + "\n")
        cap = self.budget if limit is None else min(limit, self.budget)
        if self.used + n > cap:
            return False
        self.used += n
        return True


HEADS = {
    "pinned": "## Pinned",
    "relevant": "## Relevant to this request",
    "entities": "## Known entities",
    "episodes": "## Recent episodes",
}


class _Block:
    """The sections being filled, each line paid for from one budget."""

    def __init__(self, count: Callable[[str], int], budget: int):
        self.b = _Budget(count, budget)
        self.sections: dict[str, list[str]] = {name: [] for name in HEADS}
        # fact sections: group heading → its lines, rendered oldest day first
        self.groups: dict[str, dict[str, list[str]]] = {name: {} for name in HEADS}
        self.used_ids: list[int] = []
        self.lines: set[str] = set()

    def add(self, section: str, line: str, limit: int | None = None) -> bool:
        need_head = not self.sections[section] and not self.groups[section]
        text = (HEADS[section] + "\n" + line) if need_head else line
        if not self.b.take(text, limit):
            return False
        self.sections[section].append(line)
        return True

    def add_fact(self, section: str, f: FactView, limit: int | None = None) -> bool:
        line, group = _fact_line(f), _fact_group(f)
        if line in self.lines:  # the same words twice (two days, two categories) say nothing new
            return False
        groups = self.groups[section]
        text = line if group in groups else group + "\n" + line
        if not groups and not self.sections[section]:
            text = HEADS[section] + "\n" + text
        if not self.b.take(text, limit):
            return False
        groups.setdefault(group, []).append(line)
        self.lines.add(line)
        self.used_ids.append(f.id)
        return True

    def rendered(self, section: str) -> list[str]:
        out = list(self.sections[section])
        for group in sorted(self.groups[section]):
            out += [group, *self.groups[section][group]]
        return out


def relevance(hit: SearchHit, words: list[str]) -> float:
    """How much a hit is about the query, on an absolute scale (the hybrid score is relative
    to the best hit, so an unrelated query's best hit scores high too): the larger of the
    share of the query's content words the fact holds and the embedding cosine."""
    from services.search.episodes import _holds

    text = hit.fact.content + " " + hit.fact.category
    # a long prompt is not less related for holding many words: three in common is enough
    share = sum(1 for w in words if _holds(text, w)) / min(len(words), 3) if words else 0.0
    cosine = float((hit.raw or {}).get("cosine") or 0.0)
    return max(share, min(1.0, cosine * COSINE_SCALE))


def _relevant(
    memory: MemoryHandle, query: str, k: int, skip: set[int], min_relevance: float
) -> list[FactView]:
    from services.search.episodes import content_words

    if not query.strip():
        return []
    mode = "hybrid" if memory.engram.semantic_enabled else "keyword"
    hits = memory.search(query, k=k, mode=mode, touch=False)
    words = content_words(query)
    return [h.fact for h in hits if h.fact.id not in skip and relevance(h, words) >= min_relevance]


def _add_entities(block: _Block, memory: MemoryHandle) -> None:
    subjects, cats = _entities(memory)
    if subjects:
        block.add("entities", "- subjects: " + ", ".join(_clean(s) for s in subjects))
    projects = [c.split(":", 1)[1] for c in cats if c.startswith("proj:")]
    people = [c.split(":", 1)[1] for c in cats if c.startswith("rel:")]
    if projects:
        block.add("entities", "- projects: " + ", ".join(_clean(p) for p in projects))
    if people:
        block.add("entities", "- people: " + ", ".join(_clean(p) for p in people))


def _add_episodes(block: _Block, memory: MemoryHandle, query: str, n: int) -> None:
    """The sessions the query is about first, then the most recent ones."""
    from services.search.episodes import recall_episodes

    chosen = [h.episode for h in recall_episodes(memory, query, k=n)] if query.strip() else []
    seen = {e.id for e in chosen}
    chosen += [e for e in memory.episodes.list(limit=n) if e.id not in seen]
    for e in chosen[:n]:
        when = e.day.isoformat() + (f" {e.time}" if e.time else "")
        block.add("episodes", f"- {when}: {_clean(e.summary)}")


def _render(
    block: _Block, header: str, footer: str, count: Callable[[str], int], budget: int
) -> str:
    parts = [header]
    for name in HEADS:
        if body := block.rendered(name):
            lines = "".join(line + "\n" for line in body)
            parts.append(HEADS[name] + "\n" + lines)
    if len(parts) == 1:
        parts.append("(no memories yet)\n")
    parts.append(footer)
    text = "".join(parts)
    # the per-line sums equal the whole for WordPiece (no token spans a newline); this guard
    # keeps the promise for any other counter
    while count(text) > budget and len(parts) > 2:
        last = parts[-2].rstrip("\n").split("\n")
        parts[-2] = "\n".join(last[:-1]) + "\n" if len(last) > 2 else ""
        parts = [p for p in parts if p]
        text = "".join(parts)
    return text


def build_context(
    memory: MemoryHandle,
    query: str,
    budget: int = 1500,
    k: int = 60,
    episodes: int = 5,
    min_relevance: float = MIN_RELEVANCE,
    reader: str | None = None,
) -> str:
    """``min_relevance``: facts less related to the query than this (0..1, see
    ``relevance``) stay out, so an unrelated request gets a short block, not a budget of
    noise. ``reader``: the channel an agent reads through ("mcp get_context", "hook
    context"); the facts handed over go to the read log under it."""
    count = token_counter(memory)
    header = HEADER.format(tag=TAG, slug=memory.slug)
    footer = FOOTER.format(tag=TAG)
    block = _Block(count, budget)
    if not (block.b.take(header.rstrip("\n")) and block.b.take(footer.rstrip("\n"))):
        raise InvalidInput(
            f"a budget of {budget} tokens cannot hold even the block's framing "
            f"({count(header + footer)} tokens)"
        )
    pinned = memory.list(FactFilters(status="active", pinned=True), order="-importance")
    for f in pinned:
        block.add_fact("pinned", f, int(budget * PINNED_SHARE))
    rest = []
    for f in _relevant(memory, query, k, {f.id for f in pinned}, min_relevance):
        if not block.add_fact("relevant", f, int(budget * FACT_SHARE)):
            rest.append(f)
    _add_entities(block, memory)
    _add_episodes(block, memory, query, episodes)
    for f in rest:  # what the budget still holds: the prompt's own answers first
        block.add_fact("relevant", f)
    for line in relevant_entities(memory, query):  # an entity's latest facts, whatever was asked
        block.add("entities", line)
    if block.used_ids:
        memory.facts.touch(block.used_ids)  # being injected is being used: decay's access bonus
        if reader:
            from services.store.read_log import record_reads

            record_reads(memory.db, memory.agent_id, reader, sorted(block.used_ids))
    return _render(block, header, footer, count, budget)

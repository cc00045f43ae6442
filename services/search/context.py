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
from typing import TYPE_CHECKING

from models import Fact
from services.errors import InvalidInput
from services.store.facts import FactFilters
from services.store.untrusted import DATA_NOTICE, one_line

if TYPE_CHECKING:  # the façade sits above this package; only its type is used here
    from services.engram import AgentMemory

TAG = "engram-memory"
HEADER = '<{tag} agent="{slug}">\n' + DATA_NOTICE + "\n"
FOOTER = "</{tag}>\n"
PINNED_SHARE = 0.35  # pinned facts may take at most this share of the budget
FACT_SHARE = 0.80  # pinned + relevant facts before entities and episodes get their turn
_TAG_RE = re.compile(re.escape(TAG), re.I)


def token_counter(memory: AgentMemory):
    """The real tokenizer (``services.vectors.tokens``; it estimates when the file is missing)."""
    from services.vectors.tokens import count_tokens

    return count_tokens


def _clean(text: str) -> str:
    """One line, prompt tags neutralised, and the block's own tag name defanged."""
    return _TAG_RE.sub("engram memory", one_line(text))


def _fact_line(f) -> str:
    day = (f.event_date or f.created_at.date()).isoformat()
    return f"- [{day}][{_clean(f.category)}] {_clean(f.content)}"


def _entities(memory: AgentMemory, limit: int = 12) -> tuple[list[str], list[str]]:
    from peewee import fn

    base = (Fact.agent == memory.agent_id) & (Fact.status == "active")
    subjects = [
        s
        for (s,) in (
            Fact.select(Fact.subject)
            .where(base & Fact.subject.is_null(False))
            .group_by(Fact.subject)
            .order_by(fn.COUNT(Fact.id).desc(), Fact.subject)
            .limit(limit)
            .tuples()
        )
    ]
    cats = [
        c
        for (c,) in (
            Fact.select(Fact.category)
            .where(base & (Fact.category.startswith("proj:") | Fact.category.startswith("rel:")))
            .group_by(Fact.category)
            .order_by(fn.COUNT(Fact.id).desc(), Fact.category)
            .limit(limit)
            .tuples()
        )
    ]
    return subjects, cats


class _Budget:
    def __init__(self, count, budget: int):
        self.count, self.budget, self.used = count, budget, 0

    def take(self, line: str, limit: int | None = None) -> bool:
        n = self.count(line + "\n")
        cap = self.budget if limit is None else min(limit, self.budget)
        if self.used + n > cap:
            return False
        self.used += n
        return True


def build_context(
    memory: AgentMemory, query: str, budget: int = 1500, k: int = 40, episodes: int = 5
) -> str:
    count = token_counter(memory)
    header = HEADER.format(tag=TAG, slug=memory.slug)
    footer = FOOTER.format(tag=TAG)
    b = _Budget(count, budget)
    if not (b.take(header.rstrip("\n")) and b.take(footer.rstrip("\n"))):
        raise InvalidInput(
            f"a budget of {budget} tokens cannot hold even the block's framing "
            f"({count(header + footer)} tokens)"
        )
    sections: dict[str, list[str]] = {"pinned": [], "relevant": [], "entities": [], "episodes": []}
    heads = {
        "pinned": "## Pinned",
        "relevant": "## Relevant to this request",
        "entities": "## Known entities",
        "episodes": "## Recent episodes",
    }
    used_ids: list[int] = []

    def add(section: str, line: str, limit: int | None = None) -> bool:
        need_head = not sections[section]
        text = (heads[section] + "\n" + line) if need_head else line
        if not b.take(text, limit):
            return False
        sections[section].append(line)
        return True

    pinned = memory.list(FactFilters(status="active", pinned=True), order="-importance")
    for f in pinned:
        if add("pinned", _fact_line(f), int(budget * PINNED_SHARE)):
            used_ids.append(f.id)

    mode = "hybrid" if memory.engram.semantic_enabled else "keyword"
    hits = memory.search(query, k=k, mode=mode, touch=False) if query.strip() else []
    pinned_ids = {f.id for f in pinned}
    relevant = [h.fact for h in hits if h.fact.id not in pinned_ids]
    rest = []
    for f in relevant:
        if add("relevant", _fact_line(f), int(budget * FACT_SHARE)):
            used_ids.append(f.id)
        else:
            rest.append(f)

    subjects, cats = _entities(memory)
    if subjects:
        add("entities", "- subjects: " + ", ".join(_clean(s) for s in subjects))
    projects = [c.split(":", 1)[1] for c in cats if c.startswith("proj:")]
    people = [c.split(":", 1)[1] for c in cats if c.startswith("rel:")]
    if projects:
        add("entities", "- projects: " + ", ".join(_clean(p) for p in projects))
    if people:
        add("entities", "- people: " + ", ".join(_clean(p) for p in people))

    for e in memory.episodes.list(limit=episodes):
        when = e.day.isoformat() + (f" {e.time}" if e.time else "")
        add("episodes", f"- {when}: {_clean(e.summary)}")

    for f in rest:  # what the budget still holds
        if add("relevant", _fact_line(f)):
            used_ids.append(f.id)

    if used_ids:
        memory.facts.touch(used_ids)  # being injected is being used: feeds decay's access bonus
    parts = [header]
    for name in ("pinned", "relevant", "entities", "episodes"):
        if sections[name]:
            parts.append(heads[name] + "\n" + "".join(line + "\n" for line in sections[name]))
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

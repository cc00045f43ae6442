"""The user's corrections → rules.

A correction is the user stopping the agent (a rejected tool use, an interrupt) or saying
"no, …", and then stating what to do instead: "no, use pnpm instead of npm", "don't touch the
migrations, edit the model". That alternative is what the user wants every time, so it is kept
as a rule. A "no" that states no alternative ("no, that is overkill") teaches nothing durable
and is not kept.
"""

from __future__ import annotations

import re
from datetime import datetime

from services.capture.extract import MAX_LEN, ExtractedFact

_LEAD = re.compile(
    r"^(?:no|nope|nah|stop|wait|actually|hmm)\b[\s,.!:;-]*|^(?:please\s+)?(?=don'?t\b|do not\b|never\b|always\b|instead\b)",
    re.I,
)
_ALTERNATIVE = re.compile(
    r"\b(?:instead|rather than|prefer|always|never|from now on|don'?t|do not|"
    r"(?:use|run|call|keep|put|write|edit|ask|go with|stick (?:to|with))\s+\S+)",
    re.I,
)
_STRONG = re.compile(r"\b(?:instead|rather than|always|never|from now on|don'?t|do not)\b", re.I)
_VAGUE = re.compile(
    r"^(?:please\s+)?(?:don'?t|do not|never)\s+(?:do|touch|change|run|use)\s+(?:that|this|it|them)\b",
    re.I,
)
_NOT_A_RULE = re.compile(r"\?\s*$|^(?:why|what|how|can you|could you|is|are|does|do you)\b", re.I)


def correction_rule(text: str, after_stop: bool = False) -> ExtractedFact | None:
    """A rule from what the user said, when it corrects the agent with an alternative.
    ``after_stop``: the message follows a rejected tool use or an interrupt, so it needs no
    leading "no"."""
    said = " ".join((text or "").split())
    if not said or len(said) > MAX_LEN or _NOT_A_RULE.search(said):
        return None
    lead = _LEAD.match(said)
    if lead is None and not after_stop:
        return _standing_instead(said)
    rest = said[lead.end() :] if lead else said
    if len(rest) < 8 or not _ALTERNATIVE.search(rest):
        return None
    # "don't do that" names nothing: a rule needs words of its own
    vague = len(rest.split()) < 5 or _VAGUE.match(rest)
    conf = 0.7 if _STRONG.search(rest) and not vague else 0.55
    rest = rest[0].upper() + rest[1:]
    return ExtractedFact(
        rest, "rule", 0.8, "correction", tags=["session", "correction"], confidence=conf
    )


def corrections(transcript) -> list[ExtractedFact]:
    """Rules from the user's corrections in a transcript (messages and events in time order)."""
    stops = sorted(
        (
            e.timestamp
            for e in transcript.events
            if e.kind in ("rejected", "interrupted") and e.timestamp
        ),
    )
    out: list[ExtractedFact] = []
    for m in transcript.messages:
        if m.role != "user":
            continue
        after_stop = _follows_stop(m.timestamp, stops)
        f = correction_rule(m.text, after_stop=after_stop)
        after = "rejection" if after_stop else "no"
        found = [f] if f is not None else []
        if not found:
            after = "said"
            found = [x for x in (note_request(m.text), gone_now(m.text)) if x] or listed_rules(
                m.text
            )
        for f in found:
            f.timestamp = m.timestamp
            f.provenance = {"line": m.uuid, "after": after}
            out.append(f)
    return out


def _follows_stop(ts: datetime | None, stops: list[datetime]) -> bool:
    """The message is the first thing the user said after a rejection or interrupt."""
    if ts is None:
        return False
    return any(s <= ts and (ts - s).total_seconds() < 3600 for s in stops)


_INSTEAD = re.compile(
    r"^(?:please\s+)?(?:use|prefer|go with|stick (?:to|with))\s+(?P<what>[\w.@/+-]+(?:\s+[\w.@/+-]+){0,3})\s+"
    r"(?:instead of|rather than|over|not)\s+\S+",
    re.I,
)


def _standing_instead(said: str) -> ExtractedFact | None:
    """ "use bun instead of npm": a choice between tools, said as an order, holds beyond
    this minute even without a "no" before it."""
    if not _INSTEAD.match(said) or len(said.split()) > 20:
        return None
    rest = said[0].upper() + said[1:]
    return ExtractedFact(
        rest, "rule", 0.75, "correction", tags=["session", "correction"], confidence=0.6
    )


# "can you update CLAUDE.md that we should always run `mise run fmt` with `mise run lint`": the
# user asks for a standing rule to be written down; it is one wherever it ends up
_NOTE = re.compile(
    r"^(?:(?:can|could) you |please )*(?:update|add (?:it )?to|note in|write (?:it )?(?:in|into)|"
    r"put (?:it )?in|remember in)\s+(?:the\s+)?(?:claude\.md|agents\.md|gemini\.md|memory|"
    r"rules|docs|readme(?:\.md)?|contributing(?:\.md)?)\s*(?:that|:)\s*(?:we\s+should\s+|"
    r"you\s+should\s+|to\s+)?(?P<rule>.{8,})$",
    re.I,
)
# "we don't have `Entire-Session` anymore": a thing of the project that is gone
_GONE = re.compile(
    r"\b(?:we|it|this repo|the project)\s+(?:don'?t|do not|doesn'?t|does not|no longer)\s+"
    r"(?:have|use|need|ship|support)\s+(?P<what>`[^`]+`|[A-Z][\w.-]+)(?:\s+(?:any ?more|now))?",
    re.I,
)


def note_request(text: str) -> ExtractedFact | None:
    said = " ".join((text or "").split()).rstrip("?.! ")
    m = _NOTE.match(said)
    if m is None or len(said) > MAX_LEN:
        return None
    rule = m.group("rule").strip()
    rule = rule[0].upper() + rule[1:]
    return ExtractedFact(rule, "rule", 0.8, "rule", tags=["session", "rule"], confidence=0.7)


def gone_now(text: str) -> ExtractedFact | None:
    said = " ".join((text or "").split())
    m = _GONE.search(said)
    if m is None or not re.search(r"\b(?:any ?more|no longer|now)\b", m.group(0), re.I):
        return None
    head = m.group(0).strip()
    return ExtractedFact(
        head[0].upper() + head[1:],
        "fact",
        0.6,
        "change",
        tags=["session", "change"],
        confidence=0.7 if "`" in m.group("what") else 0.55,
    )


_ITEM = re.compile(r"(?:^|\s)\d{1,2}[.)]\s+")
_FIRM_RULE = re.compile(r"\b(?:always|never|do not|don'?t|must|instead of)\b", re.I)
_CODE = re.compile(r"`[^`]+`|\b\w+\.\w+(?:\(\w*\))?|\b\w+\(\w*\)|\b[A-Za-z][a-z]+[A-Z]\w+")


def listed_rules(text: str) -> list[ExtractedFact]:
    """The numbered rules a user lays out ("1. if the error is a cli.SilentError, do not print
    anything 2. always exit with os.Exit(1)"): each item that says always/never/do not about
    something in the code is a rule."""
    said = " ".join((text or "").replace("**", "").split())
    if len(said) > 6000:
        return []
    items = [p.strip(" ;,") for p in _ITEM.split(said)[1:]]
    if len(items) < 2:
        return []
    out = []
    for item in items:
        if 12 <= len(item) <= MAX_LEN and _FIRM_RULE.search(item) and _CODE.search(item):
            rule = item[0].upper() + item[1:]
            out.append(
                ExtractedFact(rule, "rule", 0.7, "rule", tags=["session", "rule"], confidence=0.7)
            )
    return out

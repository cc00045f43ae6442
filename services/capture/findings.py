"""What the assistant found out and what fixed it, with the values that mattered ("the release
job needed a longer signing timeout and one retry"), and environment facts that worked
(versions, ports, commands).

Only statements that carry a value (a number, a version, a ``code`` span, a flag, a path) and
say what caused a problem or what fixed it are kept; a plan ("let me check …"), a guess
("it might be …") or a one-off fix log ("removed the unused import") is not knowledge. A
finding counts as confirmed when the session shows it worked afterwards (a command that
succeeded, the user saying it works, or the session ending done); unconfirmed ones wait in
the review inbox.
"""

from __future__ import annotations

import re

from services.capture.episode_summary import outcome
from services.capture.extract import MAX_LEN, ExtractedFact, project_category, sentences

_FINDING = re.compile(
    r"\b(?:root cause(?::| was| is that| of\b| fix\b)|"
    r"(?:found|identified|tracked down) the (?:root )?(?:cause|culprit|issue|problem)\b|"
    r"the (?:real |actual |underlying )?(?:issue|problem|bug|culprit|cause) "
    r"(?:was|is)(?: that|:| —| -)|the reason (?:was|is) that|turns out|caused by|"
    r"(?:was|were|is|are) failing because|fail(?:s|ed)? because|"
    r"the fix was|fixed (?:it |this |that )?by|the solution was|resolved by|"
    r"needed (?:a |an |the |one )|required (?:a |an |the )|"
    r"works? (?:now )?(?:after|once)|only works with)(?:(?!\w)|(?<=\s))",
    re.I,
)
# A change with both values: "increased the notarization timeout from 20m to 45m", "updated
# Go from 1.25.5 to 1.25.6"; a setting put in place: "added `retry: 1`".
_CHANGE = re.compile(
    r"\b(?:increased|decreased|raised|lowered|bumped|changed|updated|upgraded|downgraded|"
    r"pinned|switched)\b\s+(?!from\b)[^;\n]{1,80}\bfrom\b[^;\n]{0,20}\d[^;\n]{0,40}\bto\b\s*"
    r"[^;\n]{0,10}\d|"
    r"^(?:added|set|configured|enabled|disabled)\b[^.;]{0,40}`(?!/)[\w.-]+(?::\s+|=)[^`]+`",
    re.I,
)
# Knowledge about the tools themselves: "brews is being phased out in favor of homebrew_casks".
_DEPRECATED = re.compile(
    r"\b(?:is|are) (?:being )?(?:phased out|deprecated|replaced)\b.*\b(?:in favou?r of|by|with)\b",
    re.I,
)
_ENV = re.compile(
    r"\b(?:runs? on|running on|listens? on|listening on|served on|bound to|"
    r"requires?|installed|is at version|pinned to|works with|compatible with)\b.*"
    r"(?:\bport \d{2,5}\b|:\d{2,5}\b|\bv?\d+\.\d+(?:\.\d+)?\b|\b(?:node|python|go|java|ruby|"
    r"postgres(?:ql)?|redis|docker)\s+\d+|`[\w.-]+:\s*\w+`)",
    re.I,
)
_VALUE = re.compile(
    r"`[^`]+`|\b\d+(?:\.\d+)*\s*(?:ms|s|sec|seconds?|minutes?|m|h|mb|gb|kb|%)?\b|"
    r"(?<![\w-])--?[a-z][\w-]+|\b\w+=\S+|(?:^|\s)[\w.-]*/[\w./-]+|\b(?:one|two|three) (?:retry|retries)\b",
    re.I,
)
_HEDGE = re.compile(
    r"\b(?:might|may|maybe|could|probably|perhaps|possibly|i think|i suspect|likely|"
    r"let me|let's|i'll|i will|we should|should we|try(?:ing)? to|not sure|guess)\b|\?\s*$",
    re.I,
)
# Housekeeping that happens in every session and teaches nothing about the project.
_ONE_OFF = re.compile(
    r"\b(?:unused (?:import|variable|parameter)s?|typos?|lint(?:er|ing)? (?:error|warning|issue)s?|"
    r"formatting|whitespace|indentation|trailing comma|import order|missing semicolon)\b",
    re.I,
)
_FIX_VERB = re.compile(r"\b(?:fixed|removed|cleaned up|corrected|resolved|deleted|tidied)\b", re.I)


def is_fix_log(text: str) -> bool:
    """ "Fixed an unused import in views.py": housekeeping done once, not knowledge."""
    return bool(_ONE_OFF.search(text) and _FIX_VERB.search(text))


_ACK = re.compile(
    r"\b(?:thanks|thank you|works|worked|working now|perfect|great|lgtm|that fixed|"
    r"fixed it|nice|awesome|confirmed)\b",
    re.I,
)
# About a test or a merge: usually this change's bookkeeping; the user decides in review.
_LOCAL = re.compile(r"\btests?\b|_test\.|\.test\.|\bspecs?\b|\bconflicts?\b", re.I)
_MARKUP = re.compile(r"\*\*|__|^#+\s*|^[-*]\s+|^\d+\.\s+")


# "I found the cause: the cookie expires …": the finding is what follows the colon
_LEAD = re.compile(
    r"^(?:i |we )?(?:found|identified|tracked down) (?:the |it)(?:root )?(?:cause|culprit|"
    r"issue|problem)?\s*[:—-]\s*(?=\S)",
    re.I,
)


def _clean(sentence: str) -> str:
    return " ".join(_MARKUP.sub("", sentence).split()).strip().rstrip(":：").strip()


def _without_lead(s: str) -> str:
    lead = _LEAD.match(s)
    if lead and len(s) - lead.end() >= 20:
        s = s[lead.end() :]
        s = s[:1].upper() + s[1:]
    return s


def _confirmed(t, m) -> bool:
    """Something after the statement shows it held: a command that worked, the user saying
    so, or the session ending done."""
    if m.timestamp is not None:
        later_ok = [
            e
            for e in t.events
            if e.kind == "command" and e.ok and e.timestamp and e.timestamp > m.timestamp
        ]
        if later_ok:
            return True
        said = [
            u for u in t.messages if u.role == "user" and u.timestamp and u.timestamp > m.timestamp
        ]
        if any(_ACK.search(u.text) for u in said[:2]):
            return True
    return outcome(t) == "done"


def statement_kind(sentence: str) -> str | None:
    """ "finding", "env" or None for one sentence of the assistant's."""
    s = _clean(sentence)
    if len(s) < 20 or len(s) > MAX_LEN or _HEDGE.search(s) or _ONE_OFF.search(s):
        return None
    if _CHANGE.search(s) and _VALUE.search(s):  # "from blue to green" is an edit, not a value
        return "finding"
    if s.endswith((":", "：")):  # introduces code or a list: the value is not in it
        return None
    if _DEPRECATED.search(s):
        return "finding"
    if _FINDING.search(s) and _VALUE.search(s):
        return "finding"
    if _ENV.search(s):
        return "env"
    return None


def findings(t) -> list[ExtractedFact]:
    out: list[ExtractedFact] = []
    proj = project_category(t.project)
    for m in t.messages:
        for sentence in sentences(m.text):
            kind = statement_kind(sentence)
            if kind is None or (m.role != "assistant" and not _DEPRECATED.search(sentence)):
                continue  # the user's own statements have their own extractor
            # what the user states about their tools is their knowledge, not a guess
            unsure = None
            if m.role == "assistant":
                if not _confirmed(t, m):
                    unsure = "nothing later in the session showed it held"
                elif _LOCAL.search(sentence):
                    unsure = "about a test or a merge: maybe only this change's bookkeeping"
            out.append(
                ExtractedFact(
                    _without_lead(_clean(sentence)),
                    proj if kind == "finding" else "env",
                    0.7 if kind == "finding" else 0.6,
                    kind,
                    timestamp=m.timestamp,
                    tags=["session", kind],
                    confidence=(0.5 if unsure else 0.7),
                    provenance={"line": m.uuid, "section": f"assistant:{kind}"}
                    | ({"unsure": unsure} if unsure else {}),
                )
            )
    return out

"""Polarity of Markdown memory: which headings, lead-ins and markers turn the statements under
them into prohibitions, and how a statement that is only negative through its context is
written so it stays negative on its own.

An agent told the opposite of its instructions is the worst failure a memory tool can have:
"**NEVER**:" + "- run the dev server" must be stored as "Never run the dev server", never as
"run the dev server". Several languages of phrasing are recognised (English, German, French,
Spanish, Chinese).
"""

from __future__ import annotations

import re

# A cue anywhere in a heading or lead-in makes what it heads negative.
_CUE = re.compile(
    r"\b(never|don'?t|dont|do not|does not|must not|mustn'?t|should not|shouldn'?t|"
    r"cannot|can'?t|avoid|avoided|anti-?patterns?|forbidden|prohibited|not allowed|"
    r"disallowed|banned|no-go|pitfalls?|mistakes?|what not|niemals|nie|nicht|vermeide[n]?|"
    r"verboten|jamais|ne pas|évite[rz]?|interdit|nunca|evita[r]?|prohibido)\b|"
    r"[❌🚫⛔✗✘]|禁止|不要|切勿|不得|严禁|避免|不能|别",
    re.I,
)
# A lead-in that is nothing but the polarity: the statement reads as "<word> <item>".
_PURE = [
    (
        re.compile(
            r"^(?:never|never ever|never do(?: this| these| the following)?|niemals|nie|jamais|ne jamais|"
            r"nunca)$",
            re.I,
        ),
        "Never",
    ),
    (
        re.compile(
            r"^(?:don'?t|dont|don't do(?: this| these)?|do not|do not do(?: this| these)?|"
            r"please don'?t|please do not|you must not|you should not|must not|"
            r"should not|nicht|ne pas|no)$",
            re.I,
        ),
        "Do not",
    ),
    (
        re.compile(
            r"^(?:avoid|avoid these|avoid the following|things to avoid|what to avoid|"
            r"vermeide|vermeiden|évitez|éviter|evita|evitar)$",
            re.I,
        ),
        "Avoid",
    ),
    (re.compile(r"^(?:禁止|不要|切勿|严禁|不得|避免)$"), "Do not"),
]
_MARKUP = re.compile(r"\*+|`+|~~|^[#>\s]+|(?<!\w)_+|_+(?!\w)")
_BOLD = re.compile(r"\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)")
_EMOJI_NEG = re.compile(r"^\s*(?:❌|🚫|⛔|✗|✘|:x:|:no_entry(?:_sign)?:)\s*")
_EMOJI_POS = re.compile(r"^\s*(?:✅|✔️?|✓|☑️?|:white_check_mark:|:heavy_check_mark:)\s*")
# A statement that already says its polarity itself.
_SELF_NEG = re.compile(
    r"^\s*(?:\*\*|__)?\s*(never|don'?t|do not|does not|must not|mustn'?t|should not|"
    r"shouldn'?t|cannot|can'?t|avoid|no|not|nothing|none|stop|without|niemals|nie|nicht|"
    r"jamais|ne |nunca|no )\b|^\s*(?:禁止|不要|切勿|严禁|不得|避免|别)",
    re.I,
)


def plain(text: str) -> str:
    """A heading or lead-in as words: markup and the trailing colon gone."""
    s = _MARKUP.sub("", text).strip()
    return s.rstrip(":：").strip()


def is_negative(label: str) -> bool:
    return bool(_CUE.search(plain(label)))


def pure_word(label: str) -> str | None:
    """'**NEVER**:' → 'Never'; 'Avoid:' → 'Avoid'; None when the lead-in says more."""
    s = re.sub(r"\s+", " ", plain(_EMOJI_NEG.sub("", label))).strip(" .!")
    for pat, word in _PURE:
        if pat.match(s):
            return word
    return None


def says_negative(text: str) -> bool:
    return bool(_SELF_NEG.match(text)) or bool(_EMOJI_NEG.match(text))


def emoji_marked(text: str) -> str:
    """'❌ git push --force' → "Don't: git push --force" (the cross is the only negation)."""
    m = _EMOJI_NEG.match(text)
    if m:
        rest = text[m.end() :].strip()
        return rest if says_negative(rest) else f"Don't: {rest}"
    return text


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


_OWN_WORDS = re.compile(
    r"^(?:never|don'?t|do not|must not|should not|avoid|niemals|nie|jamais|nunca|evita|"
    r"vermeide|évitez|ne jamais|禁止|不要|切勿|严禁|不得|避免)$",
    re.I,
)


def _sentence_word(lead: str, mapped: str) -> str:
    """The lead-in's own word when it is one ("NEVER" → "Never", "禁止"), else ``mapped``."""
    own = re.sub(r"\s+", " ", plain(_EMOJI_NEG.sub("", lead))).strip(" .!")
    if not _OWN_WORDS.match(own):
        return mapped
    return own[0].upper() + own[1:].lower() if own.isupper() or own[:1].islower() else own


def with_lead(lead: str, item: str) -> str:
    """The item as a statement of its own, carrying its lead-in: a pure polarity lead-in reads
    as a sentence ("Never run the dev server"), any other one stays in front
    ("Add manual spans where: calling external APIs")."""
    word = pure_word(lead)
    if word is not None:
        if says_negative(item):
            return item
        word = _sentence_word(lead, word)
        sep = "" if re.match(r"[\u4e00-\u9fff]", word) else " "
        return f"{word}{sep}{_lower_first(item)}"
    lead_text = _BOLD.sub("", lead).strip().rstrip(":：").strip()
    if not lead_text:
        return item
    return f"{lead_text}: {item}"

"""Where a secret sits in ordinary text: after a key (``password: …``, ``"api_key": "…"``), in
a sentence (``my password's …``, ``use … as the password``, ``Mein Passwort ist …``), a login
pair (``login: admin / …``), a command line (``curl -u admin:…``, ``mysql -p…``,
``sshpass -p …``), a seed phrase, an IBAN, or anywhere as a random-looking token.

Each finder returns ``(kind, start, end)`` spans of the secret itself; the place is only a
hint, the value's shape (``secret_shapes``) decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from services.ingest.secret_shapes import (
    DOC_WORDS,
    ibans,
    password_like,
    plain_value,
    random_token,
)

Span = tuple[str, int, int]

_SECRET_WORD = (
    r"passw(?:or)?d|passphrase|passwort|kennwort|secret|token|api[_\-]?key|apikey|"
    r"access[_\-]?key|private[_\-]?key|credentials?|auth[_\-]?key|signing[_\-]?key|pwd"
)
_KEY = re.compile(
    r"(?P<q>[\"']?)(?P<key>\b[A-Za-z0-9_.\-]*(?:" + _SECRET_WORD + r")s?"
    r"(?:[_.\-][A-Za-z0-9_.\-]*|(?-i:[A-Z])[A-Za-z0-9_.\-]*)?"
    r"|\b(?:pass|pw)\b)[\"']?\s*(?:=|:(?![:/]))[ \t]*(?=(?P<rest>[^\n]*))",
    re.I,
)
# the key names a property *of* a secret (its type, where it is read from, its length)
_DESCRIPTOR = re.compile(
    r"(?i)(?:"
    + _SECRET_WORD
    + r"|pass|pw)[_\-.]?(?:key[_\-.]?)?(?:type|source|method|env|file|path|name|url|"
    r"uri|ids?|hash|hashed|len|length|ttl|expiry|expires(?:_?at)?|count|limit|policy|field|"
    r"input|ref|store|body|request|response|header|prefix|format|kind|scopes?|mode|endpoint|"
    r"params?|column|regex|pattern|label|hint|help|changed_?at|reset|rotation|age|min|max|"
    r"size|bucket|budget|usage|manager|provider|helper|service|backend|required|enabled)s?$"
)
_VALUE = re.compile(r"\"(?:[^\"\\\n]|\\.)+\"|'[^'\n]+'|`[^`\n]+`|[^\s,;}\]\"'`]+")


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    """Drop quotes and sentence punctuation around a value."""
    while b > a and text[b - 1] in ".,;:)}]":
        b -= 1
    if b - a >= 2 and text[a] in "\"'`" and text[b - 1] == text[a]:
        a, b = a + 1, b - 1
    return a, b


def key_values(text: str) -> Iterator[Span]:
    if "=" not in text and ":" not in text:
        return
    for m in _KEY.finditer(text):
        if _DESCRIPTOR.search(m.group("key")):
            continue
        v = _VALUE.match(text, m.end())
        if v is None:
            continue
        rest = text[v.end() : v.end() + 80].split("\n")[0]
        if plain_value(v.group(0), rest, quoted_key=bool(m.group("q"))):
            continue
        a, b = _trim(text, *v.span())
        if b > a:
            yield "key-value-secret", a, b


# -- sentences ---------------------------------------------------------------------------------
_PW_NOUN = (
    r"pass(?:word|phrase|code)|passwd|pwd|\bpw|wi-?fi\s+key|passwort|kennwort|"
    r"mot\s+de\s+passe|contrase[ñn]a|clave|senha|wachtwoord|l[öo]senord|has[łl]o|"
    r"парол[ьяею]|パスワード|密码|密碼|secret\s+answer|security\s+answer"
)
_KEY_NOUN = r"api[\s_-]?key|access\s+key|secret\s+key|(?:auth\s+|access\s+|bearer\s+|my\s+)token"
_CODE_NOUN = (
    r"\bpin(?:\s+code)?|pin-code|пин-код|t[üu]rcode|code\s+(?:de\s+la\s+porte|d'entr[ée]e)|"
    r"(?:door|gate|alarm|garage|keypad|safe|lock|entry|building|lockbox|entrance)\s+"
    r"(?:keypad\s+)?code|combination|recovery\s+codes?|backup\s+codes?|暗証番号"
)
_QUAL = (
    r"(?:\s+(?:for|to|of|on|du|de|del|für|das|des|van|voor|zum|zur|pour)\s+"
    r"[^\s:=,.]+(?:\s+[^\s:=,.]+){0,3}?)?"
)
_LINK = (
    r"(?P<link>\s*(?:=|:)\s*|'s\s+|’s\s+|\s+(?:is|was|is\s+now|has\s+been\s+changed\s+to|"
    r"changed\s+to|ist|lautet|est|es|è|é|är|to|je|это|sind|are)\s+|\s*(?:是|为|は|：)\s*)"
)
_NOT_QUALIFIER = (
    r"(?!(?:manager|policy|policies|field|reset|prompt|rules?|requirements?|length|vault|store|"
    r"storage|files?|hash|strength|change|expiry|form|dialog|box|input|hint|generator|app|tool|"
    r"format|column|table|screen|page)\b)"
)
_NOUN = re.compile(rf"{_PW_NOUN}|{_KEY_NOUN}|{_CODE_NOUN}", re.I)
_AFTER_NOUN = (
    re.compile(rf"{_QUAL}{_LINK}", re.I),  # "password for the NAS is X"
    # "mot de passe wifi est X": one word between the noun and the verb, so only a value
    # with a digit or a symbol counts (checked as a bare value)
    re.compile(rf"\s+{_NOT_QUALIFIER}[^\s:=,.]+{_LINK}", re.I),
    # "мой пароль X", "garage keypad code 7733": no verb, the value alone must look the part
    re.compile(r"\s+"),
)
# a cheap test before the noun scan: most text names no password, code or key at all
_TRIGGERS = frozenset(
    "password passwords passphrase passcode passwd pwd pw wifi fi passwort kennwort passe "
    "contraseña contrasena clave senha wachtwoord lösenord losenord hasło haslo пароль пароля "
    "паролем secret security api apikey key access token pin code türcode turcode combination "
    "codes пин".split()
)
_CJK_TRIGGERS = ("パスワード", "密码", "密碼", "暗証")


def _may_name_a_secret(text: str) -> bool:
    low = text.lower()
    return not _TRIGGERS.isdisjoint(re.findall(r"\w+", low)) or any(
        t in text for t in _CJK_TRIGGERS
    )


_USE_AS = re.compile(
    r"\buse\s+(?P<v>\S+)\s+as\s+(?:the|my|our|your|a)\s+(?:[\w-]+\s+){0,2}(?:"
    + _PW_NOUN
    + r"|pin)\b",
    re.I,
)
_CHANGED_TO = re.compile(
    r"\b(?:changed|set|reset|updated)\s+(?:the|my|our)?\s*(?:" + _PW_NOUN + r")"
    r"(?:\s+\w+){0,3}?\s+to\s+",
    re.I,
)
_FUNCTION = DOC_WORDS | frozenset(
    "and or but if when so because since after before with without until unless then than "
    "to of as it he she they we i you his her their my me us them be been being has have had "
    "do does did too very enough quite zu nicht ist pas est".split()
)
_CODE_VALUE = re.compile(
    r"(?:[A-Z0-9]{3,6}-){1,5}[A-Z0-9]{3,6}|[*#]?\d[\d*#]*(?:[- ]\d[\d*#]*)*[*#]?"
)


def _passphrase(text: str, at: int) -> tuple[int, int] | None:
    """Three to eight lowercase words to the end of the clause, none of them a function word:
    ``correct horse battery staple``."""
    m = re.match(r"[a-z]+(?:\s+[a-z]+){2,7}(?=\s*(?:[.,;!?)]|$))", text[at:])
    if not m or any(w in _FUNCTION for w in m.group(0).split()):
        return None
    return at, at + m.end()


def _sentence_value(text: str, at: int, kind: str, bare: bool) -> tuple[int, int] | None:
    if kind == "code":
        m = _CODE_VALUE.match(text, at)
        if not m or not re.search(r"\d", m.group(0)) or len(re.sub(r"\D", "", m.group(0))) < 3:
            return None
        return m.span()
    v = _VALUE.match(text, at)
    if v is None:
        return None
    a, b = _trim(text, *v.span())
    word = text[a:b]
    if word.isdigit() and len(word) >= 4 and re.match(r"\s*(?:[.,;!?)]|$)", text[b : b + 3]):
        return a, b  # a PIN said as a password
    if not word or word.lower() in _FUNCTION or plain_value(word):
        return None
    if kind == "key" and not (random_token(word, 12) or re.fullmatch(r"[0-9a-f]{16,}", word)):
        return None if not password_like(word) or len(word) < 10 else (a, b)
    if password_like(word) and len(word) >= 4:
        return a, b
    if bare or not re.fullmatch(r"[a-z]+", word):
        return None
    phrase = _passphrase(text, a)
    if phrase:
        return phrase
    after = text[b : b + 3]
    return (a, b) if re.match(r"\s*(?:[.,;!?)]|$)", after) else None


def _noun_kind(noun: str) -> str:
    low = noun.lower()
    if re.search(_CODE_NOUN, low, re.I):
        return "code"
    return "key" if re.search(_KEY_NOUN, low, re.I) else "password"


def sentences(text: str) -> Iterator[Span]:
    if not _may_name_a_secret(text):
        return
    for m in _NOUN.finditer(text):
        kind = _noun_kind(m.group(0))
        for n, rx in enumerate(_AFTER_NOUN):
            after = rx.match(text, m.end())
            span = after and _sentence_value(text, after.end(), kind, bare=n > 0)
            if span:
                yield ("door-code" if kind == "code" else "password"), *span
                break
    for m in _USE_AS.finditer(text):
        a, b = _trim(text, *m.span("v"))
        if password_like(text[a:b]) or len(text[a:b]) >= 8:
            yield "password", a, b
    for m in _CHANGED_TO.finditer(text):
        span = _sentence_value(text, m.end(), "password", False)
        if span:
            yield "password", *span


# -- login pairs and command lines -------------------------------------------------------------
_LOGIN = re.compile(
    r"(?i)\b(?:login|log-in|creds|credentials|user(?:name)?|account)\b[^\n/:]{0,25}?"
    r"(?:[:=]\s*|\s+(?:is|are)\s+|\s+)"
    r"(?P<user>[\w.@+-]{2,40})(?:\s*/\s*|:(?!\s))(?P<v>[^\s/]+)"
)
_CLI: list[tuple[re.Pattern, str]] = [
    (re.compile(r"\bcurl\b[^\n]*?\s(?:-u|--user)\s+['\"]?[^\s:'\"]+:(?P<v>[^\s'\"]+)"), "cli"),
    (
        re.compile(r"\b(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n]*?\s-p(?P<v>[^\s-][^\s]*)"),
        "cli",
    ),
    (re.compile(r"\bsshpass\s+-p\s*(?P<v>'[^']+'|\"[^\"]+\"|\S+)"), "cli"),
    (
        re.compile(
            r"\b(?:docker|podman|nerdctl|az|oc|skopeo|buildah|helm)\b[^\n]*?\s-p\s+(?P<v>\S+)"
        ),
        "cli",
    ),
    (re.compile(r"\bredis-cli\b[^\n]*?\s-a\s+(?P<v>\S+)"), "cli"),
    (re.compile(r"\bhtpasswd\s+-\w*b\w*\s+\S+\s+\S+\s+(?P<v>\S+)"), "cli"),
    (re.compile(r"\bsmbclient\b[^\n]*?\s-U\s+[^\s%]+%(?P<v>\S+)"), "cli"),
    (re.compile(r"\s-(?:passin|passout|pass)\s+pass:(?P<v>\S+)"), "cli"),
    (re.compile(r"\s-(?:storepass|keypass|srcstorepass|deststorepass)\s+(?P<v>\S+)"), "cli"),
    (
        re.compile(
            r"\s--(?:password|passwd|pass|token|api-key|apikey|secret|auth-token|access-token|"
            r"client-secret|private-key)(?![\w-])(?:=|\s+)(?P<v>'[^']+'|\"[^\"]+\"|[^\s-]\S*)"
        ),
        "cli",
    ),
]


def logins(text: str) -> Iterator[Span]:
    for m in _LOGIN.finditer(text):
        a, b = _trim(text, *m.span("v"))
        v = text[a:b]
        if password_like(v) and not plain_value(v) and not v.startswith(("//", "http")):
            yield "login-password", a, b


_CLI_WORDS = (
    "curl",
    "mysql",
    "mariadb",
    "sshpass",
    "docker",
    "podman",
    "nerdctl",
    "az ",
    "oc ",
    "skopeo",
    "buildah",
    "helm",
    "redis-cli",
    "htpasswd",
    "smbclient",
    " -pass",
    " -store",
    " -keypass",
    " -srcstore",
    " -deststore",
    " --",
)


def command_lines(text: str) -> Iterator[Span]:
    if not any(w in text for w in _CLI_WORDS):
        return
    for rx, _ in _CLI:
        for m in rx.finditer(text):
            a, b = _trim(text, *m.span("v"))
            v = text[a:b]
            if v and not plain_value(v) and v not in ("-", "stdin"):
                yield "command-line-secret", a, b


# -- seed phrases, IBANs, bare random tokens ---------------------------------------------------
_SEED = re.compile(
    r"(?i)(?:seed|recovery|mnemonic|backup|secret\s+recovery)\s*(?:phrase|words|sentence)?"
    r"[^\n:]{0,25}?(?::|\s(?:is|are)\b)?\s*(?P<v>(?-i:[a-z]{3,8})(?:\s+(?-i:[a-z]{3,8})){11,23})\b"
)
_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=.~%]{16,}")


def seed_phrases(text: str) -> Iterator[Span]:
    for m in _SEED.finditer(text):
        words = m.group("v").split()
        if len(words) in (12, 15, 18, 21, 24) or len(words) >= 12:
            yield "seed-phrase", *m.span("v")


def iban_spans(text: str) -> Iterator[Span]:
    for a, b in ibans(text):
        yield "iban", a, b


def random_tokens(text: str) -> Iterator[Span]:
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if random_token(tok, 16 if re.search(r"[^\w]", tok) is None else 20):
            yield "random-token", *_trim(text, *m.span())


FINDERS: list[Callable[[str], Iterator[Span]]] = [
    key_values,
    command_lines,
    logins,
    sentences,
    seed_phrases,
    iban_spans,
    random_tokens,
]

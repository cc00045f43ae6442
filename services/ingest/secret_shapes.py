"""Whether a value looks like a secret, judged by its shape rather than by the key it sits under.

A key name only says where a secret *could* be: ``sessionToken: varchar(255)`` names a column
type, ``SEARCH_API_KEY: required for …`` documents a variable, ``**AuthTokenBody:**`` names a
type. What is redacted is a value that looks like one: random-looking (entropy, mixed
character classes), a known provider prefix, or a short password-like string where a password
is expected. Also here: the Unicode clean-up run before matching (a zero-width space or a soft
hyphen must not split a token), and the IBAN checksum.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter

# characters that render as nothing: a token split by one is still the token
_INVISIBLE = dict.fromkeys(
    [0x00AD, 0x034F, 0x061C, 0x180E, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2060]
    + [0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF]
)
# Latin look-alikes from Cyrillic and Greek, applied only inside a token that mixes scripts
# (a Russian word stays Russian; "gհp_" written with an Armenian letter becomes "ghp_")
_CONFUSABLE = str.maketrans(
    "аеорсухіјѕԁԛԝАВЕКМНОРСТХУІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοαιսհ‐‑‒–—−",
    "aeopcyxijsdqwABEKMHOPCTXYIJSABEZHIKMNOPTYXoaiuh------",
)
_MIXED_TOKEN = re.compile(r"\S*[A-Za-z]\S*")
_NON_LATIN = re.compile(r"[\u0370-\u03ff\u0400-\u04ff\u0530-\u058f\u2010-\u2212]")


def normalise(text: str) -> str:
    """The form secrets are matched in: invisible characters dropped, width folded (NFKC on
    full-width forms only), look-alike letters mapped inside tokens that mix scripts."""
    out = text.translate(_INVISIBLE)
    if any("\uff01" <= ch <= "\uff5e" for ch in out):
        out = "".join(
            unicodedata.normalize("NFKC", ch) if "\uff01" <= ch <= "\uff5e" else ch for ch in out
        )
    if _NON_LATIN.search(out):
        out = _MIXED_TOKEN.sub(_fold_token, out)
    return out


def _fold_token(m: re.Match) -> str:
    tok = m.group(0)
    return tok.translate(_CONFUSABLE) if _NON_LATIN.search(tok) else tok


def entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


# what a value under a password-ish key is when it is not a secret
TYPE_WORDS = frozenset(
    "str string text varchar char nvarchar bytes bytea bool boolean int integer bigint number "
    "float double decimal uuid date datetime timestamp timestamptz json jsonb object array "
    "list dict map any unknown null none nil undefined optional required secretstr "
    "securestring password secret token key blob binary enum serial hash bearer basic".split()
)
DOC_WORDS = frozenset(
    "required optional used needed set see the a an your our its this that for from in on at "
    "by via is are was must should may will can cannot not no never only also stored read "
    "loaded kept managed rotated hashed encrypted masked hidden generated provided missing "
    "empty invalid valid wrong expired changed reset same different unique per each every "
    "default defaults automatic auto unset tbd todo n/a na e.g. eg example placeholder "
    "obligatoire obligatoria obligatorio erforderlich".split()
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:[*x•.·_\-#]{3,}|<[^>]*>?|\$\{?[\w.]*\}?|\{\{.*|%\(?\w*\)?s?|\[redacted.*|"
    r".*(?:your[_\- ]|changeme|change[_\-]me|example|placeholder|redacted|dummy|xxxx|"
    r"\.\.\.|…).*)$"
)
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]{4,}$")
_CALL = re.compile(r"^[\w.$]+\(.*\)?;?$|^[\w.]+\[.*\]?$|^new\s")
_TYPE_NAME = re.compile(
    r"^[A-Z][A-Za-z]*(?:Str|String|Ref|Type|Body|Request|Response|Config|Input|Field|Store|"
    r"Model|Schema|Dto|DTO|Props|Options|Params|Spec|Kind|Error|Exception)$"
)
# a class name (``ResetPasswordTokensService``): three or more capitalised words run together,
# the last a kind of thing in code; a passphrase (``CorrectHorseBatteryStaple``) is not one
_CLASS_NAME = re.compile(
    r"^(?:[A-Z][a-z]+){2,}(?:Service|Provider|Manager|Handler|Controller|Factory|Repository|"
    r"Client|Helper|Builder|Module|Component|Adapter|Middleware|Guard|Strategy|Resolver|"
    r"Serializer|Validator|Interface|Impl|Job|Worker|Queue|Listener|Mixin|Loader|Parser|"
    r"Generator|Entity|Policy|Command|Plugin|Class|Test|Tests|Spec|Controller)$"
)


def plain_value(value: str, rest: str = "", quoted_key: bool = False) -> bool:
    """True when a value under a secret-looking key is *not* a secret: a type, a placeholder,
    a reference to a variable, an expression, or the first word of documentation prose."""
    v = value.strip().strip("\"'`")
    if not v or v[0] in "{[(*#:/|&!?@$" and not _strong(v):
        return True
    low = v.lower().rstrip(";,.")
    if low in TYPE_WORDS or low in DOC_WORDS or re.fullmatch(r"\d+(?:\.\d+)?|true|false", low):
        return True
    if _PLACEHOLDER.match(v) or _ENV_NAME.match(v) or _TYPE_NAME.match(v.rstrip(";,")):
        return True
    if _CLASS_NAME.match(v.rstrip(";,.")):
        return True
    if _CALL.match(v) and not _strong(v):
        return True
    if re.fullmatch(r"[A-Za-z_][\w.]*[\[(<][\w\[\](),<> .|?]*", v):  # Optional[str], varchar(255)
        return True
    if re.fullmatch(r"[A-Za-z]+", v) and len(re.findall(r"[A-Za-z]{2,}", rest)) >= 2:
        return True  # "required for the web search tool": a sentence, not a value
    return quoted_key and value.strip()[:1] not in "\"'" and bool(re.fullmatch(r"[A-Za-z_]\w*", v))


def _strong(v: str) -> bool:
    classes = sum(bool(re.search(p, v)) for p in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w\s]"))
    return classes >= 3 and len(v) >= 6


def password_like(value: str) -> bool:
    """A short string a person would use as a password: a digit or a symbol among letters,
    or a single unusual word (judged by the caller's context)."""
    v = value.strip("\"'`")
    return bool(v) and bool(re.search(r"[A-Za-z]", v)) and bool(re.search(r"[\d\W_]", v))


def _lower_run_share(tok: str) -> float:
    lowers = sum(c.islower() for c in tok)
    runs = sum(len(r) for r in re.findall(r"[a-z]{4,}", tok))
    return runs / lowers if lowers else 0.0


def random_token(tok: str, min_len: int = 20) -> bool:
    """A string no person would type: long, mixed case and digits, high entropy, not a hash
    (hex), a UUID, a version, a path or a CamelCase identifier."""
    core = tok.strip("\"'`.,;:()[]{}<>")
    if len(core) < min_len or re.fullmatch(r"[0-9a-fA-F\-]+", core):
        return False
    if core.startswith(("/", "./", "~/", "http", "sha1", "sha256", "sha384", "sha512")):
        return False
    if core.count("/") > 3 or core.count(".") > 2 or "::" in core:
        return False
    upper, lower, digit = (sum(f(c) for c in core) for f in (str.isupper, str.islower, str.isdigit))
    if upper < 2 or lower < 2 or digit < 2:
        return False
    if _lower_run_share(core) > 0.5:  # made of words: an identifier, a slug
        return False
    return entropy(core) >= 3.6


_IBAN = re.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)\b")


def iban_ok(s: str) -> bool:
    s = s.replace(" ", "")
    if not 15 <= len(s) <= 34:
        return False
    moved = s[4:] + s[:4]
    digits = "".join(str(int(c, 36)) for c in moved)
    return int(digits) % 97 == 1


def ibans(text: str) -> list[tuple[int, int]]:
    return [m.span(1) for m in _IBAN.finditer(text) if iban_ok(m.group(1))]

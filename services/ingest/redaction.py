"""Secrets never reach the store: API keys, tokens, passwords and private keys are redacted.

Patterns cover the common provider formats; each hit becomes ``[REDACTED:<kind>]`` and the
count is reported so the audit log can record it without recording the secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.ingest.secret_phrases import FINDERS
from services.ingest.secret_shapes import normalise

_AWS_CONTEXT = r"(?i:aws|amazon|secret|s3|iam|AKIA|ASIA)"

PATTERNS: list[tuple[str, re.Pattern]] = [
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?"
            r"(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z)",
            re.S,
        ),
    ),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    ("stripe-key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    (
        "gitlab-token",
        re.compile(
            r"\b(?:gl(?:pat|dt|rt|ptt|cbt|imt|ft|soat|oas|agent)-[A-Za-z0-9_\-]{20,}"
            r"|GR1348941[A-Za-z0-9_\-]{20,})"
        ),
    ),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    (
        "discord-token",
        re.compile(
            r"\b[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}\b"
            r"|\bdiscord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{30,}"
        ),
    ),
    ("digitalocean-token", re.compile(r"\bdo[pro]_v1_[a-f0-9]{64}\b")),
    ("atlassian-token", re.compile(r"\bAT(?:ATT|CTT|OAT)3[A-Za-z0-9_\-=]{30,}")),
    ("heroku-token", re.compile(r"\bHRKU-[A-Za-z0-9_\-]{30,}")),
    (
        "heroku-key",
        re.compile(
            r"(?i)(\bheroku[\w .\-]{0,30}?(?:key|token|secret)[\w .\-\"']{0,10}?[:=\s]\s*[\"']?)"
            r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
        ),
    ),
    (
        "mailgun-key",
        re.compile(r"\bkey-[0-9a-z]{32}\b|\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b"),
    ),
    ("sendgrid-key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("twilio-key", re.compile(r"\b(?:SK|AC)[0-9a-fA-F]{32}\b")),
    ("telegram-bot-token", re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b")),
    (
        "authorization-header",
        re.compile(
            r"(?i)(\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|digest|apikey|sso-key|aws4-hmac-sha256|negotiate)\s+)?)"
            r"([^\s\"',;]{6,}(?:[ ,][^\s\"',;]+=[^\s\"',;]+)*)"
        ),
    ),
    (
        "api-key-header",
        re.compile(r"(?i)(\bx-(?:api|auth)-(?:key|token)[\"']?\s*[:=]\s*[\"']?)([^\s\"',;]{8,})"),
    ),
    ("bearer-token", re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9_\-\.=:+/]{16,}")),
    (
        "connection-string-password",
        re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@]*:)([^\s@/]{1,})(@)"),
    ),
    ("azure-account-key", re.compile(r"(?i)\b(AccountKey=)([A-Za-z0-9+/=]{20,})")),
    ("stripe-webhook-secret", re.compile(r"\bwhsec_[A-Za-z0-9+/=]{16,}")),
    ("slack-app-token", re.compile(r"\bxapp-\d-[A-Za-z0-9\-]{20,}")),
    (
        "slack-webhook",
        re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/T\w+/\w+/(?P<s>\w{16,})"),
    ),
    ("google-oauth-secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_\-]{20,}")),
    ("age-secret-key", re.compile(r"\bAGE-SECRET-KEY-1[0-9A-Z]{40,}")),
    ("azure-sas-signature", re.compile(r"(?i)[?&]sig=(?P<s>[A-Za-z0-9%+/=]{16,})")),
    # the body of a PEM block whose header was cut off: lines of 60-76 base64 characters
    ("pem-body", re.compile(r"(?m)^(?:[A-Za-z0-9+/]{60,76}\r?\n){1,}[A-Za-z0-9+/=]{16,76}$")),
    ("prefixed-key", re.compile(r"\b[a-z]{2,8}_(?:live|test|prod|sandbox|api)_[A-Za-z0-9]{10,}")),
    ("notion-secret", re.compile(r"\bsecret_[A-Za-z0-9]{40,}")),
    ("shopify-token", re.compile(r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b")),
    ("pypi-token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{20,}")),
    ("databricks-token", re.compile(r"\bdapi[a-f0-9]{32}\b")),
    (
        "license-key",
        re.compile(r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{3,6}(?:-[A-Z0-9]{3,6}){3,}\b"),
    ),
    # a bare 40-character AWS secret key: only near words that say it is one (a git SHA
    # is hex and never matches)
    (
        "aws-secret-key",
        re.compile(
            r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=]))"
            r"(?=[^\s]{0,39}[A-Z])(?=[^\s]{0,39}[a-z])(?=[^\s]{0,39}[0-9/+])"
            r"(?![0-9a-fA-F]{40})[A-Za-z0-9/+]{40}"
        ),
    ),
]
KEEP_LABEL = frozenset(
    {
        "azure-account-key",
        "authorization-header",
        "api-key-header",
        "heroku-key",
    }
)


def _near_aws(text: str, a: int, b: int) -> bool:
    return re.search(_AWS_CONTEXT, text[max(0, a - 120) : b + 60]) is not None


@dataclass
class Redaction:
    text: str
    count: int
    kinds: list[str]


def redact(text: str) -> Redaction:
    """Matched on the normalised text (``secret_shapes.normalise``: no invisible characters,
    no look-alike letters inside a token); text in which nothing is found is returned as it
    came, so only a text that held a secret is stored in its normalised form."""
    norm = normalise(text)
    red = _provider_patterns(norm)
    spans = _find(red.text)
    if spans:
        red = _replace(red, spans)
    if not red.count:
        return Redaction(text=text, count=0, kinds=[])
    return red


def _provider_patterns(text: str) -> Redaction:
    kinds: list[str] = []
    total = 0
    for kind, pat in PATTERNS:

        def repl(m: re.Match[str], kind: str = kind) -> str:
            nonlocal total
            if "[REDACTED" in m.group(0):
                return m.group(0)
            if kind == "aws-secret-key" and not _near_aws(m.string, m.start(), m.end()):
                return m.group(0)
            if (
                kind == "license-key"
                and sum(any(c.isdigit() for c in g) for g in m.group(0).split("-")) < 3
            ):
                return m.group(0)  # "ENG-1042-FIX-LOGIN" names a branch; a key mixes every group
            total += 1
            kinds.append(kind)
            if "s" in m.re.groupindex:
                a, b = m.start("s") - m.start(), m.end("s") - m.start()
                return m.group(0)[:a] + f"[REDACTED:{kind}]" + m.group(0)[b:]
            if kind in KEEP_LABEL:
                return m.group(1) + f"[REDACTED:{kind}]"
            if kind == "connection-string-password":
                return m.group(1) + f"[REDACTED:{kind}]" + m.group(3)
            if kind in ("bearer-token", "basic-auth"):
                return m.group(1) + f" [REDACTED:{kind}]"
            return f"[REDACTED:{kind}]"

        text = pat.sub(repl, text)
    return Redaction(text=text, count=total, kinds=kinds)


def _find(text: str) -> list[tuple[str, int, int]]:
    """Non-overlapping spans from every finder, first come first kept; never inside a
    label an earlier step wrote."""
    labels = [m.span() for m in re.finditer(r"\[REDACTED:[\w-]+\]", text)]
    taken: list[tuple[str, int, int]] = []
    for finder in FINDERS:
        for kind, a, b in finder(text):
            if b <= a or any(a < y and x < b for _, x, y in taken):
                continue
            if any(a < y and x < b for x, y in labels):
                continue
            taken.append((kind, a, b))
    return sorted(taken, key=lambda s: s[1])


def _replace(red: Redaction, spans: list[tuple[str, int, int]]) -> Redaction:
    out, last = [], 0
    for kind, a, b in spans:
        out += [red.text[last:a], f"[REDACTED:{kind}]"]
        last = b
    out.append(red.text[last:])
    return Redaction("".join(out), red.count + len(spans), red.kinds + [k for k, _, _ in spans])

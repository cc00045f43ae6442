"""Secrets never reach the store: API keys, tokens, passwords and private keys are redacted.

Patterns cover the common provider formats; each hit becomes ``[REDACTED:<kind>]`` and the
count is reported so the audit log can record it without recording the secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# secret-looking key names in JSON, YAML, TOML, .env and INI ("SecretAccessKey", "api_key",
# "db.password"); a value that is only a number, a boolean or a path is left alone
_KEY_NAME = (
    r"[A-Za-z0-9_.\-]*(?:passw(?:or)?d|passphrase|secret|token|api[_\-]?key|apikey|"
    r"access[_\-]?key|private[_\-]?key|credential|auth[_\-]?key|signing[_\-]?key|pwd)"
    r"[A-Za-z0-9_.\-]*"
)
_NOT_A_SECRET = (
    r"(?!(?:\d+(?:\.\d+)?|true|false|null|none|yes|no|~|\[\]|\{\})(?:[\"',;}\]\s]|$))"
    r"(?![\"']?(?:/|\./|~/|\$|\{\{|<|\[REDACTED))"
    r"(?![\"']?[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:[\"',;}\]\s]|$))"  # names an env variable
)
# words that follow "the password is" without being one ("the password is required")
_PLAIN_WORDS = (
    r"(?!(?:required|not|set|stored|hashed|encrypted|empty|missing|wrong|incorrect|correct|"
    r"invalid|valid|expired|changed|reset|too|the|a|an|in|at|on|now|still|being|unknown|"
    r"optional|mandatory|rotated|managed|kept|saved|case|only|never|always|also|same|"
    r"different|shared|long|short|strong|weak|secure|hidden|masked|protected|generated)\b)"
)
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
    # {"password": "…"}, api_key = '…', SecretAccessKey: …, DB_PASSWORD=…
    (
        "key-value-secret",
        re.compile(
            r"(?i)([\"']?\b"
            + _KEY_NAME
            + r"[\"']?\s*(?:=|:(?!//))\s*)"
            + _NOT_A_SECRET
            + r"(\"(?:[^\"\\\n]|\\.){1,}\"|'[^'\n]{1,}'|[^\s,;}\]\"']{1,})"
        ),
    ),
    # "my password is hunter2", "the password for the NAS is …", "pw for wifi: …"
    (
        "password",
        re.compile(
            r"(?i)(\b(?:password|passphrase|passcode|passwd|pin code|wi-?fi key|pwd|pw)"
            r"(?:\s+(?:for|to|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w.@\-]+(?:\s+[\w.@\-]+){0,3}?)?"
            r"\s+(?:is|was|=|:|is now|has been changed to|changed to)\s+)"
            + _PLAIN_WORDS
            + r"(\"[^\"]+\"|'[^']+'|`[^`]+`|[^\s,;]+?)(?=[.,;!?)]?(?:\s|$))"
        ),
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
        "password",
        "key-value-secret",
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
    kinds: list[str] = []
    total = 0
    for kind, pat in PATTERNS:

        def repl(m, kind=kind):
            nonlocal total
            if "[REDACTED" in m.group(0):
                return m.group(0)
            if kind == "aws-secret-key" and not _near_aws(m.string, m.start(), m.end()):
                return m.group(0)
            total += 1
            kinds.append(kind)
            if kind in KEEP_LABEL:
                return m.group(1) + f"[REDACTED:{kind}]"
            if kind == "connection-string-password":
                return m.group(1) + f"[REDACTED:{kind}]" + m.group(3)
            if kind in ("bearer-token", "basic-auth"):
                return m.group(1) + f" [REDACTED:{kind}]"
            return f"[REDACTED:{kind}]"

        text = pat.sub(repl, text)
    return Redaction(text=text, count=total, kinds=kinds)


def contains_secret(text: str) -> bool:
    return redact(text).count > 0

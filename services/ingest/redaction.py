"""Secrets never reach the store: API keys, tokens, passwords and private keys are redacted.

Patterns cover the common provider formats; each hit becomes ``[REDACTED:<kind>]`` and the
count is reported so the audit log can record it without recording the secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PATTERNS: list[tuple[str, re.Pattern]] = [
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
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
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("bearer-token", re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9_\-\.=:+/]{16,}")),
    (
        "connection-string-password",
        re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@]+:)([^\s@/]{1,})(@)"),
    ),
    ("sendgrid-key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("twilio-key", re.compile(r"\bSK[0-9a-fA-F]{32}\b")),
    ("telegram-bot-token", re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b")),
    ("basic-auth", re.compile(r"(?i)\b(authorization:\s*basic)\s+[A-Za-z0-9+/=]{12,}")),
    ("azure-account-key", re.compile(r"(?i)\b(AccountKey=)([A-Za-z0-9+/=]{20,})")),
    # AWS_SECRET_ACCESS_KEY=…, DB_PASSWORD: …, github_token = "…": an identifier naming a
    # secret, then a value that looks like one (letters and digits, or long)
    (
        "env-secret",
        re.compile(
            r"(?i)\b([A-Za-z0-9_]*(?:secret|token|passw(?:or)?d|api_?key|access_key|private_key)"
            r"[A-Za-z0-9_]*\s*[=:]\s*)(\"[^\"]{8,}\"|'[^']{8,}'|"
            r"(?=[^\s,;]*[0-9])(?=[^\s,;]*[A-Za-z])[^\s,;]{8,}|[^\s,;]{16,})"
        ),
    ),
    (
        "password",
        re.compile(
            r"(?i)\b((?:password|passwd|pwd|pass|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|client[_-]?secret)"
            r"\s*[=:]\s*)(\"[^\"]+\"|'[^']+'|[^\s,;]+)"
        ),
    ),
]


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
            total += 1
            kinds.append(kind)
            if kind in ("password", "env-secret", "azure-account-key"):
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

"""The redactor keeps a class name under a secret-looking key and still takes a password in
the same shape (issue 32: `ResetPasswordTokensService` became `[REDACTED:key-value-secret]`)."""

from __future__ import annotations

import json


def test_class_name_after_token_key_survives_remember(cli):
    assert cli("agent", "add", "work")[0] == 0
    kept = (
        "Reset tokens: ResetPasswordTokensService creates and expires them.",
        "auth_token_handler = GhostAdminApiKeyHandler",
    )
    for text in (*kept, "password: CorrectHorseBatteryStaple"):
        rc, _, err = cli("remember", "--agent", "work", text)
        assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "work", "--json")
    stored = {f["content"] for f in json.loads(out)}
    assert set(kept) <= stored
    assert "password: [REDACTED:key-value-secret]" in stored  # a passphrase is no class name

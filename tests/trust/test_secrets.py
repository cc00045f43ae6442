"""Finding 6: secrets in every phrasing and token family are redacted before storage; card
numbers and national ids go through the personal-data policy; ordinary technical text is
left alone."""

from __future__ import annotations

import pytest

from services.ingest.pii import apply_pii, find_pii
from services.ingest.redaction import redact
from tests.trust.secret_cases import BENIGN, SECRETS


@pytest.mark.parametrize("text,secret", SECRETS, ids=[s[0][:30] for s in SECRETS])
def test_each_secret_pattern_is_redacted(text, secret):
    r = redact(text)
    assert r.count >= 1, text
    if secret:
        assert secret not in r.text


def test_ordinary_technical_sentences_are_not_redacted(capsys):
    assert len(BENIGN) >= 50
    false_pos = [t for t in BENIGN if redact(t).count]
    true_pos = sum(1 for t, _ in SECRETS if redact(t).count)
    with capsys.disabled():
        print(
            f"\nredaction: {true_pos}/{len(SECRETS)} secrets caught, "
            f"{len(false_pos)}/{len(BENIGN)} ordinary sentences touched"
        )
    assert false_pos == []


def test_the_reported_secrets_never_reach_the_store(keyword_engram):
    mem = keyword_engram.agent("claude", create=True)
    for text, secret in SECRETS[:8]:
        r = mem.remember(text)
        if r.fact_id:
            assert secret not in mem.get(r.fact_id).content


@pytest.mark.parametrize(
    "text,kind",
    [
        ("Card on file: 4111 1111 1111 1111", "card"),
        ("Pay with 5500-0000-0000-0004 next time", "card"),
        ("Her SSN is 123-45-6789", "national-id"),
    ],
)
def test_card_numbers_and_ssns_follow_the_personal_data_policy(text, kind):
    assert kind in {k for k, _, _ in find_pii(text)}
    denied = apply_pii(text, {kind: "deny"})
    assert f"[REDACTED:{kind}]" in denied.text
    assert apply_pii(text, {kind: "ask"}).pending


def test_numbers_that_fail_luhn_or_look_like_versions_are_not_cards():
    for text in ("Order 4111 1111 1111 1112 shipped", "Build 1234-5678-9012-3456 failed"):
        assert "card" not in {k for k, _, _ in find_pii(text)}
    assert "national-id" not in {k for k, _, _ in find_pii("Release 2024-05-06 and 000-12-3456")}

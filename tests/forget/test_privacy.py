"""Secrets never reach the store (realistic samples of common provider formats), redactions
are counted in the audit log, and the per-agent PII policy (allow / ask / deny) holds at
ingest. Real store and model; the key values are made-up but have the providers' shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models import AuditEvent
from services.forget.isolated import raw_hits

PEM = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDbq1kqJmvW3PwXH0xS5dTnUyQ2D7C2G0X1V1bS7R1z1wAAAJgtn8aLLZ/G\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
SAMPLES = [
    (
        "Use OPENAI key sk-proj-Tq8v3LmN0pXz4RsY7wKb2Jd9HfGc6AeU1iOo5Ml8Nn3Pq0Rr for the evals",
        "sk-proj-Tq8v3LmN0pXz4RsY7wKb2Jd9HfGc6AeU1iOo5Ml8Nn3Pq0Rr",
    ),
    (
        "ANTHROPIC_API_KEY=sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA-9z8y7x6w5v4u3t2s1r0q-AAAA",
        "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA",
    ),
    (
        "push with token ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ12 please",
        "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ12",
    ),
    (
        "fine-grained github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV01",
        "github_pat_11ABCDEFG0123456789_abcdefghij",
    ),
    (
        "AWS creds: AKIAIOSFODNN7EXAMPLE / aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("AWS access key id AKIAIOSFODNN7EXAMPLE is the deploy user", "AKIAIOSFODNN7EXAMPLE"),
    (
        "slack bot xoxb-2048123456-4096123456789-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-2048123456-4096123456789",
    ),
    (
        "stripe live key sk_live_51H8abcDEFghiJKLmnoPQRstuVWX",
        "sk_live_51H8abcDEFghiJKLmnoPQRstuVWX",
    ),
    ("maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    (
        "session jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        'curl -H "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0" https://api.example.com',
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    ("prod db is postgres://app:S3cr3tP4ssw0rd@db.internal:5432/prod", "S3cr3tP4ssw0rd"),
    ("in settings.ini: password=hunter2wolf", "hunter2wolf"),
    ('DATABASE_PASSWORD="correct-horse-battery-staple"', "correct-horse-battery-staple"),
    ("hf token hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    (f"deploy key:\n{PEM}", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"),
    (
        "SENDGRID_KEY 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",
        "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc",
    ),
]


@pytest.mark.parametrize("text,secret", SAMPLES, ids=[s[1][:12] for s in SAMPLES])
def test_secret_never_stored_and_redaction_is_audited(engram, agent, text, secret):
    r = agent.remember(text)
    assert r.status == "added" and r.redactions >= 1
    stored = agent.get(r.fact_id).content
    assert secret not in stored and "[REDACTED:" in stored
    ev = [
        e
        for e in AuditEvent.select().where(AuditEvent.fact_id == r.fact_id)
        if e.action == "redact"
    ]
    assert len(ev) == 1 and ev[0].after["secrets"] >= 1
    assert secret not in json.dumps([e.after for e in AuditEvent.select()])
    # not in any byte on disk: db, WAL, Chroma
    engram.db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    assert raw_hits([Path(engram.config.data_dir)], [secret]) == []


def test_ordinary_text_is_not_redacted(agent):
    for text in (
        "The token budget is 2000 tokens for today.md",
        "max_tokens=1500 in the config",
        "Password rotation policy: every 90 days",
        "Meeting on 2026-04-12 at 10:30",
        "Uses sk-learn style pipelines",
    ):
        r = agent.remember(text)
        assert agent.get(r.fact_id).content == text and r.redactions == 0


def test_import_counts_redactions(agent, tmp_path):
    mem = tmp_path / "ws" / "memories"
    mem.mkdir(parents=True)
    (mem / "MEMORY.md").write_text(
        "# MEMORY.md\n\n§\n[2026-04-12][env] "
        + SAMPLES[0][0]
        + "\n§\n[2026-04-12][env] "
        + SAMPLES[11][0]
        + "\n§\n[2026-04-12][pref] Prefers pnpm\n",
        encoding="utf-8",
    )
    rep = agent.import_path(tmp_path / "ws")
    assert rep.added == 3 and rep.redacted == 2
    assert not any(SAMPLES[0][1] in f.content or SAMPLES[11][1] in f.content for f in agent.list())


PII = (
    "Call Sam at +1 (415) 555-0132 or sam.jones@example.org; he lives at 221B Baker Street, London"
)


def test_pii_allow_is_the_default(agent):
    r = agent.remember(PII)
    f = agent.get(r.fact_id)
    assert f.content == PII and f.status == "active"


def _remember_pii(engram, slug: str, policy: str):
    """PII remembered by a new agent whose personal-data policy is POLICY: (agent, result,
    the stored fact)."""
    engram.add_agent(slug)
    engram.update_agent(slug, settings={"pii": policy})
    m = engram.agent(slug)
    r = m.remember(PII)
    return m, r, m.get(r.fact_id)


def test_pii_deny_redacts_at_ingest(engram):
    m, r, f = _remember_pii(engram, "strict", "deny")
    for bit in ("555-0132", "sam.jones@example.org", "Baker Street"):
        assert bit not in f.content
    assert "[REDACTED:email]" in f.content and "[REDACTED:phone]" in f.content
    assert "[REDACTED:address]" in f.content and f.status == "active"
    ev = [
        e
        for e in AuditEvent.select().where(AuditEvent.fact_id == r.fact_id)
        if e.action == "redact"
    ]
    assert ev and ev[0].after["pii"] == {"email": 1, "phone": 1, "address": 1}
    engram.db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    assert raw_hits([Path(engram.config.data_dir)], ["sam.jones@example.org"]) == []


def test_pii_ask_keeps_it_pending_for_review(engram):
    m, r, f = _remember_pii(engram, "careful", "ask")
    assert f.content == PII and f.status == "pending"
    assert m.search("Sam phone number", mode="hybrid") == []  # pending is not recalled
    r2 = m.remember("Prefers dark roast coffee")
    assert m.get(r2.fact_id).status == "active"


def test_pii_policy_per_kind(engram):
    engram.add_agent("mixed")
    engram.update_agent(
        "mixed", settings={"pii": {"email": "deny", "phone": "allow", "address": "allow"}}
    )
    m = engram.agent("mixed")
    f = m.get(m.remember(PII).fact_id)
    assert "sam.jones@example.org" not in f.content and "555-0132" in f.content
    assert "Baker Street" in f.content and f.status == "active"


def test_pii_deny_covers_episode_summaries(engram):
    from datetime import date

    engram.add_agent("strict2")
    engram.update_agent("strict2", settings={"pii": {"email": "deny"}})
    m = engram.agent("strict2")
    eid, _ = m.add_episode(date(2026, 4, 13), "Emailed sam.jones@example.org the lease draft")
    assert m.episodes.get(eid).summary == "Emailed [REDACTED:email] the lease draft"


def test_freed_memory_does_not_hand_text_to_the_next_allocation(engram):
    """Opening a store hardens glibc's allocator (services/vectors/memory_hygiene.py): a buffer that
    held memory text and was freed is not handed to the next allocation with the text still in
    it, so a library persisting uninitialised slots (Chroma's HNSW files) cannot write it out."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("glibc only")
    from services.vectors.memory_hygiene import harden_allocator

    assert harden_allocator()
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    text = b"My secret pet is named Quetzalcoatlus Borogove"
    # blocks of 1 KiB and less sit in glibc's per-thread cache, which perturbing does not
    # reach; a segment buffer is far larger (100 slots of 1.8 KB at the least)
    for size in (4096, 60_000, 300_000):
        p = libc.malloc(size)
        ctypes.memmove(p + 64, text, len(text))  # past the allocator's own free-list words
        libc.free(p)
        q = libc.malloc(size)
        try:
            assert text not in ctypes.string_at(q, size), size
        finally:
            libc.free(q)

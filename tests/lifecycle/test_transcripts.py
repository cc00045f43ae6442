"""Transcript parsing: Claude Code 1.0 → 2.1 (real samples by path + a fixture with rewinds,
sidechains, split responses, compaction and bad lines) and generic {role, content} JSONL."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from services.capture.extract import extract_facts, extract_from_text
from services.capture.transcripts import parse_transcript
from services.errors import InvalidInput


def test_claude_code_v1_sample_merges_split_responses(shared_dir):
    t = parse_transcript(
        shared_dir / "formats/samples/claude-code-v1.0.98/"
        "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    )
    assert t.format == "claude-code"
    assert t.session_id == "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
    # 29 lines, 7 distinct assistant message ids of which 3 carry text; tool calls/results
    # and the isMeta /init expansion are not conversation
    assert [m.role for m in t.messages] == ["user", "assistant", "assistant", "assistant"]
    assert t.messages[0].text == "/init"
    assert "Please analyze this codebase" not in " ".join(m.text for m in t.messages)
    assert len(t.exchanges()) == 1
    assert t.skipped_lines == 0


def test_claude_code_v21_sample_skips_progress_and_system(shared_dir):
    t = parse_transcript(shared_dir / "formats/samples/claude-code-v2.1.38/short.jsonl")
    assert t.session_id == "55604662-cf2a-4331-851a-ec234028f8ca"
    assert t.messages[0].role == "user"
    assert t.messages[0].text == "mix phx.server doesnt seem to start"
    # msg_01MKH1ccEG spans 5 lines (text, thinking, text, tool_use, tool_use): one message
    assert [m.role for m in t.messages] == ["user", "assistant"]
    assert "Let me check the project structure" in t.messages[1].text
    joined = " ".join(m.text for m in t.messages)
    assert "Conversation compacted" not in joined and "local-command" not in joined
    assert t.messages[0].timestamp.isoformat() == "2026-02-10T21:11:56.846000"


def test_rewound_branch_sidechain_and_bad_lines(cc_fixture):
    t = parse_transcript(cc_fixture)
    assert t.skipped_lines == 2
    assert any("UTF-8" in p for p in t.problems) and any("JSON" in p for p in t.problems)
    texts = [m.text for m in t.messages]
    joined = "\n".join(texts)
    assert "flake8" not in joined  # the abandoned branch
    assert "ABANDONED-REPLY" not in joined
    for hidden in (
        "SIDECHAIN-FACT",
        "AGENT-PROGRESS-FACT",
        "COMPACT-SUMMARY",
        "HOOK-CONTEXT",
        "SECRET-THOUGHT",
        "TOOL-OUTPUT",
        "pip install ruff",
    ):
        assert hidden not in joined, hidden
    # the chain continues across the compaction boundary (logicalParentUuid)
    assert texts[-2] == "Remind me to update the changelog before the release."
    assert [m.role for m in t.messages] == [
        "user",
        "assistant",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert len(t.exchanges()) == 3
    assert t.cwd == "/home/dana/projects/alpha"


def test_generic_jsonl_roles_and_blocks(transcript):
    t = parse_transcript(transcript(3))
    assert t.format == "jsonl" and t.session_id == "gen-1"
    assert [m.role for m in t.messages] == ["user", "assistant"] * 3
    assert t.messages[1].text == "Done with step 1."
    assert t.messages[0].timestamp.isoformat() == "2026-03-02T09:00:00"


def test_not_a_transcript_is_a_clear_error(tmp_path):
    p = tmp_path / "notes.jsonl"
    p.write_text('{"title": "x"}\n', encoding="utf-8")
    with pytest.raises(InvalidInput, match="not a transcript"):
        parse_transcript(p)
    with pytest.raises(InvalidInput, match="no such transcript"):
        parse_transcript(tmp_path / "missing.jsonl")


def test_large_transcript_streams(tmp_path):
    """~24 MB of tool output and progress lines: memory stays far below the file size."""
    p = tmp_path / "big.jsonl"
    blob = "x" * 200_000
    parent = None
    with open(p, "w", encoding="utf-8") as fh:
        for i in range(120):
            uid = f"u{i}"
            fh.write(
                json.dumps(
                    {
                        "type": "user",
                        "uuid": uid,
                        "parentUuid": parent,
                        "sessionId": "big",
                        "timestamp": "2026-03-02T10:00:00Z",
                        "message": {"role": "user", "content": f"I prefer option {i}."},
                    }
                )
                + "\n"
            )
            fh.write(
                json.dumps(
                    {
                        "type": "user",
                        "uuid": uid + "r",
                        "parentUuid": uid,
                        "sessionId": "big",
                        "message": {
                            "role": "user",
                            "content": [
                                {"type": "tool_result", "content": blob, "tool_use_id": "t"}
                            ],
                        },
                    }
                )
                + "\n"
            )
            parent = uid + "r"
    size = p.stat().st_size
    assert size > 20_000_000
    tracemalloc.start()
    try:
        t = parse_transcript(p)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(t.messages) == 120
    assert peak < size / 8, f"peak {peak} bytes for a {size} byte file"


# extraction --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,category,kind",
    [
        ("I prefer pnpm over npm.", "pref", "preference"),
        ("We decided to use Postgres for the API.", "proj:alpha", "decision"),
        ("Let's go with GitHub Actions.", "proj:alpha", "decision"),
        ("I'm on macOS Sonoma.", "env", "environment"),
        ("My editor is Neovim.", "env", "environment"),
        ("TODO: update the changelog", "task", "task"),
        ("Remind me to renew the TLS cert on Friday.", "task", "task"),
        ("Never push to main without a PR.", "rule", "rule"),
        ("My name is Dana.", "fact", "personal"),
    ],
)
def test_deterministic_extractor_categories(text, category, kind):
    got = extract_from_text(text, project="alpha")
    assert [(f.category, f.kind, f.content) for f in got] == [(category, kind, text)]
    assert 0 < got[0].importance <= 1


def test_questions_requests_and_code_are_not_facts():
    text = (
        "Do you prefer tabs? Fix the bug in parser.py.\n```\nI prefer this_inside_code\n```\n"
        "If I prefer tabs, what changes?"
    )
    assert extract_from_text(text) == []


def test_only_user_statements_are_promoted(cc_fixture):
    t = parse_transcript(cc_fixture)
    facts = extract_facts(t.messages, project="alpha")
    contents = [f.content for f in facts]
    assert contents == [
        "I prefer tabs over spaces.",
        "We decided to use black for formatting.",
        "Remind me to update the changelog before the release.",
    ]
    assert not any("black, so I always" in c for c in contents)  # the assistant's claim
    assert facts[1].category == "proj:alpha"

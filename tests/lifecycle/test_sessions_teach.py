"""Sessions that teach: what a real Claude Code session leaves in memory. Transcripts are
written in the real 2.1 shapes (tests/lifecycle/cc_builder.py) or are the real samples; the
store is real (SQLite, keyword search without the model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cc_builder import SUMMARY, Session
from gold_score import load_gold, score

from models import Fact
from services.capture.sessions import ingest_session
from services.capture.transcripts import parse_transcript
from services.lifecycle.config import LifecycleConfig


@pytest.fixture
def memory(keyword_engram):
    return keyword_engram.agent("claude", create=True, kind="claude-code")


def _facts(memory, status=None) -> list[Fact]:
    q = Fact.select().where(Fact.agent == memory.agent_id)
    return [f for f in q if status is None or f.status == status]


def compacted_session(tmp_path: Path) -> tuple[Path, dict]:
    s = Session("11111111-2222-4333-8444-555555555555")
    s.user("the checkout total is off by a cent again")
    s.say("Let me look at the cart code.")
    s.tool("Read", {"file_path": "/home/dev/projects/shop/shop/cart.py"}, "def total(self): ...")
    s.progress()
    compact = s.compact(SUMMARY)
    s.say("Let me run the tests.")
    s.tool("Bash", {"command": "uv run pytest shop/tests -q 2>&1 | tail -5"}, "12 passed")
    s.tool(
        "Edit",
        {"file_path": "/home/dev/projects/shop/shop/cart.py", "old_string": "a", "new_string": "b"},
        "The file has been updated.",
    )
    s.say("Done. Totals are summed in cents and all tests pass.")
    return s.write(tmp_path / "proj"), compact


def test_compacted_session_yields_its_durable_facts_with_provenance(memory, tmp_path):
    path, compact = compacted_session(tmp_path)
    r = ingest_session(memory, path, config=LifecycleConfig())
    stored = {f.content: f for f in _facts(memory)}
    text = "\n".join(stored)
    # the key technical concepts, the error and its fix, the user's rules and decisions
    assert "Shop backend is a Django 5 app on PostgreSQL 16" in stored
    assert "Money is stored as integer cents in `amount_cents` columns" in stored
    assert "Celery workers process order emails via Redis" in stored
    assert any(
        c.startswith("Rounding error in checkout total") and "integer cents" in c for c in stored
    )
    assert any("never edit an applied migration" in c for c in stored)
    assert "We decided to use integer cents everywhere" in stored
    assert stored["Store all money amounts as integer cents, never floats"].category == "pref"
    assert any(
        "`uv run pytest`" in c for c in stored
    )  # how tests run, from the command that worked
    # no noise: code, file listings, plans, the narrative, one-off asks, current work
    for noise in (
        "def total",
        "shop/cart.py",
        "Let me",
        "ok fix it",
        "run the tests",
        "Traced",
        "Optional",
    ):
        assert noise not in text, noise
    # the pending task was finished after the compaction: not an open task
    assert "Backfill" not in text
    # provenance: session, the summary line's uuid, its timestamp
    f = stored["Celery workers process order emails via Redis"]
    prov = f.metadata["provenance"]
    assert prov["session"] == r.session_id == "11111111-2222-4333-8444-555555555555"
    assert prov["line"] == compact["uuid"] and prov["timestamp"] == compact["timestamp"]
    assert f.category == "proj:shop" and f.source_ref == r.session_id
    # the episode says what happened and how it ended
    (ep,) = memory.episodes.list()
    assert "Asked: Store all money amounts as integer cents" in ep.summary
    assert "Did: edited cart.py; ran 1 command" in ep.summary
    assert "Ended: done — Done" in ep.summary


def test_open_pending_task_is_kept_when_the_session_stops_at_the_summary(memory, tmp_path):
    s = Session("22222222-2222-4333-8444-555555555555")
    s.user("the checkout total is off by a cent again")
    s.compact(SUMMARY)
    ingest_session(memory, s.write(tmp_path), config=LifecycleConfig())
    tasks = [f for f in _facts(memory) if f.category == "task"]
    assert [t.content for t in tasks] == ["Backfill `amount_cents` for orders created before March"]


def test_rejected_tool_use_then_correction_yields_a_rule(memory, tmp_path):
    s = Session("33333333-2222-4333-8444-555555555555")
    s.user("add lodash to the frontend")
    s.say("Let me install it.")
    s.tool("Bash", {"command": "npm install lodash"}, rejected=True)
    s.interrupt()
    said = s.user("no, use pnpm instead of npm in this repo")
    s.say("Understood, using pnpm.")
    s.tool("Bash", {"command": "pnpm add lodash"}, "added 1 package")
    s.say("Done: lodash added with pnpm.")
    r = ingest_session(memory, s.write(tmp_path), config=LifecycleConfig())
    rules = [f for f in _facts(memory) if f.category == "rule"]
    assert [f.content for f in rules] == ["Use pnpm instead of npm in this repo"]
    assert rules[0].status == "active" and rules[0].metadata["provenance"]["line"] == said["uuid"]
    assert r.facts_added == 1
    (ep,) = memory.episodes.list()
    assert "Ended: done" in ep.summary


def test_rejection_without_an_alternative_teaches_nothing(memory, tmp_path):
    s = Session("44444444-2222-4333-8444-555555555555")
    s.user("clean up the temp folder")
    s.tool("Bash", {"command": "rm -rf tmp/"}, rejected=True)
    s.interrupt()
    ingest_session(memory, s.write(tmp_path), config=LifecycleConfig())
    assert _facts(memory) == []
    (ep,) = memory.episodes.list()
    assert "Ended: interrupted" in ep.summary


def test_clear_only_session_yields_nothing(memory, tmp_path):
    s = Session("55555555-2222-4333-8444-555555555555")
    s.clear_preamble()
    r = ingest_session(memory, s.write(tmp_path), config=LifecycleConfig())
    assert (r.episodes_added, r.facts_added) == (0, 0)
    assert memory.episodes.list() == [] and _facts(memory) == []


def test_the_same_session_twice_adds_nothing(memory, tmp_path):
    path, _ = compacted_session(tmp_path)
    first = ingest_session(memory, path, config=LifecycleConfig())
    assert first.facts_added >= 8
    n = len(_facts(memory))
    again = ingest_session(memory, path, config=LifecycleConfig())
    assert again.already_processed and again.facts_added == 0 and again.episodes_added == 0
    assert len(_facts(memory)) == n and len(memory.episodes.list()) == 1


def test_low_confidence_goes_to_review_and_a_rejected_one_stays_rejected(memory, tmp_path):
    s = Session("66666666-2222-4333-8444-555555555555")
    s.user("I use the staging box for demos.")  # a weak "I use …": maybe a preference
    s.say("Noted.")
    path = s.write(tmp_path / "a")
    r = ingest_session(memory, path, config=LifecycleConfig())
    assert r.facts_pending == 1
    (item,) = memory.review.items()
    assert item.reason == "low-confidence"
    note = item.fact.metadata["review"]
    assert note["confidence"] < 0.6 and note["session"] == r.session_id and note["line"]
    memory.review.reject([item.fact.id])
    # the same words in another session are not proposed again
    s2 = Session("77777777-2222-4333-8444-555555555555")
    s2.user("I use the staging box for demos.")
    ingest_session(memory, s2.write(tmp_path / "b"), config=LifecycleConfig())
    assert memory.review.count() == 0
    # the review bar is a setting
    s3 = Session("88888888-2222-4333-8444-555555555555")
    s3.user("I use Kitty as my terminal.")
    ingest_session(memory, s3.write(tmp_path / "c"), config=LifecycleConfig(review_below=0.5))
    assert [f.status for f in _facts(memory) if "Kitty" in f.content] == ["active"]


def test_summary_line_is_the_title_and_warmup_files_are_dropped(memory, tmp_path):
    s = Session("99999999-2222-4333-8444-555555555555")
    s.user("rename the orders table to purchases")
    s.say("Renamed it.")
    s.title("Rename orders table")
    ingest_session(memory, s.write(tmp_path), config=LifecycleConfig())
    (ep,) = memory.episodes.list()
    assert ep.summary.startswith("Rename orders table. Asked: rename the orders table")
    warm = Session("aaaaaaaa-2222-4333-8444-555555555555")
    warm.user("Warmup")
    warm.say("Ready.")
    r = ingest_session(
        memory, warm.write(tmp_path, "agent-1a2b3c4.jsonl"), config=LifecycleConfig()
    )
    assert r.episodes_added == 0 and len(memory.episodes.list()) == 1


def test_compaction_worker_transcript_is_read(memory, tmp_path):
    worker = Session("bbbbbbbb-2222-4333-8444-555555555555")
    worker.user("Your task is to create a detailed summary of the conversation so far …")
    worker.say(
        "<analysis>notes</analysis>\n<summary>\n" + SUMMARY.split("Summary:\n", 1)[1] + "</summary>"
    )
    for line in worker.lines:
        line.update(isSidechain=True, agentId="acompact-1f2e3d")
    path = worker.write(tmp_path / worker.sid / "subagents", "agent-acompact-1f2e3d.jsonl")
    r = ingest_session(memory, path, config=LifecycleConfig())
    assert r.session_id == f"{worker.sid}/agent-acompact-1f2e3d"
    contents = {f.content for f in _facts(memory)}
    assert "Celery workers process order emails via Redis" in contents
    assert memory.episodes.list() == []  # the worker's prompt is not the user's conversation


def test_pathological_lines_are_skipped_and_counted(memory, tmp_path):
    s = Session("cccccccc-2222-4333-8444-555555555555")
    s.user("we decided to use Postgres for the orders service")
    s.say("Noted.")
    path = s.write(tmp_path)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("[" * 5_000 + "]" * 5_000 + "\n")  # RecursionError in json
        fh.write("{not json\n")
    with open(path, "ab") as fh:
        fh.write(b'{"type":"user","bad":"\xff\xfe"}\n')
    import services.capture.transcripts as tx

    old = tx.MAX_LINE_BYTES
    tx.MAX_LINE_BYTES = 16_384
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"type": "progress", "data": "x" * 50_000}) + "\n")
        t = parse_transcript(path)
    finally:
        tx.MAX_LINE_BYTES = old
    assert t.skipped_lines == 4 and len(t.messages) == 2
    assert any("nested too deeply" in p for p in t.problems)
    assert any("longer than" in p for p in t.problems)
    r = ingest_session(memory, path, config=LifecycleConfig())
    assert r.skipped_lines == 3 and r.facts_added == 1  # the 50 KB line is fine at 32 MB


@pytest.mark.parametrize("name", sorted(load_gold()))
def test_real_transcripts_meet_the_measured_floor(memory, shared_dir, name):
    """Precision and recall against the gold list written before tuning (see
    tests/lifecycle/data/real_transcripts_gold.json); the floor is what was measured."""
    ingest_session(memory, shared_dir / "formats/samples" / name, config=LifecycleConfig())
    active = [f.content for f in _facts(memory, "active")]
    s = score(load_gold()[name], active)
    assert s["precision"] >= 0.85, s["noise"]
    assert s["recall"] >= 0.7, s["missed"]


CODEX = Path(__file__).parent / "fixtures" / "codex" / "sessions"


def test_codex_rollout(memory):
    (path,) = CODEX.rglob("rollout-*.jsonl")
    t = parse_transcript(path)
    assert (t.format, t.session_id, t.project) == (
        "codex",
        "0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b",
        "ledger",
    )
    # injected instructions and environment context are not the user's words; the
    # event_msg copies of what the user typed are not read twice
    assert [m.text for m in t.messages if m.role == "user"] == [
        "the import of the March bank statement crashes on the euro sign",
        "no, don't add dependencies; decode the file as cp1252 instead",
    ]
    r = ingest_session(memory, path, config=LifecycleConfig())
    stored = {f.content: f for f in _facts(memory)}
    assert stored["Don't add dependencies; decode the file as cp1252 instead"].category == "rule"
    assert "Ledger imports bank statements from CSV files exported by the bank in cp1252" in stored
    assert any(c.startswith("UnicodeDecodeError on the euro sign") for c in stored)
    assert "Project ledger commands — tests: `uv run pytest`" in stored
    assert not any("pip install" in c for c in stored)
    # the AGENTS.md Codex injected is the user's standing rule, kept with where it came from
    brief = stored["Always answer briefly."]
    assert brief.category == "rule" and "injected" in brief.tags
    (ep,) = memory.episodes.list()
    assert "Did: edited bank_csv.py; ran 1 command" in ep.summary and "Ended: done" in ep.summary
    again = ingest_session(memory, path, config=LifecycleConfig())
    assert again.already_processed and again.facts_added == 0 and r.facts_added == len(stored)


def test_old_sessions_carry_into_the_long_term_layer(memory, shared_dir):
    from datetime import datetime

    from services.lifecycle.compile import CompileService

    ingest_session(
        memory,
        shared_dir / "formats/samples/claude-code-v2.0.76/compacted-session.jsonl",
        config=LifecycleConfig(),
    )
    result = CompileService(memory, LifecycleConfig()).compile(now=datetime(2026, 11, 30, 9, 0))
    longterm = Path(result.layers["longterm"].path).read_text(encoding="utf-8")
    assert "entire-sessions" in longterm and "mise run test" in longterm
    assert "No long-term memories yet" not in longterm
    mem = Path(result.layers["memory"].path).read_text(encoding="utf-8")
    assert "Nothing remembered yet" not in mem and "Project: cli" in mem
    # a week is what makes it long-term: compiled the same day, it is not there yet
    fresh = CompileService(memory, LifecycleConfig()).compile(now=datetime(2026, 1, 7, 18, 0))
    assert "entire-sessions" not in Path(fresh.layers["longterm"].path).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "said, after_stop, rule, sure",
    [
        (
            "no, use pnpm instead of npm in this repo",
            False,
            "Use pnpm instead of npm in this repo",
            True,
        ),
        (
            "don't touch the generated migrations, edit the models",
            True,
            "Don't touch the generated migrations, edit the models",
            True,
        ),
        ("no, don't do that", False, "Don't do that", False),  # names nothing: review at most
        ("no, run it again with verbose", False, "Run it again with verbose", False),
        ("no, that is overkill", False, None, None),  # no alternative stated
        ("why did you delete the file?", True, None, None),
        ("use the staging database", False, None, None),  # not a correction without a stop
        ("use bun instead of npm", False, "Use bun instead of npm", True),  # a standing choice
    ],
)
def test_corrections(said, after_stop, rule, sure):
    from services.capture.corrections import correction_rule

    f = correction_rule(said, after_stop=after_stop)
    assert (f.content if f else None) == rule
    if f:
        assert (f.confidence >= 0.6) == sure


def test_weak_statement_shapes_wait_for_review():
    from services.capture.extract import classify

    assert classify("I need to check the logs first").confidence < 0.6
    assert classify("Remind me to rotate the staging certificates").confidence >= 0.6
    assert classify("I like the dark theme").confidence < 0.6  # a like, maybe a one-off
    assert classify("I prefer tabs over spaces").confidence >= 0.6


def test_stack_from_the_project_files_the_agent_worked_on(memory, tmp_path):
    s = Session("eeeeeeee-2222-4333-8444-555555555555", cwd="/home/dev/projects/spotter")
    s.user("add a health check route")
    s.tool(
        "Read", {"file_path": "/home/dev/projects/spotter/mix.exs"}, "defmodule Spotter.MixProject"
    )
    s.tool(
        "Read", {"file_path": "/home/dev/.asdf/installs/go/go.mod"}, "module x"
    )  # not the project's
    s.tool(
        "Edit",
        {"file_path": "/home/dev/projects/spotter/lib/spotter_web/router.ex", "old_string": "a"},
        "The file has been updated.",
    )
    s.tool("Write", {"file_path": "/home/dev/projects/spotter/lib/x.rs"}, rejected=True)
    s.say("Done: added GET /health.")
    ingest_session(memory, s.write(tmp_path), config=LifecycleConfig())
    assert [f.content for f in _facts(memory)] == ["Project spotter uses Elixir"]


def test_vague_decisions_are_not_facts():
    from services.capture.extract import classify

    assert classify("ok let's keep going") is None
    assert classify("let's use that one then") is None
    f = classify("Let's use Oban for background jobs", project="spotter")
    assert (f.kind, f.category) == ("decision", "proj:spotter")


def test_real_transcripts_overall_floor(keyword_engram, shared_dir):
    """All samples together (micro-averaged), at the level measured when this was written
    (precision 1.0, recall 1.0 on 10 required facts): one miss or one noisy fact is allowed."""
    good = stored = found = required = 0
    for i, (name, gold) in enumerate(sorted(load_gold().items())):
        memory = keyword_engram.agent(f"sample{i}", create=True)
        ingest_session(memory, shared_dir / "formats/samples" / name, config=LifecycleConfig())
        active = [f.content for f in _facts(memory, "active")]
        s = score(gold, active)
        stored += s["stored"]
        good += s["stored"] - len(s["noise"])
        required += len(gold["required"])
        found += len(gold["required"]) - len(s["missed"])
    assert required == 10 and stored >= 10
    assert good / stored >= 0.9 and found / required >= 0.9


@pytest.mark.parametrize(
    "name, says",
    [
        (
            "claude-code-v1.0.98/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
            ["Asked: /init.", "Ended: failed — CLAUDE.md not written"],
        ),
        (
            "claude-code-v2.0.76/summary-titled-session.jsonl",
            # its summary line's leafUuid points at another session: not this one's title
            ["Asked: I am having", "Ended: open."],
        ),
        (
            "claude-code-v2.1.38/short.jsonl",
            ["Asked: mix phx.server doesnt seem to start", "Ended: interrupted."],
        ),
        (
            "claude-code-v2.0.76/compacted-session.jsonl",
            ["Did: edited hooks_claudecode_handlers.go", "Ended: done — All tests pass"],
        ),
    ],
)
def test_real_episodes_say_how_the_session_ended(memory, shared_dir, name, says):
    ingest_session(memory, shared_dir / "formats/samples" / name, config=LifecycleConfig())
    (ep,) = memory.episodes.list()
    for part in says:
        assert part in ep.summary
    assert "Let me" not in ep.summary  # plans are not outcomes
    assert "Add session resume command" not in ep.summary  # another session's title


def test_empty_sections_teach_nothing(memory, tmp_path):
    s = Session("ffffffff-2222-4333-8444-555555555555")
    s.user("hi")
    s.compact(
        "Summary:\n1. Primary Request and Intent:\n   - Say hello\n"
        "2. Key Technical Concepts:\n   - None\n"
        "3. Errors and fixes:\n   - No errors encountered so far.\n"
        "4. Pending Tasks:\n   - No pending tasks.\n"
        '5. All user messages:\n   - "hi"\n'
    )
    ingest_session(memory, s.write(tmp_path), config=LifecycleConfig())
    assert _facts(memory) == []


def test_codex_rollout_before_the_envelope(memory, tmp_path):
    """Rollouts written by Codex CLI before mid-2025: a header line, then bare items."""
    lines = [
        {
            "id": "5e1f0c2a-1111-4222-8333-444455556666",
            "timestamp": "2025-05-02T08:00:00.000Z",
            "instructions": None,
        },
        {"record_type": "state"},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "always run ruff before committing"}],
        },
        {
            "type": "function_call",
            "name": "shell",
            "arguments": '{"command": ["bash", "-lc", "ruff check ."]}',
            "call_id": "c1",
        },
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": '{"output": "All checks passed!", "metadata": {"exit_code": 0}}',
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Done: ruff passes."}],
        },
    ]
    path = tmp_path / "rollout-2025-05-02T08-00-00-5e1f0c2a-1111-4222-8333-444455556666.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + "{broken\n", encoding="utf-8")
    t = parse_transcript(path)
    assert (t.format, t.session_id, t.skipped_lines) == (
        "codex",
        "5e1f0c2a-1111-4222-8333-444455556666",
        1,
    )
    assert [m.role for m in t.messages] == ["user", "assistant"]  # in the order they happened
    ingest_session(memory, path, config=LifecycleConfig())
    contents = {f.content for f in _facts(memory)}
    assert "Always run ruff before committing" in contents
    (ep,) = memory.episodes.list()
    assert "Ended: done" in ep.summary

"""Session ingest on a real store (SQLite + Chroma + the embedding model): episodes every N
turns and at the end, exactly once per session id (also under two concurrent calls), facts
from the user's own words only, overflow into the pending queue."""

from __future__ import annotations

import threading
from datetime import UTC, date

from models import Episode, Session
from services.capture.sessions import ingest_session
from services.capture.transcripts import parse_transcript
from services.store.facts import FactFilters


def test_episodes_every_n_turns_and_at_the_end(agent, transcript, lc_config):
    lc_config.turns_per_summary = 6
    r = ingest_session(agent, transcript(13), config=lc_config)
    assert (r.session_id, r.turns, r.already_processed) == ("gen-1", 13, False)
    assert r.episodes_added == 3  # after turn 6, turn 12, and the end (turn 13)
    eps = sorted(agent.episodes.list(), key=lambda e: e.id)
    assert [e.day for e in eps] == [date(2026, 3, 2)] * 3
    assert "I prefer pnpm over npm for every project" in eps[0].summary
    assert "Write tests for the parser module" in eps[1].summary  # turn 8 is in chunk 2
    assert "TODO: document the deploy script" in eps[2].summary  # turn 13 alone
    # the time is the chunk's last message, in local time, as "H:MM AM/PM"
    from datetime import datetime

    local = datetime(2026, 3, 2, 9, 11, tzinfo=UTC).astimezone()
    assert (
        eps[0].time
        == f"{local.hour % 12 or 12}:{local.minute:02d} {'AM' if local.hour < 12 else 'PM'}"
    )
    row = Session.get(Session.external_id == "gen-1")
    assert row.turn_count == 13 and row.processed_at is not None
    assert "user: I prefer pnpm" in row.log


def test_same_session_id_is_processed_once(agent, transcript, lc_config):
    path = transcript(7)
    first = ingest_session(agent, path, config=lc_config)
    n_facts, n_eps = agent.facts.count(), len(agent.episodes.list())
    assert first.facts_added >= 4 and first.episodes_added == 2
    again = ingest_session(agent, path, config=lc_config)
    assert again.already_processed and again.episodes_added == 0 and again.facts_added == 0
    by_arg = ingest_session(agent, path, session_id="gen-1", config=lc_config)
    assert by_arg.already_processed
    assert agent.facts.count() == n_facts and len(agent.episodes.list()) == n_eps
    # another id for the same file is another session
    other = ingest_session(agent, path, session_id="gen-2", config=lc_config)
    assert not other.already_processed and other.episodes_added == 0  # same summaries: idempotent


def test_two_concurrent_hooks_ingest_once(agent, transcript, lc_config):
    path = transcript(12)
    results, errors = [], []
    barrier = threading.Barrier(2)

    def run():
        try:
            barrier.wait()
            results.append(ingest_session(agent, path, config=lc_config))
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert sorted(r.already_processed for r in results) == [False, True]
    assert sum(r.episodes_added for r in results) == 2
    assert Session.select().where(Session.external_id == "gen-1").count() == 1
    assert Episode.select().where(Episode.agent == agent.agent_id).count() == 2


def test_facts_come_from_the_user_only(agent, transcript, lc_config):
    path = transcript(
        5, assistant_claims="You prefer tabs. I prefer emacs. We decided to use Mongo."
    )
    r = ingest_session(agent, path, config=lc_config)
    facts = agent.list(FactFilters(status="active"))
    contents = {f.content for f in facts}
    assert r.facts_added == len(facts) == 3
    assert contents == {
        "I prefer pnpm over npm for every project.",
        "We decided to use Postgres for the orders service.",
        "I'm on macOS and my editor is Neovim.",
    }
    assert not any("emacs" in c or "Mongo" in c or "tabs" in c for c in contents)
    f = next(f for f in facts if "pnpm" in f.content)
    assert (f.category, f.source, f.source_ref) == ("pref", "session", "gen-1")
    assert f.metadata["tier"] == "short" and f.event_date == date(2026, 3, 2)


def test_claude_code_session_from_fixture(agent, cc_fixture, lc_config):
    r = ingest_session(agent, cc_fixture, config=lc_config)
    assert r.session_id == "7f3c2a10-0000-4000-8000-00000000abcd"
    assert (r.turns, r.skipped_lines, r.episodes_added) == (3, 2, 1)
    assert any("skipped 2" in w for w in r.warnings)
    cats = {f.content: f.category for f in agent.list()}
    assert cats == {
        "I prefer tabs over spaces.": "pref",
        "We decided to use black for formatting.": "proj:alpha",
        "Remind me to update the changelog before the release.": "task",
    }
    (ep,) = agent.episodes.list()
    assert "flake8" not in ep.summary and "SIDECHAIN" not in ep.summary
    assert ep.tags[0] == "alpha"  # the project (the transcript's cwd) leads the tags
    # the summary line is the title; then what was asked, decided, done, and how it ended
    # its summary line names a leaf outside this file: another session's title, not used
    assert ep.summary.startswith("Asked: I prefer tabs over spaces")
    assert "Ended: open" in ep.summary
    assert "Decided: We decided to use black for formatting." in ep.summary


def test_transcript_without_conversation(agent, tmp_path, lc_config):
    import json

    p = tmp_path / "agent-a1b2c3d.jsonl"  # a sub-agent "Warmup" file: every line a sidechain
    p.write_text(
        json.dumps(
            {
                "type": "user",
                "uuid": "w1",
                "parentUuid": None,
                "isSidechain": True,
                "agentId": "a1b2c3d",
                "sessionId": "parent-sid",
                "message": {"role": "user", "content": "Warmup"},
            }
        )
        + "\n"
    )
    r = ingest_session(agent, p, config=lc_config)
    assert (r.turns, r.episodes_added, r.facts_added) == (0, 0, 0)
    assert "no conversation found" in r.warnings[0]
    # the parent's session id is not claimed by its sub-agent's file
    assert r.session_id == "agent-a1b2c3d"


def test_real_samples_ingest(agent, shared_dir, lc_config):
    from services.capture.sessions import SessionReport

    for rel in (
        "formats/samples/claude-code-v1.0.98/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        "formats/samples/claude-code-v2.1.38/short.jsonl",
    ):
        t = parse_transcript(shared_dir / rel)
        r: SessionReport = ingest_session(agent, shared_dir / rel, config=lc_config)
        assert r.session_id == t.session_id and r.turns == 1 and r.episodes_added == 1
    days = sorted(e.day for e in agent.episodes.list())
    assert days[0] == date(2025, 9, 3) or days[0] == date(2025, 9, 2)  # local zone of the run


def test_overflow_goes_to_pending(agent, transcript, lc_config):
    lc_config.pending_threshold = 2
    r = ingest_session(agent, transcript(7), config=lc_config)
    assert r.facts_added == 4 and r.facts_pending == 2  # pref, decision, env, task
    pending = agent.list(FactFilters(status="pending"), order="id")
    assert [f.category for f in pending] == ["env", "task"]  # the later ones wait
    assert agent.facts.count(FactFilters(status="active")) == 2


def test_secrets_in_transcripts_are_redacted(agent, tmp_path, lc_config):
    import json

    p = tmp_path / "s.jsonl"
    key = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    p.write_text(
        "".join(
            json.dumps(x) + "\n"
            for x in [
                {
                    "role": "user",
                    "content": f"I use the key {key} for staging. I prefer fish shell.",
                },
                {"role": "assistant", "content": "ok"},
            ]
        ),
        encoding="utf-8",
    )
    ingest_session(agent, p, session_id="sec", config=lc_config)
    row = Session.get(Session.external_id == "sec")
    assert key not in row.log and "[REDACTED" in row.log
    assert all(key not in e.summary for e in agent.episodes.list())
    assert all(key not in f.content for f in agent.list())


def test_forget_rules_reach_episodes_and_logs(agent, tmp_path, lc_config):
    import json

    from services.ingest.forget_rules import add_rule

    add_rule(agent.engram.forget_key(), agent.agent_id, "falcon", ["Project Falcon"])
    p = tmp_path / "f.jsonl"
    p.write_text(
        "".join(
            json.dumps(x) + "\n"
            for x in [
                {"role": "user", "content": "I prefer fish shell. Project Falcon launches in May."},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "We decided to use Project Falcon branding."},
                {"role": "assistant", "content": "ok"},
            ]
        ),
        encoding="utf-8",
    )
    lc_config.turns_per_summary = 1
    r = ingest_session(agent, p, session_id="forget-test", config=lc_config)
    # turn 1's summary quotes only "I prefer fish shell"; turn 2's would name Falcon
    assert r.episodes_added == 1 and any("forget" in w for w in r.warnings)
    assert all("Falcon" not in e.summary for e in agent.episodes.list())
    assert [f.content for f in agent.list()] == ["I prefer fish shell."]
    log = Session.get(Session.external_id == "forget-test").log
    assert "Falcon" not in log and "[forgotten]" in log


def test_second_hook_stops_before_reading_the_file_again(agent, cc_fixture, lc_config, monkeypatch):
    first = ingest_session(agent, cc_fixture, config=lc_config)
    import services.capture.sessions as sessions

    def boom(*a, **k):
        raise AssertionError("the transcript was parsed again")

    monkeypatch.setattr(sessions, "parse_transcript", boom)
    again = ingest_session(agent, cc_fixture, config=lc_config)
    assert again.already_processed and again.session_id == first.session_id

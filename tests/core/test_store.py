"""The fact store: agent isolation, dedup, supersession, redaction, edits and history."""

from __future__ import annotations

import pytest

from services.errors import InvalidInput, NotFound
from services.ingest.pipeline import NewFact
from services.store.facts import FactFilters
from tests.core.two_agents import ALPHA, two_agents

# every store test runs on the local store and on a team store (PostgreSQL + Chroma server)
pytestmark = pytest.mark.backends("sqlite", "postgres")


def test_agents_cannot_see_or_change_each_others_facts(engram):
    a, b, fa, fb = two_agents(engram)

    assert [f.id for f in a.list()] == [fa]
    assert [f.id for f in b.list()] == [fb]
    for call in (
        lambda: b.get(fa),
        lambda: b.edit(fa, content="hijacked"),
        lambda: b.pin(fa),
        lambda: b.delete(fa),
    ):
        with pytest.raises(NotFound):
            call()
    assert a.get(fa).content == ALPHA
    # search in one agent never returns the other's facts, even on a perfect match
    assert b.search("Kubernetes GKE", k=5) == [] or all(
        h.fact.agent_id == b.agent_id for h in b.search("Kubernetes GKE", k=5)
    )
    assert all(h.fact.agent_id == a.agent_id for h in a.search("Nomad bare metal", k=5))
    assert b.facts.rows([fa]) == {}
    assert b.facts.history(fa) == []


def test_same_text_in_two_agents_is_two_facts(engram):
    a = engram.agent("alpha", create=True)
    b = engram.agent("beta", create=True)
    ra = a.remember("Prefers dark mode in every editor")
    rb = b.remember("Prefers dark mode in every editor")
    assert ra.status == rb.status == "added"
    assert ra.fact_id != rb.fact_id


def test_exact_duplicate_bumps_existing_fact(agent):
    first = agent.remember("The user prefers pnpm over npm", importance=0.5)
    again = agent.remember("the user prefers PNPM over npm!!")
    assert again.status == "duplicate"
    assert again.fact_id == first.fact_id
    assert agent.facts.count() == 1
    assert agent.get(first.fact_id).importance > 0.5


def test_near_duplicate_by_meaning_is_not_stored_twice(agent):
    first = agent.remember("The user's favourite editor is Neovim")
    again = agent.remember("The user's favorite editor is Neovim.")
    assert again.status in ("duplicate", "near-duplicate")
    assert again.fact_id == first.fact_id
    assert agent.facts.count() == 1


def test_newer_fact_about_same_subject_supersedes_older(agent):
    old = agent.remember("The user lives in Berlin", category="fact").fact_id
    new = agent.remember("The user moved to Lisbon last spring", category="fact")
    assert new.superseded == [old]
    old_view = agent.get(old)
    assert old_view.status == "superseded"
    assert old_view.superseded_by == new.fact_id
    # kept, linked and visible in the new fact's history
    actions = [h["action"] for h in agent.facts.history(new.fact_id)]
    assert "supersede" in actions
    active = agent.list(FactFilters(status="active"))
    assert [f.id for f in active] == [new.fact_id]


def test_explicit_subject_supersedes(agent):
    a = agent.remember("Deploy target: Heroku", subject="deploy-target").fact_id
    b = agent.remember("Deploy target: Fly.io", subject="deploy-target")
    assert b.superseded == [a]


@pytest.mark.parametrize(
    "text,secret",
    [
        (
            "My OpenAI key is sk-proj-Ab3dEf6hIj9kLmN0pQr5StUvWxYz1234",
            "sk-proj-Ab3dEf6hIj9kLmN0pQr5StUvWxYz1234",
        ),
        ("use postgres://app:S3cretPass@db.internal:5432/prod for staging", "S3cretPass"),
        ("the admin password=correct-horse-battery", "correct-horse-battery"),
        (
            "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abcdefghijklmnop'",
            "eyJhbGciOiJIUzI1NiJ9.abcdefghijklmnop",
        ),
        (
            "GitHub token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
            "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        ),
        ("AWS AKIAIOSFODNN7EXAMPLE in ~/.aws", "AKIAIOSFODNN7EXAMPLE"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXktdjEAAAAA",
        ),
    ],
)
def test_secrets_are_redacted_before_storage(agent, engram, text, secret):
    r = agent.remember(text)
    assert r.redactions >= 1
    stored = agent.get(r.fact_id).content
    assert secret not in stored and "[REDACTED" in stored
    # the vector is of the redacted text (its hash says so), Chroma holds no copy of the
    # text at all (issue #33: a hash, not the document), and the audit snapshot has no
    # secret either
    assert engram.index.stale_ids(agent.agent_id, {r.fact_id: stored}) == []
    if engram.index.path is not None:
        assert engram.index.documents(agent.agent_id, [r.fact_id]) == {r.fact_id: None}
    assert all(secret not in str(h) for h in agent.facts.history(r.fact_id))


def test_edit_pin_delete_are_audited_and_delete_can_be_undone(agent, engram):
    fid = agent.remember("Uses fish shell", category="env").fact_id
    agent.edit(fid, content="Uses zsh with oh-my-zsh")
    agent.pin(fid)
    agent.unpin(fid)
    assert [h["action"] for h in agent.facts.history(fid)] == ["create", "edit", "pin", "unpin"]
    # editing re-embeds: the vector follows the row
    assert engram.index.stale_ids(agent.agent_id, {fid: "Uses zsh with oh-my-zsh"}) == []

    agent.delete(fid)
    with pytest.raises(NotFound):
        agent.get(fid)
    assert fid not in engram.index.all_ids(agent.agent_id)
    assert agent.search("zsh", k=3) == []
    snap = agent.facts.history(fid)[-1]["before"]
    restored = agent.restore(snap)
    assert restored.id == fid and restored.content == "Uses zsh with oh-my-zsh"
    assert [h.fact.id for h in agent.search("zsh shell", k=3)] == [fid]


def test_invalid_input_is_refused_with_clear_message(agent, engram):
    with pytest.raises(InvalidInput, match="importance"):
        agent.remember("x", importance=3)
    assert agent.remember("   ").status == "empty"
    with pytest.raises(InvalidInput, match="agent name"):
        engram.add_agent("Bad Name!")
    fid = agent.remember("something real").fact_id
    with pytest.raises(InvalidInput, match="empty"):
        agent.edit(fid, content="  ")
    assert agent.get(fid).content == "something real"


def test_filters_and_lazy_ids(agent):
    agent.remember_many(
        [
            NewFact("Never force-push shared branches", category="rule", pinned=True),
            NewFact("Working on the billing service", category="proj:billing"),
            NewFact("Working on the search service", category="proj:search"),
            NewFact("Clean the tmp folder", category="tmp"),
        ],
        near_duplicate=None,
    )
    assert agent.facts.count(FactFilters(category="proj:")) == 2
    assert agent.facts.count(FactFilters(category="proj:billing")) == 1
    assert [f.content for f in agent.list(FactFilters(pinned=True))] == [
        "Never force-push shared branches"
    ]
    assert agent.facts.count(FactFilters(memory_type="temporal")) == 1
    ids = agent.facts.ids(order="content")
    page = agent.facts.rows(ids[:2])
    assert [page[i].content for i in ids[:2]] == [
        "Clean the tmp folder",
        "Never force-push shared branches",
    ]


def test_tag_filter_matches_whole_tags_in_lists_and_search(agent):
    agent.remember_many(
        [
            NewFact("The web app is built with Vite", tags=["web", "frontend"]),
            NewFact("The webapp beta keeps a waitlist", tags=["webapp"]),
            NewFact("The web_app% folder holds the old build", tags=["web_app%"]),
            NewFact("The web app has no tests yet"),
        ],
        near_duplicate=None,
    )
    web = FactFilters(tags="web")
    assert [f.content for f in agent.list(web)] == ["The web app is built with Vite"]
    # LIKE wildcards in a tag are literal characters
    assert [f.content for f in agent.list(FactFilters(tags="web_app%"))] == [
        "The web_app% folder holds the old build"
    ]
    assert agent.facts.count(FactFilters(tags=["webapp", "frontend"])) == 2
    for mode in ("keyword", "hybrid"):
        hits = agent.search("web app", filters=web, mode=mode, touch=False)
        assert [h.fact.content for h in hits] == ["The web app is built with Vite"], mode


def test_batch_ingest_reports_each_item(agent):
    res = agent.remember_many(
        [
            NewFact("Likes espresso"),
            NewFact("likes espresso"),
            NewFact(""),
            NewFact("Runs Arch Linux on the laptop", category="env"),
        ]
    )
    assert [r.status for r in res] == ["added", "duplicate", "empty", "added"]
    assert res[1].fact_id == res[0].fact_id
    assert agent.facts.count() == 2


def test_episodes_list_newest_day_first_and_sessions_in_clock_order(agent):
    from datetime import date

    for t in ("1:00 PM", "3:45 PM", "9:15 AM", "12:10 PM"):
        agent.add_episode(date(2026, 11, 29), f"session at {t}", time=t)
    agent.add_episode(date(2026, 11, 28), "the day before", time="6:30 PM")
    got = [(e.day.day, e.time) for e in agent.episodes.list()]
    assert got == [
        (29, "9:15 AM"),
        (29, "12:10 PM"),
        (29, "1:00 PM"),
        (29, "3:45 PM"),
        (28, "6:30 PM"),
    ]


def test_restating_a_superseded_fact_makes_it_current_again(agent):
    berlin = agent.remember("The user lives in Berlin").fact_id
    lisbon = agent.remember("The user moved to Lisbon").fact_id
    again = agent.remember("The user lives in Berlin")
    assert again.status == "added" and again.fact_id != berlin
    assert again.superseded == [lisbon]
    current = [f.content for f in agent.list(FactFilters(status="active"))]
    assert current == ["The user lives in Berlin"]


def test_restating_an_archived_fact_revives_it(agent):
    fid = agent.remember("Keeps a paper notebook for meetings").fact_id
    agent.edit(fid, status="archived", actor="gc")
    again = agent.remember("Keeps a paper notebook for meetings")
    assert again.status == "duplicate" and again.fact_id == fid
    assert agent.get(fid).status == "active"
    assert agent.facts.history(fid)[-1]["action"] == "restore"


def test_a_v2_store_is_upgraded_with_a_backup_and_compile_reads_sections_by_index(tmp_path):
    """An older store opens without losing a fact; a backup of it is kept; and the per-project
    query memory.md runs is answered from the category index instead of a walk over every
    fact (the difference between 40 ms and 19 s at 100k facts)."""
    import sqlite3

    from services.config import StoreConfig
    from services.engram import Engram

    cfg = StoreConfig(data_dir=tmp_path / "store", semantic=False)
    e = Engram.open(cfg)
    m = e.agent("claude", create=True)
    m.remember_many(
        [NewFact(f"Project {i % 5} uses service {i}", category=f"proj:p{i % 5}") for i in range(40)]
    )
    e.close()
    db = tmp_path / "store" / "engram.db"
    con = sqlite3.connect(db)
    con.execute("DROP INDEX fact_category_rank")
    con.execute("DELETE FROM schema_version WHERE version > 2")
    con.commit()
    con.close()

    e = Engram.open(cfg)
    try:
        assert e.agent("claude").facts.count() == 40
        plan = " ".join(
            str(r)
            for r in e.db.execute_sql(
                "EXPLAIN QUERY PLAN SELECT id, content FROM fact WHERE agent_id = 1 AND "
                "status = 'active' AND category = 'proj:p1' ORDER BY pinned DESC, importance DESC, "
                "access_count DESC, created_at DESC, id DESC LIMIT 300"
            ).fetchall()
        )
        assert "fact_category_rank" in plan and "TEMP B-TREE" not in plan
    finally:
        e.close()
    backups = list((tmp_path / "store").glob("engram.v2.*.bak"))
    assert len(backups) == 1
    con = sqlite3.connect(backups[0])
    assert con.execute("SELECT COUNT(*) FROM fact").fetchone()[0] == 40
    con.close()


def test_a_near_twin_with_the_same_named_subject_is_an_update_not_a_duplicate(agent, engram):
    """A task file that moves on by a few words says something new about the same subject:
    it must become the current fact, not be absorbed as a near-duplicate of the old one."""
    import numpy as np

    old = "Active task: ship the v2 release — next: write the changelog"
    new = "Active task: ship the v2 release — next: write the changelog now"
    a, b = engram.embedder.embed([old, new])
    assert float(np.dot(a, b)) >= 0.95, "the two texts are near twins for the model"
    first = agent.remember_many(
        [NewFact(old, category="task", subject="lynn:active-task")], bump=False
    )[0]
    second = agent.remember_many(
        [NewFact(new, category="task", subject="lynn:active-task")], bump=False
    )[0]
    assert second.status == "added" and second.superseded == [first.fact_id]
    assert agent.get(first.fact_id).status == "superseded"
    # without a named subject the same pair is still one memory (a near-duplicate)
    third = agent.remember_many(
        [
            NewFact(
                new.replace("write the changelog now", "now write the changelog"), category="task"
            )
        ]
    )[0]
    assert third.status == "near-duplicate" and third.fact_id == second.fact_id


def test_a_named_subject_changing_back_makes_the_earlier_wording_current(agent):
    """active -> blocked -> active again, re-imported from the same file (bump=False)."""
    texts = [
        "Active task: migrate the billing service",
        "Blocked task: migrate the billing service (waiting on credentials)",
        "Active task: migrate the billing service",
    ]
    ids = [
        agent.remember_many([NewFact(t, category="task", subject="lynn:active-task")], bump=False)[
            0
        ].fact_id
        for t in texts
    ]
    current = agent.facts.list(FactFilters(status="active", category="task"))
    assert [f.content for f in current] == [texts[0]]
    assert current[0].id == ids[2] != ids[0]
    assert agent.get(ids[1]).status == "superseded"
    # re-importing the same file again adds nothing
    again = agent.remember_many(
        [NewFact(texts[2], category="task", subject="lynn:active-task")], bump=False
    )[0]
    assert again.status == "duplicate" and again.fact_id == ids[2]

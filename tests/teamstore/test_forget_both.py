"""Forget scopes on both backends: the local store and a team store (PostgreSQL + a Chroma
server). On a server store the proof is through queries, and ``verify`` says which
guarantees hold."""

from __future__ import annotations

import pytest

from models import AuditEvent, Fact
from models.db import is_postgres
from services.forget.service import ForgetScope, ForgetService
from services.ingest.pipeline import NewFact

pytestmark = pytest.mark.backends("sqlite", "postgres")

SECRET = "Project Nightjar launches on the ninth of March at the Lisbon office"
KEEP = [
    "The build uses Gradle with the configuration cache on",
    "Release notes live in docs/releases and are written by the on-call engineer",
    "The staging cluster is called kestrel and runs in eu-west-1",
]


def test_forget_matching_removes_rows_history_full_text_and_vectors_and_keeps_the_rest(engram):
    mem = engram.agent("team", create=True)
    other = engram.agent("other", create=True)
    mem.remember_many([NewFact(t) for t in [SECRET, *KEEP]])
    other.remember("Nightjar is also the name of the other team's bird feeder")
    fid = next(f.id for f in mem.list() if f.content == SECRET)
    mem.edit(fid, content=SECRET + " (confirmed)")  # history holds both wordings
    assert mem.search("Nightjar Lisbon", mode="keyword", k=3)[0].fact.id == fid

    svc = ForgetService(engram)
    receipt = svc.execute(ForgetScope(agent="team", matching="Project Nightjar launches"))
    assert receipt["counts"]["remaining_after_verify"] == 0
    rep = svc.verify([SECRET], agent="team")
    assert rep.ok, rep.remaining
    if is_postgres(engram.db):
        text = "\n".join(rep.guarantees)
        assert "held: no tsvector entry matches it" in text
        assert "held: every text table was rewritten" in text, text
        assert "held: no vector in the Chroma server" in text
        assert "out of reach: WAL segments" in text

    assert not Fact.select().where(Fact.content.contains("Nightjar"), Fact.agent == mem.agent_id)
    snapshots = [str(e.before) + str(e.after) for e in AuditEvent.select()]
    assert not any("Nightjar launches" in s for s in snapshots)
    assert mem.search("Nightjar Lisbon", mode="keyword", k=3) == []
    assert [h.fact.content for h in mem.search("Gradle build", mode="keyword", k=1)] == [KEEP[0]]
    # vectors: the collection was rebuilt from the kept ones, no re-embedding needed
    assert engram.index.count(mem.agent_id) == len(KEEP)
    near = mem.search("when does Nightjar launch in Lisbon", mode="semantic", k=5)
    assert SECRET not in {h.fact.content for h in near}
    # the other agent keeps its own mention
    assert other.search("Nightjar", mode="keyword")[0].fact.content.startswith("Nightjar is")


def test_forget_matching_finds_an_inflected_phrase_through_the_full_text(keyword_engram):
    mem = keyword_engram.agent("team", create=True)
    mem.remember_many([NewFact(SECRET), NewFact(KEEP[0])])
    pv = ForgetService(keyword_engram).preview(
        ForgetScope(agent="team", matching="Nightjar launching", semantic=False)
    )
    (ap,) = pv.agents
    assert [f["content"] for f in ap.facts] == [SECRET]

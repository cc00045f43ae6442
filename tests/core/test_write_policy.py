"""One write policy for every write path (services/ingest/policy.py).

Every path that stores or changes memory text is driven with four payloads: a secret, an
e-mail address under the personal-data policy ``deny``, one under ``ask``, and a string the
user asked Engram to forget. Afterwards the data dir is read as raw bytes, as a user would grep
it: the secret, the denied address and the forgotten string must be nowhere, and the address
under ``ask`` may only sit in a fact waiting for review (never in active memory, an episode, a
session log or a compiled layer).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from models import CompiledLayer, Episode, Fact, Session
from services.forget import isolated
from services.ingest.forget_rules import add_rule
from services.ingest.pipeline import NewFact

SECRET = "sk-proj-Q7wXv2Lm9Rt4Yp8Zk3Nb6Hc1Jd5Fg0Aa"
EMAIL_DENY = "zorblax.quentin@example.org"
EMAIL_ASK = "yvaine.trelawney@example.org"
FORGOTTEN = "Wexleythorpe Frobnitz"

PAYLOADS = {
    "secret": (f"The deploy key for staging is {SECRET} keep it handy", SECRET, None),
    "email-deny": (f"Reach the landlord at {EMAIL_DENY} about the lease", EMAIL_DENY, "deny"),
    "email-ask": (f"Reach the plumber at {EMAIL_ASK} about the boiler", EMAIL_ASK, "ask"),
    "forgotten": (f"Dinner with {FORGOTTEN} every second Friday at the harbour", FORGOTTEN, None),
}


def _remember(mem, text, tmp):
    mem.remember(text)


def _remember_many(mem, text, tmp):
    mem.remember_many([NewFact(content="Uses tabs in Makefiles"), NewFact(content=text)])


def _edit(mem, text, tmp):
    fid = mem.remember("Prefers decaf after lunch").fact_id
    try:
        mem.edit(fid, content=text)
    except Exception as exc:  # a forgotten string is refused: that is the policy working
        assert "forget rule" in str(exc)


def _cli_edit(mem, text, tmp):
    from app.cli import main

    fid = mem.remember("Keeps a paper notebook for standups").fact_id
    main(["--data-dir", str(mem.engram.config.data_dir), "edit", str(fid), "--content", text])


def _bulk(mem, text, tmp):
    from services.ingest.bulk import bulk_remember

    bulk_remember(mem, [NewFact(content="Runs Debian on the home server"), NewFact(content=text)])


def _import_memory_setup(mem, text, tmp):
    ws = tmp / "ws" / "memories"
    ws.mkdir(parents=True)
    (ws / "MEMORY.md").write_text(
        f"# MEMORY.md\n\n§\n[2026-04-12][fact] {text}\n§\n"
        "[2026-04-12][pref] Prefers short meetings\n"
    )
    (tmp / "ws" / "episodes").mkdir()
    (tmp / "ws" / "episodes" / "2026-04-12.md").write_text(f"# 2026-04-12\n\n### 3:00 PM\n{text}\n")
    mem.import_path(tmp / "ws")


def _bulk_fillers() -> list[dict]:
    from services.ingest.bulk import BULK_IMPORT_MIN

    return [
        {"content": f"Rule {i}: build step {i} runs on runner {i % 9}"}
        for i in range(BULK_IMPORT_MIN)
    ]


def _import_bulk(mem, text, tmp):
    """An import large enough for the bulk path (services/ingest/bulk.py ``bulk_store``)."""
    p = tmp / "big.json"
    p.write_text(json.dumps({"agent": "writer", "facts": [*_bulk_fillers(), {"content": text}]}))
    mem.import_path(p, fmt="engram-json")


def _import_claude_memory(mem, text, tmp):
    """A Claude Code topic file: the text in the body and in the frontmatter (kept as metadata)."""
    d = tmp / "claude" / "memory"
    d.mkdir(parents=True)
    (d / "MEMORY.md").write_text("# Memory Index\n\n- [Note](project_note.md) — a note\n")
    desc = json.dumps(text)
    (d / "project_note.md").write_text(
        f"---\nname: Note\ndescription: {desc}\ntype: project\n---\n\n{text}\n\n- Uses pnpm\n"
    )
    mem.import_path(d)


def _import_mcp_memory(mem, text, tmp):
    """The MCP memory server's memory.jsonl: the text as an observation and a relation end."""
    p = tmp / "memory.jsonl"
    rows = [
        {
            "type": "entity",
            "name": "Home",
            "entityType": "place",
            "observations": [text, "Has a garden"],
        },
        {"type": "relation", "from": "Home", "to": text, "relationType": "mentions"},
    ]
    p.write_text("\n".join(json.dumps(r) for r in rows))
    mem.import_path(p)


def _lynn_rolling_summary(mem, text, tmp):
    d = tmp / "lynn" / "memory" / "summaries"
    d.mkdir(parents=True)
    f = d / "abc123.json"
    body = {
        "session_id": "abc123",
        "created_at": "2026-05-04T18:05:10.000Z",
        "updated_at": "2026-05-04T18:05:10.000Z",
        "summary": "## Timeline\n18:05 User asked for an outline of the talk",
        "snapshot": "",
    }
    f.write_text(json.dumps(body))
    mem.import_path(tmp / "lynn" / "memory")
    body["summary"] += f"\n18:40 {text}"  # the rolling summary is rewritten: updated in place
    body["updated_at"] = "2026-05-04T19:05:10.000Z"
    f.write_text(json.dumps(body))
    mem.import_path(tmp / "lynn" / "memory")


def _add_episode(mem, text, tmp):
    mem.add_episode(date(2026, 4, 12), text, time="3:00 PM")


def _session(mem, text, tmp):
    from services.capture.sessions import ingest_session

    p = tmp / "session.jsonl"
    lines = [
        {"role": "user", "content": f"I prefer this: {text}"},
        {"role": "assistant", "content": "Noted, I will keep that in mind."},
        {"role": "user", "content": f"Also remember {text}"},
        {"role": "assistant", "content": "Done."},
    ]
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    ingest_session(mem, p, session_id="s-policy")


def _sync(mem, text, tmp):
    from services.interop.sync import sync_workspace

    root = tmp / "sync-ws"
    (root / "memories").mkdir(parents=True)
    md = root / "memories" / "MEMORY.md"
    md.write_text("# MEMORY.md\n\n§\n[2026-04-12][pref] Prefers pnpm over npm\n")
    mem.engram.update_agent(mem.slug, workspace=root)
    mem = mem.engram.agent(mem.slug)
    sync_workspace(mem)
    md.write_text(
        f"# MEMORY.md\n\n§\n[2026-04-12][pref] Prefers pnpm over npm\n§\n"
        f"[2026-04-13][fact] {text}\n"
    )
    sync_workspace(mem)
    # and an agent's edit of an existing entry
    md.write_text(
        f"# MEMORY.md\n\n§\n[2026-04-12][pref] Prefers pnpm. {text}\n§\n[2026-04-13][fact] {text}\n"
    )
    sync_workspace(mem)


def _archive(mem, text, tmp):
    """An archive made by a real export, with the payload in every text field it carries."""
    from models import Session as SessionRow
    from services.config import StoreConfig
    from services.engram import Engram
    from services.interop.archive import export_archive, import_archive
    from services.lifecycle.compile import CompileService

    src = Engram.open(StoreConfig(data_dir=tmp / "src", semantic=False))
    a = src.agent("archived", create=True)
    fid = a.remember("PLACEHOLDER one").fact_id
    a.edit(fid, content="PLACEHOLDER two")
    a.add_episode(date(2026, 4, 12), "PLACEHOLDER three", time="3:00 PM")
    SessionRow.create(
        agent=a.agent_id, external_id="s-1", log="user: PLACEHOLDER four", turn_count=1
    )
    CompileService(a).compile()
    export_archive(a, tmp / "agent.jsonl")
    src.close()
    raw = (tmp / "agent.jsonl").read_text()
    for word in ("one", "two", "three", "four"):
        raw = raw.replace(f"PLACEHOLDER {word}", text)
    (tmp / "agent.jsonl").write_text(raw)
    agent_line = json.loads(raw.splitlines()[1])
    assert agent_line["type"] == "agent"
    raw_lines = raw.splitlines()
    raw_lines[1] = json.dumps({**agent_line, "settings": mem.settings})
    (tmp / "agent.jsonl").write_text("\n".join(raw_lines) + "\n")
    from models.db import database_proxy  # the source store was the bound one: bind ours back

    database_proxy.initialize(mem.engram.db)
    import_archive(mem.engram, tmp / "agent.jsonl")


def _undo_delete(mem, text, tmp):
    """Undo of a delete re-creates the fact: it must not bring back what a rule now forbids."""
    from services.store.facts import snapshot

    fid = mem.remember("Prefers window seats").fact_id
    snap = snapshot(Fact.get_by_id(fid))
    mem.delete([fid])
    try:
        mem.restore({**snap, "content": text})
    except Exception as exc:
        assert "forget rule" in str(exc)


def _entity_names(mem, text, tmp):
    """Entity names a user or an import gives (rename, alias, metadata) pass the policy."""
    from services.errors import InvalidInput

    mem.remember("Sam reviewed the Quartz RFC.")
    for act in (
        lambda: mem.entities.rename("Sam", text),
        lambda: mem.entities.alias("Sam", [text]),
    ):
        try:
            act()
        except InvalidInput:
            pass
    # the name from an import's metadata (the fact itself is clean text)
    fid = mem.remember("Met at the harbour").fact_id
    from models import Fact as F

    row = F.get_by_id(fid)
    row.metadata = {"entity": {"name": text, "type": "person"}}
    from services.entities.linking import link_fact

    link_fact(mem.agent_id, row, mem.entities.clean)
    row.metadata = {}
    row.save()


def _mcp(mem, text, tmp):
    """The MCP server's remember and update_memory tools, called in-process (the transport
    adds nothing to what is stored; tests/integration/test_mcp_server.py drives it for real)."""
    from services.integrations.mcp import memory as mcp_tools

    mcp_tools.remember(mem, text, client="claude-code")
    fid = mcp_tools.remember(mem, "Takes the early train on Mondays", client="claude-code")["id"]
    try:
        mcp_tools.update_memory(mem, fid, text=text, client="claude-code")
    except Exception as exc:  # a forgotten string is refused: that is the policy working
        assert "forget rule" in str(exc)


def _mcp_batch(mem, text, tmp):
    """The MCP batch tool (issue 22), in-process: every item passes the policy."""
    from services.integrations.mcp import entities, memory

    memory.remember_batch(
        mem, [{"text": text, "project": "billing"}, {"text": "Likes the quiet carriage"}]
    )
    entities.link_entities(mem, text, "works_at", "Acme Corp")
    entities.link_entities(mem, "Grace Hopper", "mentors", text)


def _import_agent_memory_2026(mem, text, tmp):
    """Issue 22's importers: Gemini private memory with an inbox proposal, a Cline memory
    bank, a Claude Code subagent's memory."""
    gem = tmp / "home" / ".gemini" / "tmp" / "shop" / "memory"
    (gem / ".inbox" / "private").mkdir(parents=True)
    (gem / "MEMORY.md").write_text(f"- {text}\n")
    (gem / ".inbox" / "private" / "extraction.patch").write_text(
        f"--- {gem}/MEMORY.md\n+++ {gem}/MEMORY.md\n@@ -1,1 +1,2 @@\n - {text}\n+- {text} too\n"
    )
    bank = tmp / "repo" / "memory-bank"
    bank.mkdir(parents=True)
    (bank / "activeContext.md").write_text(f"- {text}\n")
    sub = tmp / "repo" / ".claude" / "agent-memory" / "reviewer"
    sub.mkdir(parents=True)
    (sub / "MEMORY.md").write_text(f"- {text}\n")
    for path, fmt in ((gem, None), (tmp / "repo", "agent-rules"), (sub, None)):
        mem.import_path(path, fmt=fmt)


def _mcp_forget_request(mem, text, tmp):
    """An MCP client's forget request waits in the review inbox as a fact naming the text:
    the policy applies to it like to any memory (issue #27)."""
    from services.integrations.mcp import forget

    forget.forget(mem, text, preview=False, client="claude-code")


WRITE_PATHS = {
    "mcp-batch": _mcp_batch,
    "import-agent-memory-2026": _import_agent_memory_2026,
    "entity-names": _entity_names,
    "mcp-forget-request": _mcp_forget_request,
    "remember": _remember,
    "remember_many": _remember_many,
    "edit": _edit,
    "cli-edit": _cli_edit,
    "bulk": _bulk,
    "import": _import_memory_setup,
    "import-bulk": _import_bulk,
    "import-claude-memory": _import_claude_memory,
    "import-mcp-memory": _import_mcp_memory,
    "lynn-rolling-summary": _lynn_rolling_summary,
    "episode": _add_episode,
    "session": _session,
    "sync": _sync,
    "archive-import": _archive,
    "undo-delete": _undo_delete,
    "mcp": _mcp,
}


@pytest.mark.slow  # the whole matrix: make test runs it
@pytest.mark.parametrize("payload", sorted(PAYLOADS))
@pytest.mark.parametrize("path", sorted(WRITE_PATHS))
def test_every_write_path_applies_the_policy(keyword_engram, tmp_path, path, payload):
    e = keyword_engram
    mem, text, needle = _setup(e, payload)
    pii = PAYLOADS[payload][2]
    WRITE_PATHS[path](mem, text, tmp_path)
    e.db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")

    hits = isolated.raw_hits([Path(e.config.data_dir)], [needle])
    if pii == "ask":
        held = [f.content for f in Fact.select() if needle in f.content]
        assert all(f.status == "pending" for f in Fact.select() if needle in f.content), (
            f"{path}: a fact with personal data under 'ask' became active"
        )
        for model, field in ((Episode, "summary"), (Session, "log"), (CompiledLayer, "markdown")):
            assert not [r for r in model.select() if needle in (getattr(r, field) or "")], (
                f"{path}: personal data under 'ask' reached {model.__name__}.{field}"
            )
        if not held:
            assert hits == [], f"{path}: {needle!r} is on disk outside any pending fact: {hits}"
    else:
        assert hits == [], f"{path}: {payload} reached the store's files: {hits}"
    # the path did store something (the policy does not just drop everything)
    if payload != "forgotten" and path != "undo-delete":
        assert Fact.select().count() + Episode.select().count() > 0


def test_the_store_refuses_text_that_skipped_the_policy(keyword_engram):
    """The store layer only takes text the policy made, so a new path that forgets it fails."""
    mem = keyword_engram.agent("writer", create=True)
    fid = mem.remember("Prefers tea").fact_id
    with pytest.raises(TypeError, match="policy"):
        mem.facts.edit(fid, content=f"token {SECRET}")
    with pytest.raises(TypeError, match="policy"):
        mem.episodes.add(date(2026, 1, 1), f"token {SECRET}")
    assert SECRET not in mem.get(fid).content


# -- every text field beside the content ------------------------------------------------------
# A subject is indexed and shown, tags are searched, metadata is exported and read by the
# entity linker, a review note is shown in the inbox: each is memory text, and each path that
# writes it is driven with each payload. None of the four may reach the files here, not even
# the address under "ask": a field cannot wait in review on its own, so it is redacted.


def _field_kwargs(field: str, text: str) -> dict:
    if field == "subject":
        return {"subject": text}
    if field == "tags":
        return {"tags": ["work", text]}
    if field == "metadata":
        return {"metadata": {"note": text, "nested": {"seen": [text, 3]}, text: "as a key"}}
    if field == "category":
        return {"category": f"rel:{text}"}
    assert field == "review-note"
    from services.store.review import review_metadata

    return {"metadata": review_metadata("mcp", source=text), "status": "pending"}


def _f_remember(mem, field, text, tmp):
    mem.remember("Prefers oat milk in coffee", **_field_kwargs(field, text))


def _f_cli_remember(mem, field, text, tmp):
    from app.cli import main

    flag = {
        "subject": ["--subject", text],
        "tags": ["--tags", f"work,{text}"],
        "category": ["--category", f"rel:{text}"],
    }[field]
    data = str(mem.engram.config.data_dir)
    rc = main(["--data-dir", data, "remember", "--agent", mem.slug, "Likes rye bread", *flag])
    assert rc == 0


def _f_edit(mem, field, text, tmp):
    """What the app's fact editor calls when the user changes a fact's tags (ui → services)."""
    fid = mem.remember("Cycles to work on Tuesdays").fact_id
    kw = _field_kwargs(field, text)
    kw.pop("status", None)
    mem.edit(fid, **kw)


def _f_restore(mem, field, text, tmp):
    from services.store.facts import snapshot

    fid = mem.remember("Prefers aisle seats").fact_id
    snap = snapshot(Fact.get_by_id(fid))
    mem.delete([fid])
    kw = _field_kwargs(field, text)
    kw.pop("status", None)
    mem.restore({**snap, **kw})


def _f_import_json(mem, field, text, tmp):
    fact = {"content": "Deploys on Thursdays only", **_field_kwargs(field, text)}
    body = {
        "agent": "writer",
        "facts": [fact],
        "episodes": [{"day": "2026-04-12", "summary": "Walked the dog", "tags": [text]}],
    }
    p = tmp / "export.json"
    p.write_text(json.dumps(body))
    mem.import_path(p, fmt="engram-json")


def _f_import_bulk(mem, field, text, tmp):
    fact = {"content": "Deploys on Thursdays only", **_field_kwargs(field, text)}
    p = tmp / "big.json"
    p.write_text(json.dumps({"agent": "writer", "facts": [*_bulk_fillers(), fact]}))
    mem.import_path(p, fmt="engram-json")


def _f_bulk(mem, field, text, tmp):
    from services.ingest.bulk import bulk_remember

    bulk_remember(mem, [NewFact(content="Keeps the NAS on a UPS", **_field_kwargs(field, text))])


def _f_archive(mem, field, text, tmp):
    """An archive made by a real export, the payload put into one field of its fact (and of
    the fact's audit snapshots) or its episode's tags."""
    from services.config import StoreConfig
    from services.engram import Engram
    from services.interop.archive import export_archive, import_archive

    src = Engram.open(StoreConfig(data_dir=tmp / "src", semantic=False))
    a = src.agent("archived", create=True)
    fid = a.remember(
        "Deploys on Fridays",
        subject="PLACEHOLDERS",
        tags=["PLACEHOLDERT"],
        metadata={"n": "PLACEHOLDERM"},
    ).fact_id
    a.edit(fid, importance=0.9)
    a.add_episode(date(2026, 4, 12), "Walked the dog", time="3:00 PM", tags=["PLACEHOLDERT"])
    export_archive(a, tmp / "agent.jsonl")
    src.close()
    mark = {"subject": "PLACEHOLDERS", "tags": "PLACEHOLDERT", "metadata": "PLACEHOLDERM"}[field]
    raw = (tmp / "agent.jsonl").read_text().replace(mark, text)
    lines = raw.splitlines()
    agent_line = json.loads(lines[1])
    lines[1] = json.dumps({**agent_line, "settings": mem.settings})
    (tmp / "agent.jsonl").write_text("\n".join(lines) + "\n")
    from models.db import database_proxy  # the source store was the bound one: bind ours back

    database_proxy.initialize(mem.engram.db)
    import_archive(mem.engram, tmp / "agent.jsonl")


def _f_episode(mem, field, text, tmp):
    mem.add_episode(date(2026, 4, 12), "Repotted the basil", time="9:00 AM", tags=["home", text])


def _f_entities(mem, field, text, tmp):
    from services.errors import InvalidInput

    mem.remember("Sam reviewed the Quartz RFC.")
    try:
        if field == "entity-name":
            mem.entities.rename("Sam", text)
        else:
            mem.entities.alias("Sam", [text])
    except InvalidInput:
        pass


FIELD_PATHS = {
    # the category is shown, filtered on and compiled into the layers (issue #30, finding 11)
    ("remember", "category"): _f_remember,
    ("cli-remember", "category"): _f_cli_remember,
    ("edit", "category"): _f_edit,
    ("undo-delete", "category"): _f_restore,
    ("import-engram-json", "category"): _f_import_json,
    ("bulk", "category"): _f_bulk,
    ("import-bulk", "category"): _f_import_bulk,
    ("import-bulk", "subject"): _f_import_bulk,
    ("import-bulk", "tags"): _f_import_bulk,
    ("import-bulk", "metadata"): _f_import_bulk,
    ("import-bulk", "review-note"): _f_import_bulk,
    ("remember", "subject"): _f_remember,
    ("remember", "tags"): _f_remember,
    ("remember", "metadata"): _f_remember,
    ("remember", "review-note"): _f_remember,
    ("cli-remember", "subject"): _f_cli_remember,
    ("cli-remember", "tags"): _f_cli_remember,
    ("edit", "subject"): _f_edit,
    ("edit", "tags"): _f_edit,
    ("edit", "metadata"): _f_edit,
    ("undo-delete", "subject"): _f_restore,
    ("undo-delete", "tags"): _f_restore,
    ("undo-delete", "metadata"): _f_restore,
    ("import-engram-json", "subject"): _f_import_json,
    ("import-engram-json", "tags"): _f_import_json,
    ("import-engram-json", "metadata"): _f_import_json,
    ("import-engram-json", "review-note"): _f_import_json,
    ("bulk", "subject"): _f_bulk,
    ("bulk", "tags"): _f_bulk,
    ("bulk", "metadata"): _f_bulk,
    ("archive-import", "subject"): _f_archive,
    ("archive-import", "tags"): _f_archive,
    ("archive-import", "metadata"): _f_archive,
    ("episode", "tags"): _f_episode,
    ("entities", "entity-name"): _f_entities,
    ("entities", "entity-alias"): _f_entities,
}


def _setup(e, payload):
    text, needle, pii = PAYLOADS[payload]
    mem = e.agent("writer", create=True)
    if pii:
        e.update_agent("writer", settings={"pii": {"email": pii}})
        mem = e.agent("writer")
    if payload == "forgotten":
        add_rule(e.forget_key(), None, "a name the user asked to forget", [FORGOTTEN])
    return mem, text, needle


def _on_disk(e, needle):
    e.db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return isolated.raw_hits([Path(e.config.data_dir)], [needle])


@pytest.mark.slow  # the whole matrix: make test runs it
@pytest.mark.parametrize("payload", sorted(PAYLOADS))
@pytest.mark.parametrize("path_field", sorted(FIELD_PATHS), ids="/".join)
def test_every_field_of_every_write_path_applies_the_policy(
    keyword_engram, tmp_path, path_field, payload
):
    mem, text, needle = _setup(keyword_engram, payload)
    FIELD_PATHS[path_field](mem, path_field[1], text, tmp_path)
    assert _on_disk(keyword_engram, needle) == [], f"{path_field}: {payload} reached the files"
    # the write itself happened: the policy takes the payload out, not the whole memory
    assert Fact.select().count() + Episode.select().count() > 0


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_fields_stay_out_of_the_vectors_too(engram, tmp_path, payload):
    """With the real model and Chroma: the raw-bytes scan covers the vector files as well."""
    mem, text, needle = _setup(engram, payload)
    for path_field in (("remember", "subject"), ("edit", "tags"), ("edit", "metadata")):
        FIELD_PATHS[path_field](mem, path_field[1], text, tmp_path)
    chroma = Path(engram.config.data_dir) / "chroma"
    assert any(p.is_file() for p in chroma.rglob("*")), "the vectors were written"
    assert engram.index.count(mem.agent_id) >= 2  # the two edits share one fact
    assert _on_disk(engram, needle) == []


def test_the_store_refuses_fields_that_skipped_the_policy(keyword_engram):
    mem = keyword_engram.agent("writer", create=True)
    fid = mem.remember("Prefers tea").fact_id
    for change in ({"subject": SECRET}, {"tags": [SECRET]}, {"metadata": {"k": SECRET}}):
        with pytest.raises(TypeError, match="policy"):
            mem.facts.edit(fid, **change)
    with pytest.raises(TypeError, match="policy"):
        mem.episodes.add(date(2026, 1, 1), _clean("walk"), tags=[SECRET])
    got = mem.get(fid)
    assert SECRET not in (got.subject or "") and SECRET not in got.tags and not got.metadata


def _clean(text):
    from services.store.text import CleanText

    return CleanText(text)

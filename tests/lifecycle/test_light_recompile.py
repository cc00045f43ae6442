"""After `pin`, `unpin`, `edit --importance` and `delete`, the compiled layers an agent loads
are what a full `engram compile` writes, byte for byte (issue 33: the recompile at the end of
these commands now reads each memory.md section a page at a time, when its turn comes, and no
further than the budget goes). memory.md is also checked against an eager reading of every
section, as the compile did it before: each section's best 300 facts, pinned ones first, then
the sections in turns. The store has several projects, pinned facts in most sections, facts
of today and sessions of the week; the budget either ends within the first turn of the
sections or goes many turns deep.

Real SQLite store and the real tokenizer, the commands run as the user runs them
(``app.cli.main``). They never open the vector index, so the store is built without it."""

from __future__ import annotations

from collections import deque
from datetime import date, datetime, timedelta

import pytest

from app.cli import main
from models import Fact
from services.config import StoreConfig
from services.engram import Engram
from services.ingest.bulk import bulk_remember
from services.ingest.pipeline import NewFact
from services.lifecycle import compile as comp
from services.lifecycle.config import load_config, save_config
from services.store import fact_rows

LAYERS = ("today", "week", "longterm", "memory")
PROJECTS = ("atlas", "borealis", "cobalt", "dune", "ember", "fjord", "general")
TOPICS = ("deploys", "the parser", "billing", "search", "the release", "logging", "auth")


def _facts(today: date) -> list[NewFact]:
    out = []
    for p, proj in enumerate(PROJECTS):  # 3 to 33 facts a project
        for i in range(3 + 5 * p):
            out.append(
                NewFact(
                    f"{proj.title()} moved {TOPICS[i % 7]} to step {i} after review {p}{i}",
                    category=f"proj:{proj}",
                    importance=round(0.3 + (i * 7 % 10) / 20, 2),
                    event_date=today if i % 9 == 0 else today - timedelta(days=30 + i),
                )
            )
    kinds = (
        ("pref", "The user prefers {t} explained with examples, case {i}"),
        ("env", "Staging runs {t} on host number {i}"),
        ("rule", "Always run the linter before touching {t}, rule {i}"),
        ("task", "TODO: clean up {t} before sprint {i}"),
        ("fact", "Ana owns {t} since quarter {i}"),
        ("rel:ana", "Ana is the reviewer for {t}, pairing {i}"),
    )
    for k, (cat, text) in enumerate(kinds):
        for i in range(25):
            out.append(
                NewFact(
                    text.format(t=TOPICS[(i + k) % 7], i=i),
                    category=cat,
                    importance=round(0.2 + (i * 3 % 10) / 15, 2),
                    event_date=today - timedelta(days=i % 5),
                )
            )
    return out


@pytest.fixture(params=[2500, 330], ids=["many-turns", "first-turn"])
def store(tmp_path, request):
    """~280 facts in 7 projects and 6 other categories, pinned ones in most sections, two
    sessions this week; memory.md's budget goes many turns of the sections deep, or ends in
    the first."""
    data = tmp_path / "store"
    today = datetime.now().date()
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        m = e.agent("claude", create=True)
        bulk_remember(m, _facts(today))
        firsts: dict[str, int] = {}  # a pinned fact in every section, and some more
        for f in m.list():
            firsts.setdefault(f.category, f.id)
            if f.id % 40 == 0 or firsts[f.category] == f.id and ":" not in f.category:
                m.pin(f.id)
        m.add_episode(today, "Fixed the flaky deploy test with Ana")
        m.add_episode(today - timedelta(days=2), "Planned the billing migration")
    cfg = load_config(data)
    cfg.budget_memory = request.param
    save_config(data, cfg)
    assert _engram(data, "compile", "--agent", "claude") == 0
    return data


def _engram(data, *args: str) -> int:
    return main(["--data-dir", str(data), *args])


def _layers(data) -> dict[str, bytes]:
    return {n: (data / "agents" / "claude" / f"{n}.md").read_bytes() for n in LAYERS}


def _facts_now(data) -> list:
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        return e.agent("claude").list()


def _eager_memory(data) -> str:
    """memory.md as the compile built it before issue 33: every section read whole (its best
    300), the pinned facts first, then the sections in turns."""
    with Engram.open(StoreConfig(data_dir=data, semantic=False)) as e:
        m = e.agent("claude")
        svc = comp.CompileService(m)
        today = datetime.now().date()
        cats = fact_rows.active_categories(m.agent_id)
        projects = sorted({c.split(":", 1)[1] for c in cats if c.startswith("proj:")})
        near = ("rule", "meta", "task", "tmp", "episode")
        general = ~Fact.category.startswith("proj:") & Fact.category.not_in(near)
        about = comp._about_user()
        where = {"About the User": general & about}
        for p in projects:
            where[f"Project: {p or 'general'}"] = Fact.category == f"proj:{p}"
        where["Known Facts"] = general & ~about
        where["Rules"] = Fact.category.in_(["rule", "meta"])
        where["Recent Context"] = Fact.category.in_(["task", "tmp", "episode"])
        queues, pinned = {}, []
        for sec, cond in where.items():
            cands = [
                comp._Cand(sec, comp._fact_line(r, cat=sec == "Recent Context"), [r.id], r.pinned)
                for r in comp._rows(m, cond, limit=300)
            ]
            pinned += [c for c in cands if c.pinned]
            queues[sec] = deque(c for c in cands if not c.pinned)
        recent = svc._episode_cands("Recent Context", today - timedelta(days=6), today, True)
        queues["Recent Context"] = deque(recent[:12] + list(queues["Recent Context"]))
        order = list(pinned)
        while any(queues.values()):
            for sec in where:
                if queues[sec]:
                    order.append(queues[sec].popleft())
        title = [f"# Memory — {m.info.name}"]
        md, _, _ = comp.assemble(
            title, list(where), order, svc.config.budget("memory"), "_Nothing remembered yet._"
        )
        return md


def _target(data, command: str) -> tuple[int, str]:
    """The fact a command changes, one whose change memory.md shows: for `pin`, the last
    project's least fact (not shown); `unpin`, a pinned fact it shows; `edit`, an environment
    note it does not show (made the most important of Known Facts); `delete`, an unpinned
    fact it shows."""
    shown = [ln for ln in _layers(data)["memory"].decode().splitlines() if ln.startswith("- ")]
    facts = _facts_now(data)

    def in_md(f) -> bool:
        return any(ln.endswith(f.content) for ln in shown)

    if command == "pin":
        f = min((f for f in facts if f.category == "proj:general"), key=lambda f: f.importance)
    elif command == "edit":
        f = next(f for f in facts if f.category == "env" and not in_md(f))
    else:
        f = next(f for f in facts if f.pinned == (command == "unpin") and in_md(f))
    return f.id, f.content


@pytest.mark.parametrize(
    "words, shown",
    [
        (["pin", "{id}"], True),
        (["unpin", "{id}"], None),
        (["edit", "{id}", "--importance", "0.99"], True),
        (["delete", "{id}", "--yes"], False),
    ],
    ids=["pin", "unpin", "edit", "delete"],
)
def test_memory_md_after_a_light_command_is_the_full_compile(store, words, shown, capsys):
    data = store
    fid, text = _target(data, words[0])
    before = _layers(data)
    assert (text in before["memory"].decode()) is (words[0] in ("unpin", "delete"))
    capsys.readouterr()
    assert _engram(data, *[w.format(id=fid) for w in words]) == 0
    assert capsys.readouterr().out == f"{fid}\n"
    after = _layers(data)
    assert after["memory"] != before["memory"]  # the change is in the file agents load
    if shown is not None:
        assert (text in after["memory"].decode()) is shown
    assert after["memory"].decode() == _eager_memory(data)
    assert _engram(data, "compile", "--agent", "claude") == 0
    assert _layers(data) == after  # a full compile writes the same bytes, every layer

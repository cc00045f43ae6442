"""Issue #30 finding 2: ``forget --matching "Orion migration"`` means the phrase, not each of
its words. Only facts holding the normalised phrase (case, spacing, punctuation folded), as
whole words and in order, are forgotten; a fact naming only part of a known entity's name
("Alice" for Alice Martin) is listed apart and left alone unless the user ticks it.

Real store, real Chroma and the real embedding model (the CLI's default, semantic on)."""

from __future__ import annotations

import json

import pytest

# out of make test-fast (each test forgets through the CLI over a real store): make test runs it
pytestmark = pytest.mark.slow

FACTS = [
    "The Orion migration is done",
    "The migration of birds follows the coast every autumn",
    "Orion is a constellation in the winter sky",
]
ENTRIES = [
    "- ORION  migration: finished on Friday",
    "- The migration of birds follows the coast every autumn",
    "- Orion is a constellation in the winter sky",
]


def _rows(cli, agent: str = "a") -> dict[str, dict]:
    rc, out, _ = cli("list", "--agent", agent, "--json")
    assert rc == 0
    return {f["content"]: f for f in json.loads(out)}


def test_matching_a_phrase_forgets_only_the_phrase(cli, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    assert cli("agent", "add", "a", "--workspace", str(ws))[0] == 0
    memory_md = ws / "MEMORY.md"  # the agent's own notes, written after the import
    memory_md.write_bytes("\n§\n".join(ENTRIES).encode() + b"\n")
    for text in FACTS:
        assert cli("remember", "--agent", "a", text)[0] == 0
    layer = tmp_path / "cli-store" / "agents" / "a" / "memory.md"
    assert cli("compile", "--agent", "a")[0] == 0
    layer_before = layer.read_text().splitlines(keepends=True)
    rows_before = _rows(cli)

    rc, out, _ = cli("forget", "--agent", "a", "--matching", "Orion migration", "--json")
    assert rc == 0
    listed = [f["content"] for f in json.loads(out)["agents"][0]["facts"]]
    # the agent's notes are imported as facts too: the entry with the phrase is listed
    assert listed == [FACTS[0], ENTRIES[0]]
    rc, out, _ = cli("forget", "--agent", "a", "--matching", "Orion migration")
    assert "2 fact(s)" in out and FACTS[1] not in out and FACTS[2] not in out

    rc, out, err = cli("forget", "--agent", "a", "--matching", "Orion migration", "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    rows_after = _rows(cli)
    assert list(rows_after) == [c for c in rows_before if c not in (FACTS[0], ENTRIES[0])]
    assert FACTS[1] in rows_after and FACTS[2] in rows_after
    for content, row in rows_after.items():
        assert row == rows_before[content]  # the kept rows are untouched
    # the workspace file lost the one entry naming the phrase (any case, any spacing)
    assert memory_md.read_bytes() == "\n§\n".join(ENTRIES[1:]).encode() + b"\n"
    # --verify checks what the forget matched, the phrase: the kept facts are no remains
    rc, out, _ = cli("forget", "--verify", "Orion migration")
    assert rc == 0 and "nothing remains" in out, out
    # the compiled layer lost only the forgotten fact's line
    assert layer.read_text().splitlines(keepends=True) == [
        ln for ln in layer_before if FACTS[0] not in ln and "ORION migration" not in ln
    ]
    # the forget rule blocks the phrase, not its words
    assert cli("remember", "--agent", "a", "Orion rises early in winter")[0] == 0
    rc, _, err = cli("remember", "--agent", "a", "the orion migration restarted")
    assert rc == 3 and "forget rule" in err


def test_part_of_a_known_name_is_listed_apart_and_kept_unless_ticked(cli):
    cli("agent", "add", "a")
    for text in (
        "My manager is Alice Martin.",
        "Alice booked the meeting room",
        "The build uses Gradle",
    ):
        assert cli("remember", "--agent", "a", text)[0] == 0
    assert "Alice Martin" in cli("entities", "--agent", "a")[1]  # a known entity

    rc, out, _ = cli("forget", "--agent", "a", "--matching", "Alice Martin", "--json")
    agent = json.loads(out)["agents"][0]
    assert [f["content"] for f in agent["facts"]] == ["My manager is Alice Martin."]
    [part] = agent["partial"]
    assert part["content"] == "Alice booked the meeting room" and part["ticked"] is False
    assert part["why"] == "part of the name: alice"

    rc, out, _ = cli("forget", "--agent", "a", "--matching", "Alice Martin")
    assert "1 fact(s)" in out
    head, also = out.split("also mentions part of the name")
    assert "Alice booked the meeting room" not in head
    assert "(not forgotten unless --include-partial / ticked)" in also
    assert "Alice booked the meeting room" in also

    rc, out, err = cli("forget", "--agent", "a", "--matching", "Alice Martin", "--yes")
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert sorted(_rows(cli)) == ["Alice booked the meeting room", "The build uses Gradle"]


def test_include_partial_forgets_the_parts_too(cli):
    cli("agent", "add", "a")
    for text in ("My manager is Alice Martin.", "Alice booked the meeting room", "Uses Gradle"):
        assert cli("remember", "--agent", "a", text)[0] == 0
    rc, out, err = cli(
        "forget", "--agent", "a", "--matching", "Alice Martin", "--include-partial", "--yes"
    )
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert list(_rows(cli)) == ["Uses Gradle"]
    rc, out, _ = cli("forget", "--verify", "Alice Martin")  # its parts are checked too
    assert rc == 0 and "nothing remains" in out, out


def test_an_unknown_two_word_phrase_lists_no_part(cli):
    cli("agent", "add", "a")
    for text in FACTS:
        cli("remember", "--agent", "a", text)
    rc, out, _ = cli(
        "forget", "--agent", "a", "--matching", "orion, MIGRATION!", "--keyword-only", "--json"
    )
    agent = json.loads(out)["agents"][0]
    assert [f["content"] for f in agent["facts"]] == [FACTS[0]]
    assert agent["facts"][0]["reason"] == 'contains "orion, MIGRATION!" as whole words'
    assert agent["partial"] == []
